/**
 * Golden tests: every fixture under test/fixtures/crds (one per schema construct) and every
 * example in crds/ is generated as its own run and compared byte for byte with the committed
 * output under test/golden/<name>/ (for the story's CRD, the example's own generated directory,
 * so that output is committed once); then all goldens are type-checked together under strict.
 * `KOPFGEN_UPDATE_GOLDENS=1` rewrites the goldens instead of comparing.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  REPO,
  formatTs,
  generateFile,
  goldenFixtures,
  listTree,
  typecheck,
  writeTree,
} from '../helpers/golden-support.js';

const UPDATE = process.env.KOPFGEN_UPDATE_GOLDENS === '1';
const GOLDEN = join(REPO, 'test/golden');
/** Inputs whose committed output lives elsewhere: the runnable example is the story CRD's golden. */
const GOLDEN_ELSEWHERE: Record<string, string> = {
  'crds/myresource.yaml': join(REPO, 'examples/myresource/generated'),
};
const goldenDir = ({ name, file }: { name: string; file: string }): string =>
  GOLDEN_ELSEWHERE[file] ?? join(GOLDEN, name);

for (const { name, file } of goldenFixtures()) {
  test(`golden: ${file}`, () => {
    const result = generateFile(file);
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    assert.deepEqual(errors, [], `${file} must generate without errors`);
    const dir = goldenDir({ name, file });
    if (UPDATE) {
      rmSync(dir, { recursive: true, force: true });
      writeTree(dir, result.files);
      return;
    }
    assert.ok(existsSync(dir), `no golden for ${file}; run with KOPFGEN_UPDATE_GOLDENS=1 and review the output`);
    assert.deepEqual(result.files.map((f) => f.path).sort(), listTree(dir), `files generated for ${file}`);
    for (const f of result.files) {
      assert.equal(f.content, readFileSync(join(dir, f.path), 'utf8'), `${name}/${f.path} differs from its golden`);
    }
  });
}

test('goldens type-check under strict with zero errors', () => {
  const files = goldenFixtures().flatMap((fixture) =>
    listTree(goldenDir(fixture)).map((f) => join(goldenDir(fixture), f)),
  );
  assert.ok(files.length > 0, 'goldens exist');
  const diagnostics = typecheck(files);
  assert.deepEqual(diagnostics.map(formatTs), []);
});

test('generation is deterministic: input order does not change the output', async () => {
  const { generate } = await import('../../src/generate.js');
  const sources = goldenFixtures()
    .filter((f) => !f.file.startsWith('crds/'))
    .map(({ file }) => ({ file, text: readFileSync(join(REPO, file), 'utf8') }));
  const forward = generate(sources, { stubs: false });
  const backward = generate([...sources].reverse(), { stubs: false });
  assert.deepEqual(backward.files, forward.files);
  assert.equal(
    forward.files.some((f) => /\d{4}-\d\d-\d\dT/.test(f.content)),
    false,
    'no timestamps',
  );
});
