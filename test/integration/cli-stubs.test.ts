/**
 * Handler stub files through the CLI: the user's edits survive `generate`, `--check` and
 * stale-file removal byte for byte; a new handler id adds exactly its stubs (and `--check`
 * flags that it would); removed ids are positioned diagnostics, never deleted code.
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXAMPLE_CRD, kopfgen, read, sleep, tempProject, tree, writeFiles } from '../helpers/cli-support.js';

const GADGET_CRD = EXAMPLE_CRD.replace(/myresources/g, 'gadgets')
  .replace(/MyResource/g, 'Gadget')
  .replace(/myresource\b/g, 'gadget')
  .replace('shortNames: [myr]', 'shortNames: [gad]');
const STUB = 'handlers/myresources.ts';

/** The user's edit: a real body, a helper and a comment. */
function userEdit(stub: string): string {
  const edited = stub.replace(
    /ctx\.logger\.info\('create handler not implemented yet'[^\n]*\n\s*return \{ phase: "NotImplemented" \};/,
    `// my own code\n  await ensureDeployment(ctx.name);\n  return { phase: "Starting" };`,
  );
  assert.notEqual(edited, stub, 'the stub has the expected create body to edit');
  return edited + '\nasync function ensureDeployment(name: string): Promise<void> {\n  void name;\n}\n';
}

/**
 * True when every line of `before` appears in `after`, in order: nothing the user wrote changed
 * (but the import from the generated module, which new names join).
 */
function keepsEveryLine(before: string, after: string): boolean {
  const rest = after.split('\n');
  let i = 0;
  for (const line of before.split('\n')) {
    if (line.endsWith('from "../generated/example.com/v1/myresources.js";')) continue;
    while (i < rest.length && rest[i] !== line) i++;
    if (i === rest.length) return false;
    i++;
  }
  return true;
}

test('a user-edited stub file survives generate, --check and stale-file removal byte for byte', async () => {
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD, 'crds/gadget.yaml': GADGET_CRD });
  const first = await kopfgen(['generate', 'crds'], dir);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /added stub myappOnCreate for handler myapp \(create\) to handlers\/myresources\.ts/);
  const edited = userEdit(await read(dir, STUB));
  await writeFiles(dir, { [STUB]: edited });
  const mtime = (await fs.stat(join(dir, STUB))).mtimeMs;
  await sleep(30);

  for (const args of [
    ['generate', 'crds'],
    ['generate', 'crds', '--no-cache'],
    ['generate', 'crds', '--check'],
  ]) {
    const r = await kopfgen(args, dir);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.equal(await read(dir, STUB), edited, args.join(' '));
  }
  // The gadget CRD goes away while its handler file still imports its module: removing the
  // module would break the project, so nothing is written and the import is named.
  const gadgetStub = await read(dir, 'handlers/gadgets.ts');
  await fs.rm(join(dir, 'crds/gadget.yaml'));
  const refused = await kopfgen(['generate', 'crds'], dir);
  assert.equal(refused.code, 1);
  // The position is the import's, after the file's head comment (the template's length).
  const importLine = gadgetStub.split('\n').findIndex((line) => line.startsWith('import {')) + 1;
  assert.match(
    refused.stderr,
    new RegExp(
      `^handlers/gadgets\\.ts:${importLine}:10 error KG321 \`GadgetMyapp\`, .* are imported here but "\\.\\./generated/example\\.com/v1/gadgets\\.js" is no longer generated`,
      'm',
    ),
  );
  assert.ok((await tree(dir)).includes('generated/example.com/v1/gadgets.ts'), 'nothing removed');
  assert.equal(await read(dir, 'handlers/gadgets.ts'), gadgetStub);
  // Once the user removes that code, the module is stale and removed.
  await fs.rm(join(dir, 'handlers/gadgets.ts'));
  const r = await kopfgen(['generate', 'crds'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /2 removed/);
  assert.ok(!(await tree(dir)).includes('generated/example.com/v1/gadgets.ts'));
  assert.ok(!(await tree(dir)).includes('generated/example.com/gadgets.schemas.ts'));
  assert.equal(await read(dir, STUB), edited);
  assert.equal((await fs.stat(join(dir, STUB))).mtimeMs, mtime, 'never rewritten, not even with the same text');
});

test('a new handler id: --check fails with the stubs it would add; generate adds exactly them; removed ids are positioned diagnostics', async () => {
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD });
  assert.equal((await kopfgen(['generate', 'crds'], dir)).code, 0);
  const edited = userEdit(await read(dir, STUB));
  await writeFiles(dir, { [STUB]: edited });

  const withCleanup = ['generate', 'crds', '--handlers', 'MyResource=myapp,cleanup'];
  const check = await kopfgen([...withCleanup, '--check'], dir);
  assert.equal(check.code, 1);
  assert.match(check.stdout, /--- a\/handlers\/myresources\.ts\n\+\+\+ b\/handlers\/myresources\.ts/);
  assert.match(check.stdout, /^\+export async function cleanupOnCreate/m);
  const stubDiff = check.stdout.slice(check.stdout.indexOf('--- a/handlers/')).split('\n').slice(2);
  // Only the import from the generated module changes: the new names join it.
  const removedLines = stubDiff.filter((line) => line.startsWith('-'));
  assert.deepEqual(
    removedLines.map((l) => l.endsWith('from "../generated/example.com/v1/myresources.js";')),
    [true],
  );
  assert.equal(await read(dir, STUB), edited);

  const r = await kopfgen(withCleanup, dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /added stub cleanupOnCreate for handler cleanup \(create\) to handlers\/myresources\.ts/);
  const merged = await read(dir, STUB);
  assert.ok(keepsEveryLine(edited, merged), 'every line the user wrote is still there, in order');
  assert.match(merged, /export async function cleanupOnCreate/);
  assert.equal((await kopfgen([...withCleanup, '--check'], dir)).code, 0);

  // Dropping the id again: positioned diagnostics (warnings at the registrations, an error at the
  // import that would no longer type-check), in the JSON too; nothing written, nothing deleted.
  const dropped = await kopfgen(['generate', 'crds', '--format', 'json'], dir);
  assert.equal(dropped.code, 1, dropped.stderr);
  const report = JSON.parse(dropped.stdout) as {
    diagnostics: { severity: string; code: string; file: string; line: number; col: number }[];
  };
  const lineOf = (text: string) => merged.split('\n').findIndex((l) => l.startsWith(text)) + 1;
  assert.deepEqual(
    report.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.severity} ${d.code}`),
    [
      'crds/my.yaml:17:7 note KG209', // the CRD's status has no conditions
      `handlers/myresources.ts:${lineOf('import { MyResourceMyapp')}:${merged.split('\n')[lineOf('import { MyResourceMyapp') - 1].indexOf('MyResourceCleanup') + 1} error KG321`,
      // `cleanup` is declared by --handlers alone: a create stub, so one registration.
      `handlers/myresources.ts:${lineOf('MyResourceCleanup.onCreate(')}:1 warning KG320`,
    ],
  );
  assert.equal(await read(dir, STUB), merged);
});

test('--check flags a missing stub file; --no-stubs neither writes nor checks stubs', async () => {
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD });
  assert.equal((await kopfgen(['generate', 'crds'], dir)).code, 0);
  await fs.rm(join(dir, STUB));
  const r = await kopfgen(['generate', 'crds', '--check'], dir);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /missing handlers\/myresources\.ts/);
  assert.equal((await kopfgen(['generate', 'crds', '--check', '--no-stubs'], dir)).code, 0);
  assert.equal((await kopfgen(['generate', 'crds', '--no-stubs'], dir)).code, 0);
  assert.ok(!(await tree(dir)).includes(STUB));
  const custom = await kopfgen(['generate', 'crds', '--stubs', 'src/my-handlers'], dir);
  assert.equal(custom.code, 0, custom.stderr);
  assert.match(
    await read(dir, 'src/my-handlers/myresources.ts'),
    /from "\.\.\/\.\.\/generated\/example\.com\/v1\/myresources\.js"/,
  );
});

test("the guard covers the whole project: a helper in src/lib importing a removed handler's names stops the run (KG321), as tsc would", async () => {
  const config = JSON.stringify({ inputs: 'crds', out: 'src/generated', stubs: 'src/handlers' });
  const dir = await tempProject({
    'crds/my.yaml': EXAMPLE_CRD,
    'kopfgen.config.json': config,
    'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext' }, include: ['src'] }),
  });
  const withCleanup = ['generate', '--handlers', 'MyResource=myapp,cleanup'];
  assert.equal((await kopfgen(withCleanup, dir)).code, 0);
  // The user moves the cleanup handler's code out of the stub file, into a helper.
  const stub = await read(dir, 'src/handlers/myresources.ts');
  const helper = [
    '// Shared by several handlers.',
    'import { MyResourceCleanupTemporaryError } from "../generated/index.js";',
    'export function retryLater(): never {',
    '  throw new MyResourceCleanupTemporaryError("later", { delay: 5 });',
    '}',
    '',
  ].join('\n');
  await writeFiles(dir, { 'src/lib/retry.ts': helper });
  const before = await tree(dir);
  const refused = await kopfgen(['generate', '--format', 'json'], dir);
  assert.equal(refused.code, 1, refused.stdout);
  const report = JSON.parse(refused.stdout) as {
    diagnostics: { code: string; file: string; line: number; col: number }[];
  };
  assert.deepEqual(
    report.diagnostics
      .filter((d) => d.file === 'src/lib/retry.ts')
      .map((d) => `${d.file}:${d.line}:${d.col} ${d.code}`),
    ['src/lib/retry.ts:2:10 KG321'],
  );
  assert.deepEqual(await tree(dir), before, 'nothing written');
  assert.equal(await read(dir, 'src/handlers/myresources.ts'), stub);
});

test('a registration written in a string or a comment is no registration: the stubs are added', async () => {
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD });
  await writeFiles(dir, {
    'handlers/notes.ts': [
      'import { MyResourceMyapp } from "../generated/index.js";',
      'export const howTo = "MyResourceMyapp.onCreate(fn), MyResourceMyapp.onUpdate(fn), MyResourceMyapp.onResume(fn)";',
      '// MyResourceMyapp.onCreate(fn)',
      'export const definition = MyResourceMyapp;',
      '',
    ].join('\n'),
  });
  const r = await kopfgen(['generate', 'crds', '--no-cache'], dir);
  assert.equal(r.code, 0, r.stderr);
  for (const cause of ['Create', 'Update', 'Resume'])
    assert.match(r.stdout, new RegExp(`added stub myappOn${cause} for handler myapp`), cause);
  assert.match(await read(dir, STUB), /MyResourceMyapp\.onCreate\(myappOnCreate\)/);
});

test('a stub file that does not parse gets no stubs: KG324 at its syntax error, nothing written', async () => {
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD });
  assert.equal((await kopfgen(['generate', 'crds'], dir)).code, 0);
  const broken = `${await read(dir, STUB)}\nexport function helper(): number {\n  if (Math.random() > 0.5) {\n    return 1;\n}\n`;
  await writeFiles(dir, { [STUB]: broken });
  const before = await tree(dir);
  const r = await kopfgen(['generate', 'crds', '--handlers', 'MyResource=myapp,cleanup'], dir);
  assert.equal(r.code, 1, r.stdout);
  const line = broken.split('\n').length;
  assert.match(r.stderr, new RegExp(`^handlers/myresources\\.ts:${line}:1 error KG324 .*'\\}' expected`, 'm'));
  assert.equal(await read(dir, STUB), broken);
  assert.deepEqual(await tree(dir), before);
});
