/** The essence (what the user controls) and kopf-style diffs of it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import {
  buildEssence,
  decodeEssence,
  diff,
  encodeEssence,
  ESSENCE_BUDGET,
  reduceDiff,
} from '../../../src/runtime/reconcile/essence.js';
import { resolveMarks, type Marks } from '../../../src/runtime/reconcile/marks.js';
import { progressAnnotation } from '../../../src/runtime/reconcile/progress.js';

const object = (annotations: Record<string, string>) => ({
  apiVersion: 'example.com/v1',
  kind: 'MyResource',
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
  it("drops every operator's marks: ours under a configured prefix, another's last-handled key and progress records", () => {
    const marks = resolveMarks({ prefix: 'b.example.com' }) as Marks;
    const record = JSON.stringify({ started: '2026-01-01T00:00:00Z', purpose: 'create', retries: 1 });
    const body = object({
      'b.example.com/myapp': '{}',
      'b.example.com/last-handled-configuration': '{}', // ours
      'kopfgen.dev/last-handled-configuration': '{"spec":{}}',
      'kopfgen.dev/other': record, // another kopfgen operator's
      'kopf.zalando.org/last-handled-configuration': '{}',
      'kopf.zalando.org/fn': record, // a kopf operator's
      'kopfgen.dev/user-note': 'kept: not a record',
      json: '{"started":"x"}',
    });
    const want = {
      spec: { image: 'nginx' },
      metadata: { annotations: { 'kopfgen.dev/user-note': 'kept: not a record', json: '{"started":"x"}' } },
    };
    assert.deepEqual(buildEssence(body, marks), want);
  });
});

describe('encodeEssence: within the annotation budget', () => {
  const items = (n: number, value: (i: number) => string) =>
    Object.fromEntries(
      Array.from({ length: n }, (_, i) => [`item-${i}`, { name: `item-${i}`, image: value(i), replicas: 3 }]),
    );
  it('a small essence is plain JSON, as before', () => {
    const essence = { spec: { image: 'nginx' } };
    assert.equal(encodeEssence(essence), '{"spec":{"image":"nginx"}}\n');
    assert.deepEqual(decodeEssence(encodeEssence(essence)), essence);
  });
  it('a 200 KB essence that compresses is kept whole, gzip + base64: diff and old stay exact', () => {
    const essence = { spec: { items: items(2500, (i) => `registry.example.com/team/app-${i % 7}:1.2.${i % 13}`) } };
    assert.ok(JSON.stringify(essence).length > 200_000);
    const encoded = encodeEssence(essence);
    assert.ok(encoded.startsWith('gzip+base64:') && encoded.length <= ESSENCE_BUDGET, `${encoded.length}`);
    assert.deepEqual(decodeEssence(encoded), essence);
    const changed = structuredClone(essence);
    changed.spec.items['item-7'].replicas = 4;
    assert.deepEqual(diff(decodeEssence(encoded), changed), [
      ['change', ['spec', 'items', 'item-7', 'replicas'], 3, 4],
    ]);
  });
  it('a 200 KB essence that does not compress keeps the small values and digests of the large ones', () => {
    const essence = {
      spec: {
        replicas: 2,
        blob: randomBytes(150_000).toString('base64'),
        items: items(400, () => randomBytes(60).toString('hex')),
      },
    };
    const encoded = encodeEssence(essence);
    assert.ok(encoded.startsWith('digested+json:') && encoded.length <= ESSENCE_BUDGET, `${encoded.length}`);
    const old = decodeEssence(encoded);
    assert.deepEqual(diff(old, essence), [], 'unchanged: no diff through the digests');
    const scaled = { spec: { ...essence.spec, replicas: 3 } };
    assert.deepEqual(diff(old, scaled), [['change', ['spec', 'replicas'], 2, 3]], 'a kept value: exact');
    const blob = randomBytes(150_000).toString('base64');
    assert.deepEqual(
      diff(old, { spec: { ...essence.spec, blob } }),
      [['change', ['spec', 'blob'], undefined, blob]],
      'a digested value: the path and the new value',
    );
  });
  it('a user\'s own {"$digest": …} in a plain essence is a value like any other', () => {
    const essence = { spec: { note: { $digest: 'sha256:0' } } };
    assert.deepEqual(diff(decodeEssence(encodeEssence(essence)), essence), []);
  });
  it('an unreadable annotation reads as never handled', () => {
    assert.equal(decodeEssence('gzip+base64:not-gzip'), undefined);
    assert.equal(decodeEssence('{broken'), undefined);
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
    assert.deepEqual(reduceDiff(diff(undefined, { spec: { replicas: 2 } }), ['spec', 'replicas']), [
      ['add', [], undefined, 2],
    ]);
  });
});
