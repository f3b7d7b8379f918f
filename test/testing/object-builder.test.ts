/** `objectBuilder`: the smallest valid object of a schema, defaults filled in, the override merged. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { admitObject, objectBuilder } from '../../src/testing/index.js';
import { gizmoData, gizmoDescriptor } from '../helpers/gizmos.js';

interface Gizmo {
  apiVersion: 'example.com/v1';
  kind: 'Gizmo';
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec: { size: number; mode?: string; name: string; tags?: string[]; limits?: { cpu?: number } };
}
const data = gizmoData({
  type: 'object',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      required: ['size', 'name', 'tags'],
      properties: {
        size: { type: 'integer', minimum: 3 },
        mode: { type: 'string', default: 'fast' },
        name: { type: 'string', minLength: 2 },
        tags: { type: 'array', minItems: 1, items: { type: 'string', enum: ['x', 'y'] } },
        limits: { type: 'object', properties: { cpu: { type: 'number', default: 1 } }, default: {} },
      },
    },
  },
});
const gizmos = gizmoDescriptor<Gizmo>(false);
const gizmo = objectBuilder(gizmos, data);

test('the minimal object: required fields at their least, defaults filled in, valid', () => {
  const built = gizmo();
  assert.deepEqual(built, {
    apiVersion: 'example.com/v1',
    kind: 'Gizmo',
    metadata: { name: 'gizmo', namespace: 'default' },
    spec: { size: 3, name: 'aa', tags: ['x'], mode: 'fast', limits: { cpu: 1 } },
  });
  assert.deepEqual(admitObject(data, built).errors, []);
});

test('the override is merged (lists whole) and defaulted again', () => {
  const built = gizmo({
    metadata: { name: 'big', labels: { a: 'b' } },
    spec: { size: 9, tags: ['y', 'x'], limits: {} },
  });
  assert.deepEqual(built.metadata, { name: 'big', namespace: 'default', labels: { a: 'b' } });
  assert.deepEqual(built.spec, { size: 9, name: 'aa', tags: ['y', 'x'], mode: 'fast', limits: { cpu: 1 } });
});
