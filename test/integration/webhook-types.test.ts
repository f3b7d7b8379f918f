/**
 * Admission and conversion typing against the widgets example CRD (v1 storage, v1alpha1 served):
 * correct callbacks compile; an unknown key or a wrong type in a mutation, `old` on CREATE, a
 * conversion missing a required field of its target version (or adding one it lacks, or typing
 * one wrongly), and an unknown spoke are compile errors with exact codes and lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from '../../src/generate.js';
import { readStubTemplates } from '../../src/io/stub-templates.js';
import { expectedErrors, formatErrors, readFixture, typeCheckProject } from '../helpers/handler-typecheck.js';

const CRD = 'examples/widgets/widgets.yaml';
const CASE = 'test/fixtures/webhooks/cases/exactness.ts';

test('admission and conversion mistakes are compile errors with exact codes and lines', () => {
  const result = generate([{ file: CRD, text: readFixture(CRD) }], {
    stubs: { dir: 'handlers', templates: readStubTemplates() },
    generatedImportBase: '../generated',
  });
  // The fixture's status has no conditions: the one note is the hint to add them (KG209).
  assert.deepEqual(
    result.diagnostics.map((d) => `${d.severity} ${d.code}`),
    ['note KG209'],
  );
  const errors = typeCheckProject({
    generated: result.files.filter((f) => f.role === 'generated'),
    stubs: result.files.filter((f) => f.role === 'stub'),
    extra: { 'cases/exactness.ts': readFixture(CASE) },
  });
  const expected = expectedErrors('cases/exactness.ts', readFixture(CASE));
  assert.equal(expected.length, 13);
  assert.deepEqual(
    formatErrors(errors),
    expected,
    errors.map((e) => `${e.file}:${e.line} TS${e.code} ${e.message}`).join('\n'),
  );
  const on = (fragment: string) => errors.find((e) => e.message.includes(fragment));
  assert.ok(on("Property 'size' is missing"), 'the missing field is named');
  assert.ok(on("'size' does not exist in type"), 'the extra field is named');
  assert.ok(on('colour: never'), 'the async mutation names the unknown key as never');
});
