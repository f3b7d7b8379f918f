/**
 * What a replica does next with one range's Lease, decided without I/O (ARCHITECTURE.md, "Scaling out"),
 * as `decideLease` (leader/lease-decision.ts) does for the single leader Lease, with the same hardening.
 * A range Lease is not renewed on its own: its holder's liveness is its member Lease, renewed every retry
 * period. So a range is taken from another replica only when its Lease is released, or when the member it
 * names has left its member Lease unchanged, as this replica saw it, for a lease duration (client-go's
 * expiry rule, on our clock from when we saw the change), by which time that member's renew deadline has
 * passed and its start gate refuses every start (start-gate.ts). A range Lease gone missing or rewritten
 * is held by whoever held it for a lease duration from when we saw the change, as in `decideLease`.
 */
import type { LeaderTimings } from '../leader/lease-decision.js';
import { isRelease } from '../leader/lease-decision.js';
import type { LeaseRecord } from '../leader/lease-record.js';

export interface RangeView {
  /** Local clock, epoch ms. */
  now: number;
  identity: string;
  timings: LeaderTimings;
  /** The range Lease as last read, written or watched; undefined when it does not exist. */
  record: LeaseRecord | undefined;
  /** When this replica saw the range Lease change last (or saw it missing). */
  observedAt: number;
  /** The record is the one this replica last wrote itself. */
  own: boolean;
  /** The last holder seen before the record observed now (a Lease gone missing is held by it). */
  lastHolder: string | undefined;
  /**
   * When this replica saw the named member's Lease change last (a renewal changes it), or first saw it
   * missing; undefined when it has not looked at it yet (nothing may be taken from it then).
   */
  memberObservedAt(identity: string): number | undefined;
  /** The assignment (assignment.ts) gives this range to this replica. */
  assigned: boolean;
  /** This replica's term on the range is open (it wrote the Lease naming itself and has not let go). */
  holding: boolean;
  /** The range's work has drained (nothing of it runs): it may be released. */
  drained: boolean;
}

export type RangeStep =
  /** Held by this replica and assigned to it: nothing to write (its member Lease's renewals keep it). */
  | { kind: 'keep' }
  /** Held, but assigned to another: stop starting its work and let what runs finish, then release. */
  | { kind: 'drain' }
  /** Drained: write the release record (a CAS on the resourceVersion last seen). */
  | { kind: 'release'; record: LeaseRecord }
  /** Free, released or its holder gone: write this replica as holder (a CAS; 409 = another was first). */
  | { kind: 'take'; record: LeaseRecord; previous: string }
  /** The term this replica had on the range is over (the Lease no longer names it as it wrote it). */
  | { kind: 'lost'; holder: string }
  /** Another replica's, or not ours to take yet: look again at `until`. */
  | { kind: 'wait'; until: number; holder: string };

function ours(view: RangeView, transitions: number): LeaseRecord {
  const { now, identity, timings } = view;
  return {
    holderIdentity: identity,
    leaseDurationSeconds: timings.leaseDurationMs / 1000,
    acquireTime: now,
    renewTime: now,
    leaseTransitions: transitions,
  };
}

/** The next step for one range. */
export function decideRange(view: RangeView): RangeStep {
  const { now, record, identity, timings } = view;
  const mine = record?.holderIdentity === identity && view.own;
  if (view.holding && !mine) return { kind: 'lost', holder: record?.holderIdentity ?? '' };
  if (mine && record) {
    const { leaseTransitions } = record;
    const release: RangeStep = {
      kind: 'release',
      record: { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions },
    };
    // Our record, but no term of ours on it (the member hold lapsed since): a new term needs a new write.
    if (!view.holding)
      return view.assigned ? { kind: 'take', record: ours(view, leaseTransitions + 1), previous: identity } : release;
    if (view.assigned) return { kind: 'keep' };
    return view.drained ? release : { kind: 'drain' };
  }
  const look = (until: number, holder: string): RangeStep => ({
    kind: 'wait',
    until: Math.min(now + timings.retryPeriodMs, until),
    holder,
  });
  const holder = record ? record.holderIdentity : (view.lastHolder ?? '');
  if (!view.assigned) return look(now + timings.retryPeriodMs, holder);
  const transitions = (record?.leaseTransitions ?? -1) + 1;
  // Released, or never held: take it at once.
  if (record ? isRelease(record) : view.lastHolder === undefined) {
    return { kind: 'take', record: ours(view, transitions), previous: holder };
  }
  // Held (or gone missing, or edited): both the range Lease and its holder's member Lease must have stood
  // still for a lease duration, as this replica saw them.
  const memberSeen = holder && holder !== identity ? view.memberObservedAt(holder) : view.observedAt;
  if (memberSeen === undefined) return look(now + timings.retryPeriodMs, holder);
  const expiry = Math.max(view.observedAt, memberSeen) + timings.leaseDurationMs;
  if (now < expiry) return look(expiry, holder);
  return { kind: 'take', record: ours(view, transitions), previous: holder };
}
