/**
 * The ports of kopf's examples (`examples/kopf`, run by test/e2e/kopf-examples.test.ts): their
 * generated module is what `kopfgen generate examples/kopf/kopfexamples.yaml --out
 * examples/kopf/generated` writes today (kopf's own examples CRD, copied as it is).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { generate } from '../../src/generate.js';

const DIR = 'examples/kopf';
const CRD = `${DIR}/kopfexamples.yaml`;

test("the generated module of kopf's examples CRD is current", () => {
  const result = generate([{ file: CRD, text: readFileSync(CRD, 'utf8') }], {});
  // notes only (kopf's CRD, kept as it is, has no conditions: KG209 suggests them)
  assert.deepEqual(
    result.diagnostics.filter((d) => d.severity !== 'note'),
    [],
  );
  const generated = result.files.filter((file) => file.role === 'generated');
  assert.ok(generated.length > 0);
  for (const file of generated) {
    assert.equal(readFileSync(join(DIR, 'generated', file.path), 'utf8'), file.content, file.path);
  }
});
