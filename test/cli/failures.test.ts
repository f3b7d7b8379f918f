/**
 * Every failure of `kopfgen generate` is a diagnostic: file-system errors name the user's path
 * (never a temporary) with a code, parser limits are positioned, `--format json` prints exactly
 * one JSON object on every run, an internal error exits 3 (not 1, "out of date"), and nothing
 * is half-written in any of these.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { runGenerate, type Pipeline } from '../../src/cli/generate-command.js';
import type { ResolvedRun } from '../../src/cli/options.js';
import { Reporter } from '../../src/cli/report.js';
import { EXAMPLE_CRD, kopfgen, snapshot, tempProject, tree } from '../helpers/cli-support.js';

/** Exactly one line on stdout, and it parses as a JSON object. */
function oneJsonObject(stdout: string): {
  exitCode: number;
  ok: boolean;
  diagnostics: { code: string; file: string; line: number; col: number; message: string }[];
} {
  const lines = stdout.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `one JSON line on stdout, got: ${stdout}`);
  const parsed: unknown = JSON.parse(lines[0]);
  assert.ok(parsed !== null && typeof parsed === 'object' && 'exitCode' in parsed && 'diagnostics' in parsed);
  return parsed as ReturnType<typeof oneJsonObject>;
}

test('--out pointing at a file: KG901 names that file, exit 1, one JSON object, nothing written', async () => {
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD, outfile: 'not a directory\n' });
  const before = await snapshot(dir);
  const r = await kopfgen(
    ['generate', 'crds', '--out', 'outfile', '--no-stubs', '--no-cache', '--format', 'json'],
    dir,
  );
  assert.equal(r.code, 1, r.stderr);
  const report = oneJsonObject(r.stdout);
  assert.deepEqual(
    report.diagnostics.map((d) => [d.code, d.file]),
    [['KG901', 'outfile']],
  );
  assert.match(report.diagnostics[0].message, /outfile is a file, but kopfgen needs a directory there/);
  assert.doesNotMatch(r.stdout + r.stderr, /ENOTDIR|kopfgen\.tmp/);
  assert.deepEqual(await snapshot(dir), before);

  const text = await kopfgen(['generate', 'crds', '--out', 'outfile', '--no-stubs', '--no-cache'], dir);
  assert.equal(text.code, 1);
  assert.match(text.stderr, /^outfile:1:1 error KG901 /m);
});

/** Whether this process may make a directory immutable (root with CAP_LINUX_IMMUTABLE), or is refused writes by permissions. */
async function readOnlyDir(path: string): Promise<'chattr' | 'chmod' | undefined> {
  await fs.mkdir(path, { recursive: true });
  if (process.getuid?.() !== 0) {
    await fs.chmod(path, 0o555);
    return 'chmod';
  }
  try {
    execFileSync('chattr', ['+i', path], { stdio: 'ignore' });
    return 'chattr';
  } catch {
    return undefined;
  }
}

async function undoReadOnly(path: string, how: 'chattr' | 'chmod'): Promise<void> {
  if (how === 'chattr') execFileSync('chattr', ['-i', path], { stdio: 'ignore' });
  else await fs.chmod(path, 0o755);
}

test("read-only output directory: KG900 names the user's directory, never the temporary, nothing half-written", async (t) => {
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD });
  // An existing, up-to-date file in the read-only directory and a new one to create there.
  const first = await kopfgen(['generate', 'crds', '--out', 'gen', '--no-stubs', '--no-cache'], dir);
  assert.equal(first.code, 0, first.stderr);
  await fs.appendFile(
    join(dir, 'crds/my.yaml'),
    EXAMPLE_CRD.replace(/myresources/g, 'otherresources')
      .replace(/MyResource/g, 'OtherResource')
      .replace(/^/, '---\n'),
  );
  const target = join(dir, 'gen/example.com/v1');
  const how = await readOnlyDir(target);
  if (!how) return t.skip('needs a way to make a directory read-only (chattr as root, or chmod as a user)');
  try {
    const before = await snapshot(dir);
    const r = await kopfgen(['generate', 'crds', '--out', 'gen', '--no-stubs', '--no-cache', '--format', 'json'], dir);
    assert.equal(r.code, 1, r.stderr);
    const report = oneJsonObject(r.stdout);
    assert.deepEqual(
      report.diagnostics.map((d) => [d.code, d.file]),
      [['KG900', 'gen/example.com/v1']],
    );
    assert.doesNotMatch(r.stdout + r.stderr, /kopfgen\.tmp|EACCES|EPERM/);
    assert.deepEqual(await snapshot(dir), before, 'nothing written, no temporary left');
    assert.deepEqual(
      (await tree(dir)).filter((f) => f.includes('.tmp')),
      [],
    );
  } finally {
    await undoReadOnly(target, how);
  }
});

test('a schema 1,000 levels deep and an alias bomb: positioned KG140/KG141, one JSON object, nothing written', async () => {
  let deep = EXAMPLE_CRD.replace(/openAPIV3Schema:[\s\S]*$/, 'openAPIV3Schema:\n');
  let indent = '          ';
  for (let i = 0; i < 1000; i++) {
    deep += `${indent}type: object\n${indent}properties:\n${indent}  a:\n`;
    indent += '    ';
  }
  deep += `${indent}type: string\n`;
  const anchors = ['          a0: &a0 { type: object, properties: { x: { type: string } } }'];
  for (let i = 1; i < 9; i++) {
    anchors.push(
      `          a${i}: &a${i} { type: object, properties: { ${Array.from({ length: 10 }, (_, j) => `p${j}: *a${i - 1}`).join(', ')} } }`,
    );
  }
  const bomb = EXAMPLE_CRD.replace(
    /openAPIV3Schema:[\s\S]*$/,
    `openAPIV3Schema:\n        type: object\n        properties:\n${anchors.join('\n')}\n`,
  );
  for (const [text, code] of [
    [deep, 'KG140'],
    [bomb, 'KG141'],
  ] as const) {
    const dir = await tempProject({ 'crds/my.yaml': text });
    const r = await kopfgen(['generate', 'crds', '--no-cache', '--format', 'json'], dir);
    assert.equal(r.code, 1, r.stderr);
    const report = oneJsonObject(r.stdout);
    assert.deepEqual(
      report.diagnostics.map((d) => [d.code, d.file]),
      [[code, 'crds/my.yaml']],
    );
    assert.ok(report.diagnostics[0].line > 1, 'positioned at the offending node');
    assert.doesNotMatch(r.stdout + r.stderr, /Maximum call stack|Excessive alias/);
    assert.deepEqual(await tree(dir), ['crds/my.yaml']);
  }
});

test('a schema just within the depth limit generates (the emitters keep up with what the loader accepts)', async () => {
  let text = EXAMPLE_CRD.replace(/openAPIV3Schema:[\s\S]*$/, 'openAPIV3Schema:\n');
  let indent = '          ';
  for (let i = 0; i < 250; i++) {
    text += `${indent}type: object\n${indent}properties:\n${indent}  a:\n`;
    indent += '    ';
  }
  text += `${indent}type: string\n`;
  const dir = await tempProject({ 'crds/my.yaml': text });
  const r = await kopfgen(['generate', 'crds', '--no-cache'], dir);
  assert.equal(r.code, 0, r.stderr);
});

test('usage errors with --format json: exit 2 and still one JSON object', async () => {
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD });
  const r = await kopfgen(['generate', 'crds', '--bogus', '--format', 'json'], dir);
  assert.equal(r.code, 2);
  const report = oneJsonObject(r.stdout);
  assert.equal(report.exitCode, 2);
  assert.deepEqual(
    report.diagnostics.map((d) => d.code),
    ['KG950'],
  );
  const combined = await kopfgen(['generate', 'crds', '--check', '--watch', '--format=json'], dir);
  assert.equal(combined.code, 2);
  assert.equal(oneJsonObject(combined.stdout).diagnostics[0].code, 'KG950');
});

function streams(): { stdout: PassThrough; stderr: PassThrough; out: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let text = '';
  stdout.on('data', (d: Buffer) => (text += d.toString()));
  return { stdout, stderr, out: () => text };
}

test('an internal error: KG999, exit 3 (distinct from 1, out of date), one JSON object, nothing written', async () => {
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD });
  const pipeline: Pipeline = {
    read: async () => ({ sources: [{ file: 'crds/my.yaml', text: EXAMPLE_CRD }], diagnostics: [] }),
    generate: () => {
      throw new TypeError('cannot read properties of undefined');
    },
  };
  const run: ResolvedRun = {
    cwd: dir,
    projectDir: dir,
    inputs: ['crds'],
    outDir: join(dir, 'generated'),
    stubsDir: undefined,
    options: { stubs: false },
    check: false,
    watch: false,
    format: 'json',
    quiet: false,
    cache: false,
  };
  const s = streams();
  const reporter = new Reporter({ stdout: s.stdout, stderr: s.stderr, env: {} }, 'json', false);
  const report = await runGenerate(run, pipeline, reporter, 'kopfgen generate');
  reporter.finish(report);
  assert.equal(report.exitCode, 3);
  const json = oneJsonObject(s.out());
  assert.equal(json.exitCode, 3);
  assert.equal(json.ok, false);
  assert.deepEqual(
    json.diagnostics.map((d) => d.code),
    ['KG999'],
  );
  assert.match(
    json.diagnostics[0].message,
    /internal error: cannot read properties of undefined; nothing was written; please report this/,
  );
  assert.deepEqual(await tree(dir), ['crds/my.yaml']);
});
