/** The essence (what the user controls) and kopf-style diffs of it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import {
  buildEssence,
  conceal,
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

describe('conceal: sensitive values as keyed digests', () => {
  const key = Buffer.alloc(32, 7);
  const secret = {
    data: { token: 'U1VQRVJTRUNSRVQ=', pin: 'MTIzNA==' },
    type: 'Opaque',
    metadata: { labels: { a: 'b' } },
  };
  const secrecy = { paths: ['data', 'stringData'], key };
  it('no value is stored, the keys are; other fields are as they were', () => {
    const sealed = conceal(secret, secrecy, 'u1');
    const encoded = encodeEssence(sealed);
    for (const value of Object.values(secret.data)) assert.ok(!encoded.includes(value), encoded);
    assert.deepEqual(Object.keys(sealed.data as object), ['token', 'pin']);
    assert.match(JSON.stringify(sealed.data), /^\{"token":\{"\$digest":"hmac-sha256:[0-9a-f]{32}"\},"pin":/);
    assert.deepEqual([sealed.type, sealed.metadata], [secret.type, secret.metadata]);
    assert.equal(secret.data.token, 'U1VQRVJTRUNSRVQ=', 'the input is not changed');
  });
  it('change detection works through the digests, and diff names the key that changed', () => {
    const old = decodeEssence(encodeEssence(conceal(secret, secrecy, 'u1')));
    assert.deepEqual(diff(old, conceal(structuredClone(secret), secrecy, 'u1')), []);
    const changed = { ...secret, data: { ...secret.data, pin: 'NDMyMQ==' } };
    const items = diff(old, conceal(changed, secrecy, 'u1'));
    assert.deepEqual(
      items.map(([op, path]) => [op, path]),
      [['change', ['data', 'pin']]],
    );
    assert.ok(!JSON.stringify(items).includes('NDMyMQ=='), 'nor is the new value in the diff');
    const added = conceal({ ...secret, stringData: { extra: 'x' } }, secrecy, 'u1');
    assert.deepEqual(
      diff(old, added).map(([op, path]) => [op, path]),
      [['add', ['stringData']]],
    );
  });
  it('a digest depends on the key, the object and the path: without the key no guess can be checked', () => {
    const digestOf = (k: Buffer, uid: string, data: Record<string, string>) =>
      JSON.stringify(conceal({ data }, { paths: ['data'], key: k }, uid));
    const base = digestOf(key, 'u1', { a: 'MTIzNA==' });
    assert.notEqual(digestOf(Buffer.alloc(32, 8), 'u1', { a: 'MTIzNA==' }), base, 'another key');
    assert.notEqual(digestOf(key, 'u2', { a: 'MTIzNA==' }), base, 'another object');
    const two = conceal({ data: { a: 'MTIzNA==', b: 'MTIzNA==' } }, { paths: ['data'], key }, 'u1');
    assert.notDeepEqual(
      (two.data as Record<string, unknown>).a,
      (two.data as Record<string, unknown>).b,
      'another key of the map',
    );
  });
  it('a path that is a leaf, a path not there, no paths: as expected', () => {
    const sealed = conceal(
      { spec: { password: 'hunter2', user: 'me' } },
      { paths: ['spec.password', 'spec.none'], key },
      'u1',
    );
    assert.equal((sealed.spec as Record<string, unknown>).user, 'me');
    assert.ok(!JSON.stringify(sealed).includes('hunter2'));
    assert.ok(!('none' in (sealed.spec as object)));
    const plain = { spec: { a: 1 } };
    assert.equal(conceal(plain, { paths: [], key }, 'u1'), plain);
  });
});
