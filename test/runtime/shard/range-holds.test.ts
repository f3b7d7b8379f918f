/**
 * The start gate per range: an object starts only while this replica holds its range's Lease; a range
 * being handed over starts nothing new while its running handlers may still write; a released range
 * refuses both; the member Lease's renew deadline refuses every range at once and ends the member's hold.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fnv1a64, rangeOf } from '../../../src/runtime/shard/ranges.js';
import { RangeHolds, type MemberHold } from '../../../src/runtime/shard/range-holds.js';
import { startGate, type RefusalReason } from '../../../src/runtime/start-gate.js';

/** A member Lease's hold: refused once `late` (the renew deadline passed), closed by `lapse`. */
function member() {
  const controller = new AbortController();
  const state = { late: false, lapsed: 0 };
  const hold: MemberHold = {
    fence: () => ({
      signal: controller.signal,
      refuse: () =>
        controller.signal.aborted || state.late ? 'no longer holds the member lease ns/op-m-me' : undefined,
      deadline: () => Infinity,
    }),
    lapse: () => {
      state.lapsed++;
      controller.abort(new Error('lapsed'));
    },
  };
  return { hold, state };
}

/** Some uid in each of the ranges asked for (K = 4). */
function uidsIn(ranges: number[]): string[] {
  return ranges.map((range) => {
    for (let i = 0; ; i++) if (rangeOf(`uid-${i}`, 4) === range) return `uid-${i}`;
  });
}

describe('RangeHolds and the start gate per range', () => {
  it('allows the ranges held, refuses the others; drains, then releases', async () => {
    const m = member();
    const holds = new RangeHolds(4, m.hold, (r) => `ns/op-r${r}`);
    const reasons: RefusalReason[] = [];
    const gate = startGate(
      (uid) => holds.holdOf(uid),
      (reason) => reasons.push(reason),
    );
    const [u0, u1, u2] = uidsIn([0, 1, 2]);
    const f0 = holds.open(0);
    holds.open(1);
    assert.deepEqual(holds.held(), [0, 1]);
    assert.equal(gate.refuse(u0), undefined);
    assert.equal(gate.refuse(u1), undefined);
    const other = gate.refuse(u2);
    assert.equal(other?.reason, 'not_held');
    assert.match(other?.message ?? '', /does not hold range 2 \(lease ns\/op-r2\)/);

    holds.drain(0);
    const draining = gate.refuse(u0);
    assert.equal(draining?.reason, 'range_handover');
    assert.equal(f0.refuse(), undefined, "the running handlers' writes still go out while the range drains");
    assert.equal(gate.refuse(u1), undefined, 'other ranges go on');

    holds.close(0, 'range 0 released');
    assert.equal(gate.refuse(u0)?.reason, 'not_held');
    assert.equal(f0.refuse(), 'range 0 released');
    assert.equal(f0.signal.aborted, true, 'what is in flight of it is aborted');
    assert.deepEqual(holds.held(), [1]);
    assert.deepEqual(reasons, ['not_held', 'range_handover', 'not_held']);
    assert.equal(m.state.lapsed, 0);
  });

  it("the member Lease's renew deadline refuses every range at once and ends the member's hold", async () => {
    const m = member();
    const holds = new RangeHolds(4, m.hold, (r) => `ns/op-r${r}`);
    const gate = startGate(
      (uid) => holds.holdOf(uid),
      () => undefined,
    );
    const fences = [holds.open(0), holds.open(3)];
    const [u0, u3] = uidsIn([0, 3]);
    m.state.late = true;
    assert.equal(gate.refuse(u0)?.reason, 'renew_deadline');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(m.state.lapsed, 1, 'the gate ended the member hold');
    assert.ok(
      fences.every((f) => f.signal.aborted),
      "every range's fence closed with it",
    );
    assert.equal(gate.refuse(u3)?.reason, 'not_held');
  });

  it("an object's range is its uid's hash range", () => {
    const uid = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
    assert.equal(rangeOf(uid, 4), Number(fnv1a64(uid) >> 62n));
  });
});
