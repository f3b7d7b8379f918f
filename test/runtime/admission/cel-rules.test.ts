/**
 * The validation rules of test/fixtures/crds/validation-rules.yaml, each admitted when it holds and
 * refused with its message (or messageExpression, reason, fieldPath) when it does not, on create and
 * on update (transition rules, `optionalOldSelf`, map-list items correlated by key); through
 * `admitObject` and through the fake client's update. And the structural-gaps fixture:
 * `minProperties`/`maxProperties`, a list under preserve-unknown-fields keeping its items' unknown
 * fields, integers beyond int64.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defineResource } from '../../../src/runtime/api/define.js';
import { ApiError } from '../../../src/runtime/api/client-api.js';
import { CelRuleError } from '../../../src/runtime/admission/cel-rules.js';
import { admitObject, fakeClient } from '../../../src/testing/index.js';
import { oneSchemaData } from '../../helpers/crd-schema-data.js';

const GATES = oneSchemaData('test/fixtures/crds/validation-rules.yaml');
const WORKFLOWS = oneSchemaData('test/fixtures/crds/structural-gaps.yaml');

const gate = (spec: Record<string, unknown>) => ({
  apiVersion: 'fixtures.kopfgen.dev/v1',
  kind: 'Gate',
  metadata: { name: 'g', namespace: 'default' },
  spec: { id: 'a', minReplicas: 1, maxReplicas: 3, ...spec },
});

const messages = (errors: { path: string; message: string }[]) => errors.map((e) => `${e.path}: ${e.message}`);

const cases: { name: string; given: Record<string, unknown>; old?: Record<string, unknown>; want: string[] }[] = [
  { name: 'every rule holds', given: {}, want: [] },
  {
    name: 'message',
    given: { minReplicas: 5 },
    want: ['spec: Invalid value: minReplicas must not exceed maxReplicas'],
  },
  {
    name: 'messageExpression at fieldPath',
    given: { url: 'http://example.com' },
    want: ['spec.url: Invalid value: url must be an https URL, not http://example.com'],
  },
  { name: 'an https url holds', given: { url: 'https://example.com/x' }, want: [] },
  { name: 'transition rule skipped on create', given: { id: 'b' }, want: [] },
  {
    name: 'transition rule with reason',
    given: { id: 'b' },
    old: { id: 'a' },
    want: ['spec: Forbidden: id is immutable'],
  },
  {
    name: 'optionalOldSelf evaluated on create',
    given: { maxReplicas: 200 },
    want: ['spec: Invalid value: a new gate starts below 100 replicas'],
  },
  { name: 'optionalOldSelf on update', given: { maxReplicas: 200 }, old: { maxReplicas: 150 }, want: [] },
  {
    name: 'rule on a list item',
    given: {
      ports: [
        { name: 'http', port: 80 },
        { name: 'bad', port: 70000 },
      ],
    },
    want: ['spec.ports[1]: Invalid value: port must be between 1 and 65535'],
  },
  {
    name: 'list item correlated by key',
    given: {
      ports: [
        { name: 'b', port: 2, protocol: 'UDP' },
        { name: 'a', port: 1, protocol: 'TCP' },
      ],
    },
    old: {
      ports: [
        { name: 'a', port: 1, protocol: 'TCP' },
        { name: 'b', port: 2, protocol: 'TCP' },
      ],
    },
    want: ['spec.ports[0]: Invalid value: protocol is immutable'],
  },
  {
    name: 'a new list item has no oldSelf',
    given: { ports: [{ name: 'c', port: 3, protocol: 'UDP' }] },
    old: { ports: [{ name: 'a', port: 1, protocol: 'TCP' }] },
    want: [],
  },
  {
    name: 'a type error blocks the rules',
    given: { minReplicas: 'five' },
    want: [
      'spec.minReplicas: Invalid value: "string": spec.minReplicas in body must be of type integer: "string"',
      '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ],
  },
];

for (const c of cases)
  test(`validation rules: ${c.name}`, () => {
    const old = c.old ? gate(c.old) : undefined;
    const { errors } = admitObject(GATES, gate(c.given), undefined, { old });
    assert.deepEqual(messages(errors), c.want);
  });

test('validation rules: the fake client evaluates transition rules against the stored object', async () => {
  interface GateObject {
    apiVersion: 'fixtures.kopfgen.dev/v1';
    kind: 'Gate';
    metadata?: { name?: string; namespace?: string };
    spec?: { id?: string; minReplicas?: number; maxReplicas?: number };
  }
  const Gate = defineResource<GateObject>({
    group: 'fixtures.kopfgen.dev',
    version: 'v1',
    kind: 'Gate',
    plural: 'gates',
    scope: 'Namespaced',
    statusSubresource: true,
    printerColumns: [],
  });
  const client = fakeClient({ schemas: [GATES] });
  await client.create(Gate, {
    metadata: { name: 'g', namespace: 'default' },
    spec: { id: 'a', minReplicas: 1, maxReplicas: 3 },
  });
  await assert.rejects(
    client.patch(Gate, 'g', { spec: { id: 'b' } }, { namespace: 'default' }),
    (e: unknown) => e instanceof ApiError && e.status === 422 && /spec: Forbidden: id is immutable/.test(e.message),
  );
  await client.patch(Gate, 'g', { spec: { maxReplicas: 4 } }, { namespace: 'default' });
});

test('validation rules: a rule that cannot be compiled is an error naming it', () => {
  const data = structuredClone(GATES);
  const spec = data.versions.v1?.properties?.spec;
  assert.ok(spec);
  spec['x-kubernetes-validations'] = [{ rule: 'self.id.noSuchFunction()' }];
  assert.throws(
    () => admitObject(data, gate({})),
    (e: unknown) => e instanceof CelRuleError && e.rule === 'self.id.noSuchFunction()' && e.field === 'spec',
  );
});

const workflow = (spec: Record<string, unknown>) => ({
  apiVersion: 'fixtures.kopfgen.dev/v1',
  kind: 'Workflow',
  metadata: { name: 'p' },
  spec,
});

test('structural: minProperties and maxProperties', () => {
  assert.deepEqual(messages(admitObject(WORKFLOWS, workflow({ nodeSelector: { a: 'x' } })).errors), []);
  assert.deepEqual(messages(admitObject(WORKFLOWS, workflow({ nodeSelector: {} })).errors), [
    'spec.nodeSelector: Invalid value: 0: spec.nodeSelector in body should have at least 1 properties',
  ]);
  assert.deepEqual(
    messages(admitObject(WORKFLOWS, workflow({ nodeSelector: { a: '1', b: '2', c: '3', d: '4' } })).errors),
    ['spec.nodeSelector: Invalid value: 4: spec.nodeSelector in body should have at most 3 properties'],
  );
});

test('structural: a list under preserve-unknown-fields keeps its items unknown fields, prunes nothing known', () => {
  const { object, errors } = admitObject(
    WORKFLOWS,
    workflow({ stages: [{ name: 'build', replicas: 2, script: 'make', nested: { deep: true } }], extra: 1 }),
  );
  assert.deepEqual(errors, []);
  assert.deepEqual(object.spec, { stages: [{ name: 'build', replicas: 2, script: 'make', nested: { deep: true } }] });
});

test('structural: an integer beyond int64 is a number, refused where an integer is wanted', () => {
  // As JSON text holds it (kubevirt's 18446744073709551594): JSON.parse reads it as the nearest double.
  const stages = JSON.parse('[{"name":"a","replicas":18446744073709551594}]');
  const { errors } = admitObject(WORKFLOWS, workflow({ stages }));
  assert.deepEqual(messages(errors), [
    'spec.stages[0].replicas: Invalid value: "number": spec.stages[0].replicas in body must be of type integer: "number"',
  ]);
});
