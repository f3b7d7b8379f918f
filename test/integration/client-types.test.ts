/**
 * Type tests of the typed client, ownership, child handlers and indexes (src/runtime/api/client-api.ts,
 * context.ts, define.ts, indexes.ts): exact TypeScript codes and lines, against the built-in kinds'
 * types and a custom resource typed as `kopfgen generate` types it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectedErrors, formatErrors, readFixture, typeCheckProject } from '../helpers/handler-typecheck.js';

const CASE = 'test/fixtures/handlers/cases/client.ts';

test('what a handler writes through ctx.client is checked exactly: typos, wrong types, missing required fields', () => {
  const text = readFixture(CASE);
  const errors = typeCheckProject({ extra: { 'cases/client.ts': text } });
  const expected = expectedErrors('cases/client.ts', text);
  assert.equal(expected.length, 14);
  assert.deepEqual(
    formatErrors(errors),
    expected,
    errors.map((e) => `${e.file}:${e.line} TS${e.code} ${e.message}`).join('\n'),
  );
});
