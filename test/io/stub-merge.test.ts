import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GeneratedFile } from '../../src/api.js';
import { generate } from '../../src/generate.js';
import { mergeStubFile } from '../../src/io/stub-merge.js';
import { formatErrors, readFixture, typeCheckProject } from '../helpers/handler-typecheck.js';
import { outsideUnitScope } from '../helpers/test-scope.js';
import { readStubTemplates } from '../../src/io/stub-templates.js';

const STORY = 'crds/myresource.yaml';

function run(annotation?: string) {
  let text = readFixture(STORY);
  if (annotation)
    text = text.replace(
      '  name: myresources.example.com\n',
      `  name: myresources.example.com\n  annotations:\n    kopfgen.dev/handlers: "${annotation}"\n`,
    );
  const result = generate([{ file: STORY, text }], {
    stubs: { dir: 'handlers', templates: readStubTemplates() },
    generatedImportBase: '../generated',
  });
  assert.deepEqual(
    result.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  const stub = result.files.find((f) => f.role === 'stub' && f.path === 'myresources.ts');
  assert.ok(stub, 'a stub file for MyResource');
  return { generated: result.files.filter((f) => f.role === 'generated'), stub };
}

/** What a user typically does to the scaffold: fills a body, drops a stub, adds imports and helpers. */
function userEdits(content: string): string {
  const edited = content
    .replace(
      'import type { HandlerContext } from "kopfgen/runtime";\n',
      'import type { HandlerContext } from "kopfgen/runtime";\nimport { setTimeout as sleep } from \'node:timers/promises\';\n',
    )
    .replace(
      / {2}\/\/ The runtime's[^\n]*\n {2}ctx\.logger\.info\('create handler not implemented yet'[^\n]*\n {2}return \{ phase: "NotImplemented" \};/,
      "  await sleep(1);\n  return { phase: 'Starting' };",
    )
    .replace(/\n\/\*\*\n \* Handler `myapp`, on update\.[\s\S]*?MyResourceMyapp\.onUpdate\(myappOnUpdate\);\n/, '\n');
  assert.notEqual(edited, content);
  assert.ok(!edited.includes('myappOnUpdate'));
  return edited + '\n// my own notes at the end, without a trailing newline';
}

/**
 * `merged` is `original` with text inserted only: deleting the insertions gives back every byte.
 * Every line is kept verbatim except the import from the generated module, which new names join.
 */
function assertOnlyInsertions(original: string, merged: string): void {
  let i = 0;
  for (const ch of merged) if (i < original.length && ch === original[i]) i++;
  assert.equal(i, original.length, 'every byte of the user file survives, in order');
  const lines = new Set(merged.split('\n'));
  for (const line of original.split('\n')) {
    if (!line.endsWith('from "../generated/example.com/v1/myresources.js";'))
      assert.ok(lines.has(line), `line kept verbatim: ${line}`);
  }
}

test(
  "a user-edited stub file gains exactly the new handler's stubs; a second run is byte-identical",
  { skip: outsideUnitScope('a TypeScript program') },
  () => {
    const v1 = run();
    const mine = userEdits(v1.stub.content);
    // Nothing new: the file is left alone, even though the user dropped the update stub.
    const same = mergeStubFile(mine, v1.stub);
    assert.equal(same.text, mine);
    assert.deepEqual(same.added, []);

    const v2 = run('cleanup');
    const merged = mergeStubFile(mine, v2.stub);
    assert.deepEqual(
      merged.added.map((s) => s.name),
      ['cleanupOnCreate', 'cleanupOnUpdate', 'cleanupOnResume'],
    );
    assertOnlyInsertions(mine, merged.text);
    // One import per module: the new names join the file's import from the generated module.
    const fromModule = merged.text
      .split('\n')
      .filter((l) => l.includes('from "../generated/example.com/v1/myresources.js"'));
    assert.equal(fromModule.length, 1, fromModule.join('\n'));
    assert.match(
      fromModule[0],
      /^import \{ MyResourceMyapp, .*type MyResourceMyappStatus, MyResourceCleanup, MyResourceCleanupPermanentError, MyResourceCleanupTemporaryError, type MyResourceCleanupStatus \} from/,
    );
    assert.ok(merged.text.endsWith('MyResourceCleanup.onResume(cleanupOnResume);\n'));

    const again = mergeStubFile(merged.text, v2.stub);
    assert.equal(again.text, merged.text);
    assert.deepEqual(again.added, []);

    // The merged file still compiles against the regenerated code.
    const errors = typeCheckProject({ generated: v2.generated, stubs: [{ ...v2.stub, content: merged.text }] });
    assert.deepEqual(formatErrors(errors), []);

    // A function of the user's named like a stub: the stub is renamed, registered, and compiles.
    const clashed = mine + '\nexport function cleanupOnUpdate(): string {\n  return "mine";\n}\n';
    const renamed = mergeStubFile(clashed, v2.stub);
    assert.deepEqual(
      renamed.added.map((s) => s.name),
      ['cleanupOnCreate', 'cleanupOnUpdate2', 'cleanupOnResume'],
    );
    assert.match(renamed.text, /^MyResourceCleanup\.onUpdate\(cleanupOnUpdate2\);$/m);
    const renamedErrors = typeCheckProject({
      generated: v2.generated,
      stubs: [{ ...v2.stub, content: renamed.text }],
    });
    assert.deepEqual(formatErrors(renamedErrors), []);
  },
);

test("handlers that are gone: the merge deletes nothing (orphans are the stubs scan's diagnostics)", () => {
  const v2 = run('cleanup');
  const v1 = run();
  const result = mergeStubFile(v2.stub.content, v1.stub);
  assert.equal(result.text, v2.stub.content);
  assert.deepEqual(result.added, []);
});

test('a handler registered in another file of the stubs directory is present: its stubs are not added', () => {
  const { stub } = run('cleanup');
  const head = stub.content.slice(0, stub.content.indexOf('\n/**'));
  const withoutCleanup = mergeStubFile(head + '\n', stub, new Set(['MyResourceCleanup']));
  assert.deepEqual(
    withoutCleanup.added.map((s) => s.name),
    [],
  );
  const onlyMyapp = mergeStubFile('', stub, new Set(['MyResourceCleanup']));
  assert.deepEqual(
    onlyMyapp.added.map((s) => s.name),
    ['myappOnCreate', 'myappOnUpdate', 'myappOnResume'],
  );
  assert.ok(!onlyMyapp.text.includes('MyResourceCleanup'), 'no import for the handler registered elsewhere');
});

test('a type-only import from the module becomes a mixed one when values join it', () => {
  const { stub } = run();
  const mine =
    'import type { MyResource } from "../generated/example.com/v1/myresources.js";\n\nexport type Mine = MyResource;\n';
  const merged = mergeStubFile(mine, stub);
  const lines = merged.text.split('\n').filter((l) => l.includes('myresources.js'));
  assert.deepEqual(lines, [
    'import { type MyResource, MyResourceMyapp, MyResourceMyappPermanentError, MyResourceMyappTemporaryError, type MyResourceMyappStatus } from "../generated/example.com/v1/myresources.js";',
  ]);
});

test('a file without imports gets them before its first statement; name clashes are never duplicated', () => {
  const { stub } = run();
  const bare = '// my operator\n\nexport const limit = 3;\n';
  const merged = mergeStubFile(bare, stub);
  assert.deepEqual(merged.added.length, 3);
  assert.ok(
    merged.text.startsWith(
      '// my operator\n\nimport type { HandlerContext } from "kopfgen/runtime";\nimport { MyResourceMyapp, ',
    ),
  );
  assert.ok(merged.text.includes('\nexport const limit = 3;\n'));
  // A function of the user's that has a stub's name (and registers nothing) does not cost the
  // handler its stub or its registration: the stub takes the next free name.
  const clash: GeneratedFile = stub;
  const own = 'export function myappOnCreate(): void {}\nconst myappOnCreate2 = 1;\n';
  const renamed = mergeStubFile(own, clash);
  assert.deepEqual(
    renamed.added.map((s) => s.name),
    ['myappOnCreate3', 'myappOnUpdate', 'myappOnResume'],
  );
  assert.ok(renamed.text.includes(own), "the user's code is kept");
  assert.match(renamed.text, /^export async function myappOnCreate3\(/m);
  assert.match(renamed.text, /^MyResourceMyapp\.onCreate\(myappOnCreate3\);$/m);
  assert.doesNotMatch(renamed.text, /onCreate\(myappOnCreate\)/);
});

test('a file that does not parse gets no stubs (they would land inside its unclosed block): the syntax error, positioned', () => {
  const { stub } = run();
  const broken = 'export function helper() {\n  if (true) {\n    return 1;\n}\n';
  const merged = mergeStubFile(broken, stub);
  assert.equal(merged.text, broken);
  assert.deepEqual(merged.added, []);
  assert.deepEqual(merged.syntax && [merged.syntax.line, merged.syntax.col], [5, 1]);
  assert.match(merged.syntax?.message ?? '', /'}' expected/);
  // Nothing to add: a broken file is left alone without a word (tsc will tell).
  const known = broken + 'MyResourceMyapp;\n';
  assert.equal(mergeStubFile(known, stub).syntax, undefined);
});
