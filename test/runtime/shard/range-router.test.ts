/**
 * The replica's watch routed to the range terms: each object to its range's term, a child's news to its
 * owner's range, nothing kept for a range without a term; each term hears `listed` with its own range's
 * uids; attaching terms asks for one relist, however many are attached at once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResourceDescriptor } from '../../../src/runtime/api/define.js';
import type { KubernetesObject } from '../../../src/runtime/api/kube-types.js';
import { RangeRouter, RELIST_AFTER_MS, type RangeConsumer } from '../../../src/runtime/shard/range-router.js';
import { rangeOf } from '../../../src/runtime/shard/ranges.js';
import { sleep } from '../../helpers/e2e-objects.js';

const K = 4;
const uidIn = (range: number, skip = 0): string => {
  let found = 0;
  for (let i = 0; ; i++) if (rangeOf(`uid-${i}`, K) === range && found++ === skip) return `uid-${i}`;
};
const object = (uid: string): KubernetesObject => ({ apiVersion: 'v1', kind: 'X', metadata: { name: uid, uid } });
const resource = { group: 'example.com', version: 'v1', plural: 'xs', kind: 'X' } as ResourceDescriptor;

function term(seen: string[], range: number): RangeConsumer {
  return {
    upsert: (body) => void seen.push(`${range} upsert ${body.metadata?.name}`),
    delete: (body) => void seen.push(`${range} delete ${body.metadata?.name}`),
    listed: (uids) => void seen.push(`${range} listed ${[...uids].sort().join(',')}`),
    childChanged: (owner) => void seen.push(`${range} child of ${owner}`),
  };
}

describe('RangeRouter', () => {
  it('routes objects, deletions, lists and children by range; a range without a term keeps nothing', () => {
    const seen: string[] = [];
    const router = new RangeRouter(resource, K);
    const zero = term(seen, 0);
    router.attach(0, zero);
    router.attach(2, term(seen, 2));
    router.close();
    const [a, b, c] = [uidIn(0), uidIn(2), uidIn(1)];
    const news = { kind: 'v1/Y', uid: 'child', name: 'child', event: 'ADDED', object: undefined } as const;
    router.upsert(object(a), 'ADDED');
    router.upsert(object(b));
    router.upsert(object(c));
    router.delete(object(b));
    router.childChanged(a, news);
    router.childChanged(c, news);
    router.listed(new Set([a, c]));
    assert.deepEqual(seen, [
      `0 upsert ${a}`,
      `2 upsert ${b}`,
      `2 delete ${b}`,
      `0 child of ${a}`,
      `0 listed ${a}`,
      '2 listed ',
    ]);
    assert.deepEqual([...router.held], [0, 2]);
    router.detach(2, zero); // not range 2's term: nothing changes
    assert.deepEqual([...router.held], [0, 2]);
    router.detach(0, zero);
    router.upsert(object(a));
    assert.deepEqual([...router.held], [2]);
    assert.equal(seen.length, 6, 'a range detached keeps nothing');
  });

  it('terms attached together ask for one relist', async () => {
    const router = new RangeRouter(resource, K);
    let relists = 0;
    router.restart = () => relists++;
    for (let range = 0; range < K; range++) router.attach(range, term([], range));
    await sleep(RELIST_AFTER_MS + 30);
    assert.equal(relists, 1);
    router.attach(1, term([], 1));
    await sleep(RELIST_AFTER_MS + 30);
    assert.equal(relists, 2);
  });
});
