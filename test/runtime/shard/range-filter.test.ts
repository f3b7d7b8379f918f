/**
 * Filtering a watch by the ranges held: objects of other ranges never reach the store; children follow
 * their controller owner's range; the fallback (a server that does not honour shardSelector) is said
 * once; a server that echoes the selector is trusted and nothing is said.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubernetesObject } from '../../../src/runtime/api/kube-types.js';
import { createLogger } from '../../../src/runtime/effects/log.js';
import { controllerKey, ownKey, RangeFilter } from '../../../src/runtime/shard/range-filter.js';
import { rangeOf, shardSelector } from '../../../src/runtime/shard/ranges.js';
import type { WatchConsumer } from '../../../src/runtime/watcher.js';

const K = 4;
const uidIn = (range: number, skip = 0): string => {
  let found = 0;
  for (let i = 0; ; i++) if (rangeOf(`uid-${i}`, K) === range && found++ === skip) return `uid-${i}`;
};
const object = (uid: string, owner?: string): KubernetesObject => ({
  apiVersion: 'v1',
  kind: 'X',
  metadata: {
    name: uid,
    uid,
    ownerReferences: owner ? [{ apiVersion: 'v1', kind: 'P', name: 'p', uid: owner, controller: true }] : undefined,
  },
});

function recorder() {
  const seen: string[] = [];
  const consumer: WatchConsumer = {
    upsert: (body) => void seen.push(`upsert ${body.metadata?.name}`),
    delete: (body) => void seen.push(`delete ${body.metadata?.name}`),
    listed: (uids) => void seen.push(`listed ${[...uids].sort().join(',')}`),
  };
  return { seen, consumer };
}

function logger() {
  const lines: string[] = [];
  return { lines, logger: createLogger({ level: 'debug', write: (line) => void lines.push(line) }) };
}

describe('RangeFilter', () => {
  it("passes on only the held ranges' objects, their deletions and their uids in a relist", () => {
    const r = recorder();
    const held = new Set([1, 3]);
    const filter = new RangeFilter(r.consumer, K, () => held, ownKey, logger().logger, 'xs');
    const [a, b, c] = [uidIn(1), uidIn(2), uidIn(3)];
    filter.upsert(object(a));
    filter.upsert(object(b));
    filter.delete(object(c));
    filter.delete(object(b));
    filter.listed(new Set([a, b, c]));
    assert.deepEqual(r.seen, [`upsert ${a}`, `delete ${c}`, `listed ${[a, c].sort().join(',')}`]);
  });

  it("children follow their controller owner's range; a child with no controller is nobody's", () => {
    const r = recorder();
    const filter = new RangeFilter(r.consumer, K, () => new Set([0]), controllerKey, logger().logger, 'pods');
    filter.upsert(object('child-1', uidIn(0)));
    filter.upsert(object('child-2', uidIn(2)));
    filter.upsert(object('orphan'));
    filter.listed(new Set(['child-1', 'child-2']));
    assert.deepEqual(r.seen, ['upsert child-1', 'listed child-1,child-2']);
  });

  it('the fallback is said once; a server that echoes the selector is trusted silently', () => {
    const log = logger();
    const filter = new RangeFilter(recorder().consumer, K, () => new Set([0]), ownKey, log.logger, 'xs');
    const asked = shardSelector([0], K);
    filter.listMetadata({ resourceVersion: '1', shardInfo: { selector: asked } }, asked);
    assert.deepEqual(log.lines, []);
    filter.listMetadata({ resourceVersion: '2' }, asked);
    filter.listMetadata({ resourceVersion: '3' }, asked);
    assert.equal(log.lines.length, 1);
    assert.match(log.lines[0], /does not filter xs by shardSelector .*filtered by its hash range on arrival/);
    filter.listMetadata({ resourceVersion: '4' }, undefined);
    assert.equal(log.lines.length, 1, 'no selector asked (every range held): nothing to say');
  });
});
