/** The essence (what the user controls) and kopf-style diffs of it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildEssence, diff, reduceDiff } from '../../../src/runtime/reconcile/essence.js';
import { progressAnnotation } from '../../../src/runtime/reconcile/progress.js';

const object = (annotations: Record<string, string>) => ({
  apiVersion: 'example.com/v1', kind: 'MyResource',
  metadata: { name: 'a', namespace: 'default', uid: 'u1', resourceVersion: '7', generation: 1, annotations },
  spec: { image: 'nginx' },
  status: { myapp: { phase: 'Running' } },
});

describe('essence', () => {
  it('keeps spec, labels and foreign annotations; drops status, runtime metadata and our annotations', () => {
    const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';
    const body = object({ team: 'x', [progressAnnotation('myapp')]: '{}', [lastApplied]: '{}' });
    const ownerReferences = [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: 'o' }];
    const metadata = { ...body.metadata, labels: { app: 'a' }, ownerReferences };
    const want = { spec: { image: 'nginx' }, metadata: { labels: { app: 'a' }, annotations: { team: 'x' } } };
    assert.deepEqual(buildEssence({ ...body, metadata }), want);
  });
});

describe('diff (kopf-style)', () => {
  it('lists changed, added and removed leaves with their paths', () => {
    assert.deepEqual(diff({ spec: { a: 1, b: 2 } }, { spec: { a: 1, b: 3, c: 4 } }), [
      ['change', ['spec', 'b'], 2, 3],
      ['add', ['spec', 'c'], undefined, 4],
    ]);
    assert.deepEqual(diff({ spec: { a: [1] } }, { spec: {} }), [['remove', ['spec', 'a'], [1], undefined]]);
    assert.deepEqual(diff(undefined, { spec: { a: 1 } }), [['add', [], undefined, { spec: { a: 1 } }]]);
  });
  it('reduces to a field, also when the change is above it', () => {
    const items = diff({ spec: { image: 'a', replicas: 1 } }, { spec: { image: 'b', replicas: 1 } });
    assert.deepEqual(reduceDiff(items, ['spec', 'replicas']), []);
    assert.deepEqual(reduceDiff(items, ['spec', 'image']), [['change', [], 'a', 'b']]);
    assert.deepEqual(reduceDiff(diff(undefined, { spec: { replicas: 2 } }), ['spec', 'replicas']), [['add', [], undefined, 2]]);
  });
});
