/**
 * Merging the kopf target's stubs into a user's module: insertions only (every byte the user
 * wrote survives, in order), the needed names joining the module's own import statements, and a
 * handler the module or another file already knows never brought back.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { GeneratedFile } from '../../src/api.js';
import { generate } from '../../src/generate.js';
import { readPyStubTemplates } from '../../src/io/stub-templates.js';
import { mergePyStubFile } from '../../src/stubs/py-stub-merge.js';

const STORY = 'crds/myresource.yaml';
const MODULE = 'generated.example_com.v1.myresources';

/** The story CRD's stub module, with the handler ids given in the annotation. */
function stubFile(ids: string): GeneratedFile {
  const text = readFileSync(STORY, 'utf8').replace(
    '  name: myresources.example.com\n',
    `  name: myresources.example.com\n  annotations:\n    kopfgen.dev/handlers: "${ids}"\n`,
  );
  const result = generate([{ file: STORY, text }], {
    target: 'kopf',
    stubs: { dir: '../kinds', templates: readPyStubTemplates() },
    generatedPackage: 'generated',
  });
  const stub = result.files.find((f) => f.role === 'stub');
  assert.ok(stub, 'a stub module');
  return stub;
}

function assertOnlyInsertions(original: string, merged: string): void {
  let i = 0;
  for (const ch of merged) if (i < original.length && ch === original[i]) i++;
  assert.equal(i, original.length, 'every byte of the user file survives, in order');
}

describe('merging stubs into a Python module', () => {
  const before = stubFile('myapp');
  const after = stubFile('myapp, cleanup');

  it('an up-to-date module is left byte for byte', () => {
    const merged = mergePyStubFile(before.content, before);
    assert.deepEqual(merged, { text: before.content, added: [] });
  });

  it("a new handler's stubs are appended; its names join the parenthesised import, one a line", () => {
    const merged = mergePyStubFile(before.content, after);
    assert.deepEqual(
      merged.added.map((s) => s.name),
      ['cleanup_on_create', 'cleanup_on_update', 'cleanup_on_resume'],
    );
    assertOnlyInsertions(before.content, merged.text);
    assert.match(
      merged.text,
      new RegExp(`from ${MODULE.replace(/\./g, '\\.')} import \\(\\n(    \\w+,\\n)+\\)\\n`),
      'still one parenthesised import',
    );
    assert.match(merged.text, /\n {4}MyResourceStatus,\n {4}MyResourceCleanup,\n {4}MyResourceCleanupStatus,\n\)/);
    assert.equal(merged.text.match(/^from generated/gm)?.length, 1, 'one import statement for the module');
    assert.ok(merged.text.endsWith(merged.added[2].text), 'the last stub ends the module');
    assert.equal(mergePyStubFile(merged.text, after).added.length, 0, 'merging again adds nothing');
  });

  it('a flat import gets the names after its last one', () => {
    const flat = `from ${MODULE} import MyResourceMyapp\n\n\n@MyResourceMyapp.on_create()\ndef f() -> None: ...\n`;
    const merged = mergePyStubFile(flat, after);
    assert.match(
      merged.text,
      new RegExp(
        `^from ${MODULE.replace(/\./g, '\\.')} import MyResourceMyapp, MyResourceCleanup, MyResourceCleanupStatus, MyResourceSpec, MyResourceStatus$`,
        'm',
      ),
    );
    assertOnlyInsertions(flat, merged.text);
  });

  it('without an import from the module (or of kopf), new statements go after the last import', () => {
    const user =
      '"""My handlers."""\nimport logging\n\nLOG = logging.getLogger()\n# MyResourceMyapp lives elsewhere\nMyResourceMyapp = None\n';
    const merged = mergePyStubFile(user, after);
    assertOnlyInsertions(user, merged.text);
    assert.ok(
      merged.text.startsWith(
        '"""My handlers."""\nimport logging\nfrom typing import Any, Optional\n\nimport kopf\n\n' +
          `from ${MODULE} import (\n    MyResourceCleanup,\n    MyResourceCleanupStatus,\n    MyResourceSpec,\n    MyResourceStatus,\n)\n\nLOG =`,
      ),
      merged.text,
    );
  });

  it('a module without statements gets the imports, then the stubs', () => {
    const user = '# nothing yet';
    const merged = mergePyStubFile(user, before);
    assert.ok(
      merged.text.startsWith('# nothing yet\nfrom typing import Any, Optional\n\nimport kopf\n\nfrom generated'),
      merged.text,
    );
    assert.equal(merged.added.length, 3);
  });

  it('a handler the module names anywhere, or another file registers, is not brought back', () => {
    const user =
      '# MyResourceCleanup is handled elsewhere\nx = "MyResourceCleanup"\nfrom x import MyResourceCleanup as C\n';
    assert.deepEqual(
      mergePyStubFile(user, after).added.map((s) => s.definition),
      ['MyResourceMyapp', 'MyResourceMyapp', 'MyResourceMyapp'],
      'only the import names it, as an identifier: the myapp stubs are added, not the cleanup ones',
    );
    const elsewhere = mergePyStubFile(before.content, after, new Set(['MyResourceCleanup']));
    assert.deepEqual(elsewhere, { text: before.content, added: [] });
  });

  it('a stub whose function the user declared is not added again', () => {
    const user = 'async def cleanup_on_update() -> None: ...\nMyResourceMyapp = 1\n';
    const merged = mergePyStubFile(user, after);
    assert.deepEqual(
      merged.added.map((s) => s.name),
      ['cleanup_on_create', 'cleanup_on_resume'],
    );
  });
});
