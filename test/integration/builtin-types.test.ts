/** Type tests of built-in kinds (src/runtime/api/builtins.ts): exact TypeScript codes and lines. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectedErrors, formatErrors, readFixture, typeCheckProject } from '../helpers/handler-typecheck.js';

const CASE = 'test/fixtures/handlers/cases/builtins.ts';

test('built-in kinds: typed objects, wire timestamps, and a returned status is a compile error', () => {
  const text = readFixture(CASE);
  const errors = typeCheckProject({ extra: { 'cases/builtins.ts': text } });
  const expected = expectedErrors('cases/builtins.ts', text);
  assert.equal(expected.length, 4);
  assert.deepEqual(
    formatErrors(errors),
    expected,
    errors.map((e) => `${e.file}:${e.line} TS${e.code} ${e.message}`).join('\n'),
  );
});
