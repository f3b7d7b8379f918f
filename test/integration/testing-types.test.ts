/**
 * kopfgen/testing's typing against a CRD whose handlers have closed statuses
 * (test/fixtures/handlers/typed.yaml): `expectOutcome` takes the handler's status type exactly (a
 * wrong key, also in an expectation built in a variable, or a wrong value is a compile error), the
 * result's `status` is typed, and an object builder's override is checked against the resource.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from '../../src/generate.js';
import { readStubTemplates } from '../../src/io/stub-templates.js';
import { expectedErrors, formatErrors, readFixture, typeCheckProject } from '../helpers/handler-typecheck.js';
import { outsideUnitScope } from '../helpers/test-scope.js';

const CRD = 'test/fixtures/handlers/typed.yaml';
const CASE = 'test/fixtures/testing/cases/expectations.ts';

test(
  'wrong expectations and builder overrides are compile errors with exact codes and lines',
  { skip: outsideUnitScope('a TypeScript program') },
  () => {
    const result = generate([{ file: CRD, text: readFixture(CRD) }], {
      stubs: { dir: 'handlers', templates: readStubTemplates() },
      generatedImportBase: '../generated',
    });
    assert.deepEqual(
      result.diagnostics.filter((d) => d.severity === 'error'),
      [],
    );
    const errors = typeCheckProject({
      generated: result.files.filter((f) => f.role === 'generated'),
      stubs: result.files.filter((f) => f.role === 'stub'),
      extra: { 'cases/expectations.ts': readFixture(CASE) },
    });
    const expected = expectedErrors('cases/expectations.ts', readFixture(CASE));
    assert.equal(expected.length, 11);
    assert.deepEqual(
      formatErrors(errors),
      expected,
      errors.map((e) => `${e.file}:${e.line} TS${e.code} ${e.message}`).join('\n'),
    );
    const on = (fragment: string) => errors.find((e) => e.message.includes(fragment));
    assert.ok(on("'phaze' does not exist"), 'the wrong status key is named');
    assert.ok(on("'engin' does not exist"), 'the unknown override field is named');
  },
);
