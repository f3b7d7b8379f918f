/**
 * Replicas sharing 8 ranges through Leases (in memory, real timers, short timings: lease 1 s, renew
 * deadline 600 ms, retry 200 ms): three members spread the ranges evenly; a graceful stop drains each of
 * its ranges before releasing it and the others take them over; a member that joins gets its share as
 * the others drain and release it; a member cut off from the API server stops starting work in its ranges
 * at its renew deadline and the others take them over after a lease duration. Sampled every 20 ms throughout: no range is ever writable by two members at once (so no two
 * start its work at once either: a start is refused wherever a write would be).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ShardMember } from '../../../src/runtime/shard/shard-member.js';
import { rangeOf } from '../../../src/runtime/shard/ranges.js';
import { startGate } from '../../../src/runtime/start-gate.js';
import { FakeLeases } from '../../helpers/fake-leases.js';
import { eventually } from '../../helpers/envtest.js';
import { captureLogger } from '../../helpers/e2e-objects.js';
import { outsideUnitScope } from '../../helpers/test-scope.js';

const K = 8;
const timings = { leaseDurationMs: 1_000, renewDeadlineMs: 600, retryPeriodMs: 200 };
const uids = Array.from({ length: K }, (_, range) => {
  for (let i = 0; ; i++) if (rangeOf(`uid-${i}`, K) === range) return `uid-${i}`;
});

function member(api: FakeLeases, identity: string) {
  const cut = { off: false };
  const events: string[] = [];
  const m = new ShardMember({
    client: api.clientFor(cut),
    id: 'op',
    namespace: 'ns',
    identity,
    count: K,
    timings,
    logger: captureLogger(false),
    callbacks: {
      onRangeStarted: (range) => void events.push(`started ${range}`),
      onRangeDraining: async (range) => {
        events.push(`draining ${range}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        events.push(`drained ${range}`);
      },
      onRangeStopped: (range) => void events.push(`stopped ${range}`),
    },
  });
  const gate = startGate(
    (uid) => m.holds.holdOf(uid),
    () => undefined,
  );
  const stop = new AbortController();
  const done = m.run(stop.signal);
  /** The ranges this member may start work in now. */
  const open = () => uids.flatMap((uid, range) => (gate.refuse(uid) === undefined ? [range] : []));
  /** The ranges whose writes this member may still send (a draining range's included). */
  const writable = () =>
    uids.flatMap((uid, range) => (m.holds.holdOf(uid).fence.refuse() === undefined ? [range] : []));
  return { identity, m, cut, events, stop, done, open, writable };
}

describe('ShardMember', { skip: outsideUnitScope('real timers (about 8 s of lease terms)') }, () => {
  it('spreads the ranges, hands them over on a stop (drained first), a join and a member cut off; never two at once', async () => {
    const api = new FakeLeases();
    const members = [member(api, 'a_1'), member(api, 'b_2'), member(api, 'c_3')];
    const overlaps: string[] = [];
    const sampler = setInterval(() => {
      const owners = new Map<number, string[]>();
      for (const m of members)
        for (const range of m.writable()) owners.set(range, [...(owners.get(range) ?? []), m.identity]);
      for (const [range, who] of owners) if (who.length > 1) overlaps.push(`range ${range}: ${who.join(', ')}`);
    }, 20);
    const [a, b, c] = members;
    try {
      const spread = (list: typeof members) => list.map((m) => m.open().length).sort((x, y) => x - y);
      await eventually(
        'three members spread 8 ranges',
        async () => (JSON.stringify(spread(members)) === '[2,3,3]' ? true : undefined),
        5_000,
      );

      // A graceful stop: each range drained, then released, then taken by the others.
      const held = c.open();
      c.stop.abort();
      await c.done;
      for (const range of held) {
        const order = c.events.filter((e) => e.endsWith(` ${range}`)).slice(-3);
        assert.deepEqual(order, [`draining ${range}`, `drained ${range}`, `stopped ${range}`], `range ${range}`);
      }
      await eventually(
        'a and b share the 8 ranges',
        async () => (JSON.stringify(spread([a, b])) === '[4,4]' ? true : undefined),
        5_000,
      );

      // d joins: a and b drain and release what the assignment gives d; d takes each once released.
      const d = member(api, 'd_4');
      members.push(d);
      await eventually(
        'a, b and d spread 8 ranges',
        async () => (JSON.stringify(spread([a, b, d])) === '[2,3,3]' ? true : undefined),
        5_000,
      );
      const handedToD = d.events.filter((e) => e.startsWith('started')).length;
      assert.ok(handedToD >= 2, `d took ${handedToD} ranges`);

      // b is cut off from the API server: it starts nothing once its renew deadline passes; a and d take over.
      b.cut.off = true;
      // Every renewal it got in was sent before the cut: its renew deadline has passed 600 ms after it.
      await new Promise((resolve) => setTimeout(resolve, timings.renewDeadlineMs + 20));
      assert.deepEqual(b.open(), [], 'b starts nothing past its renew deadline');
      assert.deepEqual(b.writable(), [], 'nor writes');
      await eventually(
        'a and d to share every range',
        async () => (JSON.stringify(spread([a, d])) === '[4,4]' ? true : undefined),
        5_000,
      );
      assert.deepEqual(overlaps, [], 'a range writable by two members at once');
    } finally {
      clearInterval(sampler);
      for (const m of members) m.stop.abort();
      b.cut.off = false;
      await Promise.all(members.map((m) => m.done));
    }
  });
});
