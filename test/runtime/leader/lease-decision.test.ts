import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decideLease,
  releaseRecord,
  timingProblems,
  type LeaderTimings,
  type LeaseStep,
} from '../../../src/runtime/leader/lease-decision.js';
import type { LeaseRecord } from '../../../src/runtime/leader/lease-record.js';

const timings: LeaderTimings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
const me = 'pod-a_1';
const T = 1_000_000; // local clock, ms

function held(holder: string, renewTime: number, extra: Partial<LeaseRecord> = {}): LeaseRecord {
  return {
    holderIdentity: holder,
    leaseDurationSeconds: 15,
    acquireTime: 500_000,
    renewTime,
    leaseTransitions: 3,
    ...extra,
  };
}

/** What we write: our identity, our duration, renewed now. */
function mine(extra: Pick<LeaseRecord, 'acquireTime' | 'leaseTransitions'>): LeaseRecord {
  return { holderIdentity: me, leaseDurationSeconds: 15, renewTime: T, ...extra };
}

interface Case {
  name: string;
  now: number;
  record: LeaseRecord | undefined;
  observedAt: number;
  /** The record is one we wrote (default: true). */
  own?: boolean;
  /** The holder seen before this record (default: none). */
  lastHolder?: string;
  want: LeaseStep;
}

const cases: Case[] = [
  {
    name: 'no lease: create it, holding it, transitions 0',
    now: T,
    record: undefined,
    observedAt: T,
    want: { kind: 'create', record: mine({ acquireTime: T, leaseTransitions: 0 }) },
  },
  {
    name: 'another holder, seen 1 s ago: wait one retry period',
    now: T,
    record: held('pod-b_2', T - 1_000),
    observedAt: T - 1_000,
    want: { kind: 'wait', until: T + 2_000, holder: 'pod-b_2' },
  },
  {
    name: 'another holder, expiring within the retry period: look again exactly at expiry',
    now: T,
    record: held('pod-b_2', T - 14_000),
    observedAt: T - 14_000,
    want: { kind: 'wait', until: T + 1_000, holder: 'pod-b_2' },
  },
  {
    name: 'expiry is judged by when WE saw the record change, not by the renewTime the holder wrote',
    // the holder's clock is 1 h behind: by its renewTime the lease expired long ago, but we saw it 5 s ago
    now: T,
    record: held('pod-b_2', T - 3_600_000),
    observedAt: T - 5_000,
    want: { kind: 'wait', until: T + 2_000, holder: 'pod-b_2' },
  },
  {
    name: 'a holder clock ahead does not keep the lease alive either',
    now: T,
    record: held('pod-b_2', T + 3_600_000),
    observedAt: T - 15_000,
    want: {
      kind: 'takeOver',
      previous: 'pod-b_2',
      record: mine({ acquireTime: T, leaseTransitions: 4 }),
    },
  },
  {
    name: 'another holder, unchanged for exactly the lease duration: take over, transitions + 1',
    now: T,
    record: held('pod-b_2', T - 15_000),
    observedAt: T - 15_000,
    want: {
      kind: 'takeOver',
      previous: 'pod-b_2',
      record: mine({ acquireTime: T, leaseTransitions: 4 }),
    },
  },
  {
    name: 'expiry uses the longer of the duration the holder wrote (20 s) and ours (15 s)',
    now: T,
    record: held('pod-b_2', T - 16_000, { leaseDurationSeconds: 20 }),
    observedAt: T - 16_000,
    want: { kind: 'wait', until: T + 2_000, holder: 'pod-b_2' },
  },
  {
    name: 'a duration edited down to 1 s shortens nothing: our lease duration still applies',
    now: T,
    record: held('pod-b_2', T - 6_000, { leaseDurationSeconds: 1 }),
    observedAt: T - 6_000,
    want: { kind: 'wait', until: T + 2_000, holder: 'pod-b_2' },
  },
  {
    name: 'a holder cleared by hand (not a release: 15 s, acquired long before renewed): held for a lease duration',
    now: T,
    record: held('', T - 1_000),
    observedAt: T - 1_000,
    lastHolder: 'pod-b_2',
    want: { kind: 'wait', until: T + 2_000, holder: '' },
  },
  {
    name: 'a holder cleared by hand, unchanged for a lease duration: take over',
    now: T,
    record: held('', T - 15_000),
    observedAt: T - 15_000,
    lastHolder: 'pod-b_2',
    want: { kind: 'takeOver', previous: '', record: mine({ acquireTime: T, leaseTransitions: 4 }) },
  },
  {
    name: 'missing, after a holder was seen: held by that holder for a lease duration from when it went missing',
    now: T,
    record: undefined,
    observedAt: T - 1_000,
    lastHolder: 'pod-b_2',
    want: { kind: 'wait', until: T + 2_000, holder: 'pod-b_2' },
  },
  {
    name: 'missing, after we held it ourselves: the same wait',
    now: T,
    record: undefined,
    observedAt: T - 14_500,
    lastHolder: me,
    want: { kind: 'wait', until: T + 500, holder: me },
  },
  {
    name: 'missing for a lease duration since it went missing: create it',
    now: T,
    record: undefined,
    observedAt: T - 15_000,
    lastHolder: 'pod-b_2',
    want: { kind: 'create', record: mine({ acquireTime: T, leaseTransitions: 0 }) },
  },
  {
    name: 'names us in a record we did not write (an edit): held like another holder, no term of ours',
    now: T,
    record: held(me, T - 1_000),
    observedAt: T - 1_000,
    own: false,
    lastHolder: 'pod-b_2',
    want: { kind: 'wait', until: T + 2_000, holder: 'pod-b_2' },
  },
  {
    name: 'names us in a record we did not write, unchanged for a lease duration: take it over as a new term',
    now: T,
    record: held(me, T - 15_000),
    observedAt: T - 15_000,
    own: false,
    lastHolder: 'pod-b_2',
    want: { kind: 'takeOver', previous: me, record: mine({ acquireTime: T, leaseTransitions: 4 }) },
  },
  {
    name: 'released (no holder, 1 s, acquired when renewed): take over at once, even if just seen',
    now: T,
    record: held('', T, { leaseDurationSeconds: 1, acquireTime: T }),
    observedAt: T,
    want: {
      kind: 'takeOver',
      previous: '',
      record: mine({ acquireTime: T, leaseTransitions: 4 }),
    },
  },
  {
    name: 'ours, renewed 2 s ago: renew, keeping acquireTime and transitions',
    now: T,
    record: held(me, T - 2_000),
    observedAt: T - 2_000,
    want: { kind: 'renew', record: mine({ acquireTime: 500_000, leaseTransitions: 3 }) },
  },
  {
    name: 'ours, 1 ms before the renew deadline: still renew',
    now: T,
    record: held(me, T - 9_999),
    observedAt: T - 9_999,
    want: { kind: 'renew', record: mine({ acquireTime: 500_000, leaseTransitions: 3 }) },
  },
  {
    name: 'ours, renew deadline reached: step down, wait until the lease expired for everyone',
    now: T,
    record: held(me, T - 10_000),
    observedAt: T - 10_000,
    want: { kind: 'stepDown', until: T + 5_000, deadline: T },
  },
  {
    name: 'ours, read back later than we wrote it: the deadline counts from our own renewTime',
    // a renew whose answer was lost, read again 4 s later: the record changed, so observedAt moved
    now: T,
    record: held(me, T - 11_000),
    observedAt: T - 7_000,
    want: { kind: 'stepDown', until: T + 4_000, deadline: T - 1_000 },
  },
  {
    name: 'ours, expired for everyone: take it again as a new term',
    now: T,
    record: held(me, T - 15_000),
    observedAt: T - 15_000,
    want: {
      kind: 'takeOver',
      previous: me,
      record: mine({ acquireTime: T, leaseTransitions: 4 }),
    },
  },
];

describe('decideLease', () => {
  for (const c of cases) {
    it(c.name, () => {
      const view = {
        now: c.now,
        record: c.record,
        observedAt: c.observedAt,
        identity: me,
        timings,
        own: c.own ?? true,
        lastHolder: c.lastHolder,
      };
      assert.deepEqual(decideLease(view), c.want);
    });
  }

  it('a leader always gives up before a standby may take over: deadline < any standby expiry', () => {
    // the standby saw our write no earlier than we sent it (renewTime); sweep observation delays
    for (const seenAfter of [0, 1, 500, 1_999]) {
      const record = held(me, T);
      const observedAt = T + seenAfter;
      const standby = (now: number) =>
        decideLease({ now, record, observedAt, identity: 'pod-b_2', timings, own: false, lastHolder: undefined }).kind;
      const leader = (now: number) =>
        decideLease({ now, record, observedAt: T, identity: me, timings, own: true, lastHolder: undefined }).kind;
      const firstTakeOver = [...Array(20_000).keys()].map((ms) => T + ms).find((now) => standby(now) === 'takeOver');
      const firstStepDown = [...Array(20_000).keys()].map((ms) => T + ms).find((now) => leader(now) === 'stepDown');
      assert.equal(firstTakeOver, T + seenAfter + 15_000);
      assert.equal(firstStepDown, T + 10_000);
    }
  });
});

describe('releaseRecord', () => {
  const cases: { name: string; record: LeaseRecord | undefined; want: LeaseRecord | undefined }[] = [
    {
      name: 'ours: no holder, 1 s, transitions kept (client-go ReleaseOnCancel)',
      record: held(me, T - 1_000),
      want: { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: T, renewTime: T, leaseTransitions: 3 },
    },
    { name: 'another holder: nothing to release', record: held('pod-b_2', T - 1_000), want: undefined },
    { name: 'no lease: nothing to release', record: undefined, want: undefined },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(releaseRecord(T, c.record, me), c.want));
});

describe('timingProblems', () => {
  const cases: { name: string; timings: LeaderTimings; want: string[] }[] = [
    { name: 'client-go defaults are fine', timings, want: [] },
    {
      name: 'short test timings are fine',
      timings: { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 },
      want: [],
    },
    {
      name: 'renew deadline not below the lease duration',
      timings: { leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
      want: ['leaseDurationMs (10000) must be greater than renewDeadlineMs (10000)'],
    },
    {
      name: 'retry period * 1.2 not below the renew deadline',
      timings: { leaseDurationMs: 15_000, renewDeadlineMs: 2_400, retryPeriodMs: 2_000 },
      want: ['renewDeadlineMs (2400) must be greater than retryPeriodMs * 1.2 (2400)'],
    },
    {
      name: 'a lease duration that is not whole seconds',
      timings: { leaseDurationMs: 2_500, renewDeadlineMs: 2_000, retryPeriodMs: 500 },
      want: ['leaseDurationMs must be whole seconds (Lease.spec.leaseDurationSeconds), got 2500'],
    },
    {
      name: 'zero and NaN',
      timings: { leaseDurationMs: 0, renewDeadlineMs: Number.NaN, retryPeriodMs: 500 },
      want: [
        'leaseDurationMs must be a positive number of milliseconds, got 0',
        'renewDeadlineMs must be a positive number of milliseconds, got NaN',
      ],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(timingProblems(c.timings), c.want));
});
