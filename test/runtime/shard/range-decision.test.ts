/**
 * One range's Lease: given/want rows for every case the replica meets (kept, drained then released,
 * taken when free, released or its holder's member Lease stood still for a lease duration, waited for
 * otherwise, lost when rewritten), with the leader Lease's hardening: a Lease gone missing or edited is
 * held for a lease duration from when it was seen.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LeaseRecord } from '../../../src/runtime/leader/lease-record.js';
import { decideRange, type RangeStep, type RangeView } from '../../../src/runtime/shard/range-decision.js';

const timings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
const NOW = 1_000_000;
const held = (holder: string, transitions = 3): LeaseRecord => ({
  holderIdentity: holder,
  leaseDurationSeconds: 15,
  acquireTime: NOW - 60_000,
  renewTime: NOW - 60_000,
  leaseTransitions: transitions,
});
const released: LeaseRecord = {
  holderIdentity: '',
  leaseDurationSeconds: 1,
  acquireTime: 5,
  renewTime: 5,
  leaseTransitions: 4,
};

function view(over: Partial<RangeView> & { members?: Record<string, number> }): RangeView {
  const members = over.members ?? {};
  return {
    now: NOW,
    identity: 'me',
    timings,
    record: undefined,
    observedAt: NOW - 60_000,
    own: false,
    lastHolder: undefined,
    memberObservedAt: (identity) => members[identity],
    assigned: true,
    holding: false,
    drained: false,
    ...over,
  };
}

const take = (previous: string, transitions: number): RangeStep => ({
  kind: 'take',
  previous,
  record: {
    holderIdentity: 'me',
    leaseDurationSeconds: 15,
    acquireTime: NOW,
    renewTime: NOW,
    leaseTransitions: transitions,
  },
});

const cases: { name: string; given: RangeView; want: RangeStep }[] = [
  {
    name: 'ours and assigned to us: kept, nothing written',
    given: view({ record: held('me'), own: true, holding: true }),
    want: { kind: 'keep' },
  },
  {
    name: 'ours, assigned away, still running: drain first',
    given: view({ record: held('me'), own: true, holding: true, assigned: false }),
    want: { kind: 'drain' },
  },
  {
    name: 'ours, assigned away, drained: released (no holder, 1 s, transitions kept)',
    given: view({ record: held('me', 7), own: true, holding: true, assigned: false, drained: true }),
    want: {
      kind: 'release',
      record: { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: NOW, renewTime: NOW, leaseTransitions: 7 },
    },
  },
  {
    name: 'our record but no term of ours (the member hold lapsed since), assigned to us: a new term, a new write',
    given: view({ record: held('me', 2), own: true }),
    want: take('me', 3),
  },
  {
    name: 'our record but no term of ours, assigned away: released (nothing of it runs)',
    given: view({ record: held('me', 2), own: true, assigned: false }),
    want: {
      kind: 'release',
      record: { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: NOW, renewTime: NOW, leaseTransitions: 2 },
    },
  },
  {
    name: 'our term, but the Lease now names another: lost at once',
    given: view({ record: held('other'), holding: true }),
    want: { kind: 'lost', holder: 'other' },
  },
  {
    name: 'our term, but the Lease names us in a record we did not write: lost',
    given: view({ record: held('me'), own: false, holding: true }),
    want: { kind: 'lost', holder: 'me' },
  },
  {
    name: 'our term, the Lease deleted: lost',
    given: view({ record: undefined, lastHolder: 'me', holding: true }),
    want: { kind: 'lost', holder: '' },
  },
  {
    name: 'never created, assigned to us: taken (created)',
    given: view({}),
    want: take('', 0),
  },
  {
    name: 'released, assigned to us: taken at once',
    given: view({ record: released, observedAt: NOW - 10 }),
    want: take('', 5),
  },
  {
    name: 'released, not assigned to us: left for the one it is assigned to',
    given: view({ record: released, assigned: false }),
    want: { kind: 'wait', until: NOW + 2_000, holder: '' },
  },
  {
    name: 'held by a member whose Lease renews: waited for (not ours to take, whatever the assignment says)',
    given: view({ record: held('other'), members: { other: NOW - 1_000 } }),
    want: { kind: 'wait', until: NOW + 2_000, holder: 'other' },
  },
  {
    name: 'held by a member whose Lease stood still for a lease duration: taken over',
    given: view({ record: held('other', 3), members: { other: NOW - 15_000 } }),
    want: take('other', 4),
  },
  {
    name: "its holder's member Lease not seen yet: nothing is taken",
    given: view({ record: held('other') }),
    want: { kind: 'wait', until: NOW + 2_000, holder: 'other' },
  },
  {
    name: 'the range Lease itself changed 5 s ago (a takeover by its holder): a lease duration from then',
    given: view({ record: held('other'), observedAt: NOW - 5_000, members: { other: NOW - 60_000 } }),
    want: { kind: 'wait', until: NOW + 2_000, holder: 'other' },
  },
  {
    name: 'gone missing after a holder was seen: held by it for a lease duration from when seen missing',
    given: view({ record: undefined, lastHolder: 'other', observedAt: NOW - 3_000, members: { other: NOW - 60_000 } }),
    want: { kind: 'wait', until: NOW + 2_000, holder: 'other' },
  },
  {
    name: 'gone missing, a lease duration ago, its holder silent as long: created again',
    given: view({ record: undefined, lastHolder: 'other', observedAt: NOW - 15_000, members: { other: NOW - 20_000 } }),
    want: take('other', 0),
  },
  {
    name: 'the holder cleared by hand (not a release): held for a lease duration from when seen',
    given: view({ record: { ...held(''), leaseDurationSeconds: 15 }, observedAt: NOW - 1_000 }),
    want: { kind: 'wait', until: NOW + 2_000, holder: '' },
  },
  {
    name: 'a record naming us that we did not write: held like another until a lease duration passed',
    given: view({ record: held('me'), own: false, observedAt: NOW - 14_000 }),
    want: { kind: 'wait', until: NOW + 1_000, holder: 'me' },
  },
];

describe('decideRange', () => {
  for (const c of cases) it(c.name, () => assert.deepEqual(decideRange(c.given), c.want));
});
