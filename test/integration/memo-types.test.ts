/**
 * `ctx.memo` as a project type-checks it: what the project declares by merging into `Memo` is typed on
 * every hook and handler context, a key it does not declare is an error. Exact codes and lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expectedErrors, formatErrors, readFixture, typeCheckProject } from '../helpers/handler-typecheck.js';

const CASE = 'test/fixtures/handlers/cases/memo.ts';

test('the memo is typed by the project’s Memo declaration: an undeclared key and a wrong value type are errors', () => {
  const text = readFixture(CASE);
  const errors = typeCheckProject({ extra: { 'cases/memo.ts': text } });
  const expected = expectedErrors('cases/memo.ts', text);
  assert.equal(expected.length, 2);
  assert.deepEqual(
    formatErrors(errors),
    expected,
    errors.map((e) => `${e.file}:${e.line} TS${e.code} ${e.message}`).join('\n'),
  );
});
