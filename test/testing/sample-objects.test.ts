/**
 * Objects sampled from a schema (kopfgen/testing): deterministic per seed, valid for the schema
 * (checked against the schema's own rules here), varied across seeds; the round trip names the
 * first differing path.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { firstDifference, sampleObject, type JsonSchema } from '../../src/testing/index.js';
import { gizmoData } from '../helpers/gizmos.js';

const spec: JsonSchema = {
  type: 'object',
  required: ['size', 'mode'],
  properties: {
    size: { type: 'integer', minimum: 2, maximum: 5 },
    ratio: { type: 'number', minimum: 0, maximum: 1 },
    mode: { type: 'string', enum: ['a', 'b'] },
    name: { type: 'string', minLength: 3, maxLength: 4 },
    at: { type: 'string', format: 'date-time' },
    tags: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } },
    env: { type: 'object', additionalProperties: { type: 'integer', minimum: 0, maximum: 0 } },
    port: { 'x-kubernetes-int-or-string': true },
    note: { type: 'string', nullable: true },
  },
};
const data = gizmoData({ type: 'object', required: ['spec'], properties: { spec } });

/** The schema rules the sampler promises, checked independently of it. */
function valid(value: unknown, s: JsonSchema): boolean {
  if (value === null) return s.nullable === true;
  if (s.enum) return s.enum.includes(value);
  if (s['x-kubernetes-int-or-string']) return typeof value === 'string' || Number.isInteger(value);
  switch (s.type) {
    case 'integer':
    case 'number':
      return (
        typeof value === 'number' &&
        (s.type === 'number' || Number.isInteger(value)) &&
        value >= (s.minimum ?? -Infinity) &&
        value <= (s.maximum ?? Infinity)
      );
    case 'string':
      return (
        typeof value === 'string' &&
        (s.format === 'date-time' ? !Number.isNaN(Date.parse(value)) : true) &&
        value.length >= (s.minLength ?? 0) &&
        value.length <= (s.maxLength ?? Infinity)
      );
    case 'array':
      return (
        Array.isArray(value) &&
        value.length >= (s.minItems ?? 0) &&
        value.length <= (s.maxItems ?? Infinity) &&
        value.every((v) => !s.items || valid(v, s.items))
      );
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return false;
      const o = value as Record<string, unknown>;
      if (!(s.required ?? []).every((k) => k in o)) return false;
      return Object.entries(o).every(([k, v]) => {
        const child = s.properties?.[k] ?? (s.additionalProperties === true ? {} : s.additionalProperties);
        return child !== undefined && (Object.keys(child).length === 0 || valid(v, child));
      });
    }
  }
  return true;
}

it('valid for the schema, deterministic per seed, varied across seeds', () => {
  const objects = Array.from({ length: 200 }, (_, seed) => sampleObject(data, 'v1', seed));
  for (const o of objects) assert.ok(valid(o.spec, spec), JSON.stringify(o.spec));
  assert.deepEqual(sampleObject(JSON.stringify(data), 'v1', 7), objects[7]);
  assert.deepEqual(objects[3].metadata, {
    name: 'sample-3',
    namespace: 'default',
    uid: '00000000-0000-4000-8000-000000000003',
  });
  assert.equal(objects[3].apiVersion, 'example.com/v1');
  const present = (key: string) => objects.filter((o) => key in (o.spec as object)).length;
  for (const key of ['ratio', 'name', 'tags', 'env', 'port', 'note'])
    assert.ok(present(key) > 20 && present(key) < 180, key);
  assert.ok(objects.some((o) => (o.spec as Record<string, unknown>).note === null));
  assert.throws(() => sampleObject(data, 'v9', 1), /no served version v9/);
  assert.throws(() => sampleObject('{"a":1}', 'v1', 1), /not a kopfgen schema data text/);
});

it('firstDifference names the first path that differs', () => {
  assert.equal(firstDifference({ a: { b: [1, 2] } }, { a: { b: [1, 2] } }), undefined);
  assert.equal(firstDifference({ a: { b: [1, 2] } }, { a: { b: [1, 3] } }), 'a.b[1]');
  assert.equal(firstDifference({ a: 1 }, { a: 1, c: 2 }), 'c');
});
