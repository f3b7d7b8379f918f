/**
 * What a replica makes of successive lists of the shard Leases: observed times move only when a record
 * changes, a Lease gone missing is seen missing from then with its last holder kept, live members and
 * range holders; the Lease names are DNS labels.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatMicroTime, type Lease } from '../../../src/runtime/leader/lease-record.js';
import { LeaseSightings, memberLeaseName, rangeLeaseName } from '../../../src/runtime/shard/lease-sightings.js';

const lease = (name: string, holder: string, renew: number, duration = 15): Lease => ({
  metadata: { name, resourceVersion: String(renew) },
  spec: {
    holderIdentity: holder,
    leaseDurationSeconds: duration,
    acquireTime: formatMicroTime(1000),
    renewTime: formatMicroTime(renew),
    leaseTransitions: 0,
  },
});
const released = (name: string): Lease => ({
  metadata: { name },
  spec: {
    holderIdentity: '',
    leaseDurationSeconds: 1,
    acquireTime: formatMicroTime(5000),
    renewTime: formatMicroTime(5000),
    leaseTransitions: 1,
  },
});

describe('shard Lease names', () => {
  it('range Leases sort by number; member Leases are DNS labels with a hash of the identity', () => {
    assert.equal(rangeLeaseName('op', 7), 'op-r07');
    assert.equal(rangeLeaseName('op', 31), 'op-r31');
    const name = memberLeaseName('op', 'Pod-1_ab3x');
    assert.match(name, /^op-m-pod-1-ab3x-[0-9a-f]{8}$/);
    assert.notEqual(memberLeaseName('op', 'pod-1_ab3x'), name, 'identities differing in case stay apart');
  });
});

describe('LeaseSightings', () => {
  const a = memberLeaseName('op', 'a_1');
  const b = memberLeaseName('op', 'b_2');

  it('observed times move only when a record changes; live members; range holders', () => {
    const s = new LeaseSightings('op');
    s.look(
      [lease(a, 'a_1', 1000), lease(b, 'b_2', 1000), lease('op-r00', 'a_1', 1000), lease('other-r00', 'x', 1)],
      10_000,
    );
    s.look([lease(a, 'a_1', 3000), lease(b, 'b_2', 1000), lease('op-r00', 'a_1', 1000), released('op-r01')], 12_000);
    assert.equal(s.memberObservedAt('a_1'), 12_000, 'a renewed');
    assert.equal(s.memberObservedAt('b_2'), 10_000, 'b did not: still seen at the first look');
    assert.deepEqual(s.liveMembers(24_000, 15_000), ['a_1', 'b_2']);
    assert.deepEqual(s.liveMembers(25_000, 15_000), ['a_1'], 'b stood still for a lease duration');
    assert.deepEqual(s.holders(3), ['a_1', undefined, undefined], 'released and never-created ranges have none');
    assert.equal(s.get('other-r00'), undefined, "another operator's Leases are ignored");
  });

  it('a Lease gone missing is seen missing from then, its last holder kept; a member never seen counts from the first look', () => {
    const s = new LeaseSightings('op');
    assert.equal(s.memberObservedAt('c_3'), undefined, 'no look yet');
    s.look([lease('op-r02', 'a_1', 1000)], 10_000);
    s.look([], 20_000);
    const gone = s.get('op-r02');
    assert.deepEqual([gone?.record, gone?.observedAt, gone?.lastHolder], [undefined, 20_000, 'a_1']);
    s.look([], 30_000);
    assert.equal(s.get('op-r02')?.observedAt, 20_000, 'still missing: unchanged');
    assert.equal(s.memberObservedAt('c_3'), 10_000);
  });

  it('a member Lease whose duration was edited down still counts as live for our lease duration', () => {
    const s = new LeaseSightings('op');
    s.look([lease(a, 'a_1', 1000, 1)], 10_000);
    assert.deepEqual(s.liveMembers(20_000, 15_000), ['a_1']);
  });
});
