/**
 * `ctx.conditions` as a project type-checks it: the names a resource's status schema allows (its enum
 * on `conditions[].type`), metav1.Condition's three statuses, and no helper where the schema has no
 * `conditions` list. Exact codes and lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from '../../src/generate.js';
import { expectedErrors, formatErrors, readFixture, typeCheckProject } from '../helpers/handler-typecheck.js';

const CRDS = ['test/fixtures/crds/conditions.yaml', 'test/fixtures/handlers/typed.yaml'];
const CASE = 'test/fixtures/handlers/cases/conditions.ts';

test('condition names outside the union, statuses outside True/False/Unknown and a schema without conditions are compile errors', () => {
  const result = generate(
    CRDS.map((file) => ({ file, text: readFixture(file) })),
    { stubs: false },
  );
  assert.deepEqual(
    result.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  const text = readFixture(CASE);
  const errors = typeCheckProject({
    generated: result.files.filter((f) => f.role === 'generated'),
    extra: { 'cases/conditions.ts': text },
  });
  const expected = expectedErrors('cases/conditions.ts', text);
  assert.equal(expected.length, 3);
  assert.deepEqual(
    formatErrors(errors),
    expected,
    errors.map((e) => `${e.file}:${e.line} TS${e.code} ${e.message}`).join('\n'),
  );
  const on = (code: number) => errors.find((e) => e.code === code)?.message ?? '';
  assert.match(
    on(2345),
    /"Available"' is not assignable to parameter of type '"Ready" \| "Reconciling" \| "Stalled" \| "Degraded"'/,
  );
  assert.match(on(2322), /"Maybe"' is not assignable to type 'ConditionStatus'/);
  assert.match(on(2339), /Property 'set' does not exist on type 'never'/);
});
