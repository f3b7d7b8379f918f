/**
 * `admitObject`: what the API server does to a custom resource before storing it (prune, drop
 * non-nullable nulls, default, validate), given/want rows on one schema.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admitObject } from '../../../src/runtime/admission/schema-admission.js';
import { gizmoData } from '../../helpers/gizmos.js';

const data = gizmoData({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 1, maximum: 10 },
        mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
        name: { type: 'string', minLength: 2, maxLength: 4, pattern: '^[a-z]+$' },
        at: { type: 'string', format: 'date-time' },
        port: { 'x-kubernetes-int-or-string': true },
        note: { type: 'string', nullable: true },
        tags: { type: 'array', maxItems: 2, items: { type: 'string' } },
        env: { type: 'object', additionalProperties: { type: 'integer' } },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  },
});
const gizmo = (spec: unknown, name = 'g') => ({
  apiVersion: 'example.com/v1',
  kind: 'Gizmo',
  metadata: { name },
  spec,
});

const rows: { name: string; object: unknown; errors: string[]; spec?: unknown }[] = [
  { name: 'valid, defaulted', object: gizmo({ size: 2 }), errors: [], spec: { size: 2, mode: 'a' } },
  { name: 'unknown field pruned', object: gizmo({ size: 2, colour: 'red' }), errors: [], spec: { size: 2, mode: 'a' } },
  {
    name: 'preserved unknown fields kept',
    object: gizmo({ size: 2, extra: { x: 1 } }),
    errors: [],
    spec: { size: 2, mode: 'a', extra: { x: 1 } },
  },
  {
    name: 'non-nullable null dropped then defaulted',
    object: gizmo({ size: 2, mode: null }),
    errors: [],
    spec: { size: 2, mode: 'a' },
  },
  {
    name: 'nullable null kept',
    object: gizmo({ size: 2, note: null }),
    errors: [],
    spec: { size: 2, mode: 'a', note: null },
  },
  { name: 'required missing', object: gizmo({}), errors: ['spec.size'] },
  { name: 'wrong type', object: gizmo({ size: 'big' }), errors: ['spec.size'] },
  { name: 'integer with a fraction', object: gizmo({ size: 1.5 }), errors: ['spec.size'] },
  { name: 'below minimum', object: gizmo({ size: 0 }), errors: ['spec.size'] },
  { name: 'above maximum', object: gizmo({ size: 11 }), errors: ['spec.size'] },
  { name: 'not in enum', object: gizmo({ size: 1, mode: 'c' }), errors: ['spec.mode'] },
  { name: 'too short, no match', object: gizmo({ size: 1, name: '1' }), errors: ['spec.name', 'spec.name'] },
  { name: 'bad date-time', object: gizmo({ size: 1, at: 'yesterday' }), errors: ['spec.at'] },
  { name: 'int-or-string given a bool', object: gizmo({ size: 1, port: true }), errors: ['spec.port'] },
  { name: 'too many items', object: gizmo({ size: 1, tags: ['a', 'b', 'c'] }), errors: ['spec.tags'] },
  { name: 'map value of the wrong type', object: gizmo({ size: 1, env: { A: 'x' } }), errors: ['spec.env.A'] },
  { name: 'name not a DNS subdomain', object: gizmo({ size: 1 }, 'Big_Name'), errors: ['metadata.name'] },
  { name: 'wrong kind', object: { ...gizmo({ size: 1 }), kind: 'Other' }, errors: ['kind'] },
];

for (const row of rows) {
  test(`admitObject: ${row.name}`, () => {
    const { object, errors } = admitObject(data, row.object);
    assert.deepEqual(
      errors.map((e) => e.path),
      row.errors,
      JSON.stringify(errors),
    );
    if (row.spec !== undefined) assert.deepEqual(object.spec, row.spec);
  });
}
