/**
 * What a candidate does next with the lease, decided without I/O: client-go's
 * `LeaderElector.tryAcquireOrRenew` split into a pure decision (here) and a thin loop that performs
 * it (leader-elector.ts).
 */
import type { LeaseRecord } from './lease-record.js';

/** client-go's / controller-runtime's defaults: lease 15 s, renew deadline 10 s, retry 2 s. */
export interface LeaderTimings {
  /** How long a standby waits, from the last change it saw, before it takes an unrenewed lease over. */
  leaseDurationMs: number;
  /** How long a leader keeps leading without a successful renew; then it stops leading at once. */
  renewDeadlineMs: number;
  /** How often the leader renews and a standby looks at the lease. */
  retryPeriodMs: number;
}

export const DEFAULT_TIMINGS: LeaderTimings = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

/** client-go's wait.JitterUntil factor for the acquire loop; its config check uses it, so does ours. */
export const JITTER_FACTOR = 1.2;

/**
 * What is wrong with `timings`, one line per problem (empty when fine). The same rules as client-go's
 * NewLeaderElector: leaseDuration > renewDeadline > retryPeriod * 1.2, all positive. A leader must
 * give up (at renewDeadline) strictly before a standby may take over (at leaseDuration), and it must get
 * at least one retry in before it gives up. The Lease stores whole seconds, so the duration must be one.
 */
export function timingProblems(timings: LeaderTimings): string[] {
  const { leaseDurationMs: lease, renewDeadlineMs: renew, retryPeriodMs: retry } = timings;
  const problems: string[] = [];
  for (const [key, value] of Object.entries(timings)) {
    if (!Number.isFinite(value) || value <= 0) {
      problems.push(`${key} must be a positive number of milliseconds, got ${value}`);
    }
  }
  if (problems.length) return problems;
  if (lease % 1000 !== 0) {
    problems.push(`leaseDurationMs must be whole seconds (Lease.spec.leaseDurationSeconds), got ${lease}`);
  }
  if (lease <= renew) problems.push(`leaseDurationMs (${lease}) must be greater than renewDeadlineMs (${renew})`);
  if (renew <= retry * JITTER_FACTOR) {
    const least = retry * JITTER_FACTOR;
    problems.push(`renewDeadlineMs (${renew}) must be greater than retryPeriodMs * ${JITTER_FACTOR} (${least})`);
  }
  return problems;
}

/** What the candidate knows when it decides. */
export interface LeaseView {
  /** Local clock, epoch ms. */
  now: number;
  /** The record as last read or written; undefined when the Lease does not exist (404). */
  record: LeaseRecord | undefined;
  /**
   * Local time at which this candidate saw the record change last (or sent the write that made it), or saw
   * the Lease go missing. client-go's `observedTime`: expiry is judged by this, never by the renewTime
   * another node wrote.
   */
  observedAt: number;
  identity: string;
  timings: LeaderTimings;
  /** The record is the one this candidate last wrote itself (its write's answer, or read back unchanged). */
  own: boolean;
  /**
   * The last holder this candidate saw on the Lease before the record it holds now (itself included);
   * undefined when it has seen none. A Lease that goes missing is held by it for a lease duration.
   */
  lastHolder: string | undefined;
}

export type LeaseStep =
  /** No Lease: create it, holding it (409 = another candidate created it first). */
  | { kind: 'create'; record: LeaseRecord }
  /** Free or expired: write ourselves as holder, leaseTransitions + 1 (409 = lost the race). */
  | { kind: 'takeOver'; record: LeaseRecord; previous: string }
  /** Ours and within the renew deadline: write a new renewTime. */
  | { kind: 'renew'; record: LeaseRecord }
  /** Held by another and not expired by our clock: look again at `until`. */
  | { kind: 'wait'; until: number; holder: string }
  /**
   * Ours on record, but the renew deadline has passed: we are not leader any more (stop at once) and
   * must not write until the lease has expired for everyone; look again at `until`.
   */
  | { kind: 'stepDown'; until: number; deadline: number };

/** The lease duration a record asks for; a record without one expires at once, as in client-go. */
function durationMs(record: LeaseRecord): number {
  return Math.max(0, record.leaseDurationSeconds) * 1000;
}

function ours(view: LeaseView, acquireTime: number, leaseTransitions: number): LeaseRecord {
  return {
    holderIdentity: view.identity,
    leaseDurationSeconds: view.timings.leaseDurationMs / 1000,
    acquireTime,
    renewTime: view.now,
    leaseTransitions,
  };
}

/**
 * Whether a record without a holder is a release (client-go's ReleaseOnCancel, `releaseRecord`): no
 * holder, one second, acquired and renewed at the same instant. A holder cleared by hand keeps its other
 * fields, so it is not mistaken for one.
 */
export function isRelease(record: LeaseRecord): boolean {
  return !record.holderIdentity && record.leaseDurationSeconds <= 1 && record.acquireTime === record.renewTime;
}

/**
 * The next step. Mirrors client-go's tryAcquireOrRenew:
 * - another holder's lease expires at observedAt + its leaseDurationSeconds, measured on OUR clock from
 *   when WE saw the record change (client-go's observedTime), so a skewed clock on the holder's node
 *   cannot make us take over early or late; only the rates of the clocks matter;
 * - a released lease (`isRelease`) may be taken at once;
 * - a renew keeps acquireTime and leaseTransitions; a takeover bumps leaseTransitions.
 * For our own record the renew deadline is counted from the renewTime we wrote (our clock, sent just
 * before the write reached the server, so never later than when others saw it): we give up at
 * renewTime + renewDeadline, before anyone may take over at (>= renewTime) + leaseDuration.
 *
 * Where client-go trusts what the Lease says, this waits, so that no edit or deletion of the Lease makes
 * two leaders (the leader that held it keeps writing until its renew deadline passes, or until it reads
 * the change, within a retry period):
 * - a Lease gone missing after a holder was seen is held by that holder for a lease duration from when
 *   the candidate saw it missing; only then is it created again;
 * - a record naming this candidate that it did not write itself (an edit, or another process's write)
 *   is no term of its own: it is held like another holder's until it expires, then taken over;
 * - a lease expires after the longer of the duration the record asks for and our own, so an edit that
 *   shortens the duration or clears the holder shortens nothing.
 */
export function decideLease(view: LeaseView): LeaseStep {
  const { now, record, observedAt, identity, timings } = view;
  if (!record) {
    const expiry = observedAt + timings.leaseDurationMs;
    if (view.lastHolder !== undefined && now < expiry) {
      return { kind: 'wait', until: Math.min(now + timings.retryPeriodMs, expiry), holder: view.lastHolder };
    }
    return { kind: 'create', record: ours(view, now, 0) };
  }
  if (record.holderIdentity === identity && view.own) {
    const since = Math.min(observedAt, record.renewTime || observedAt);
    const deadline = since + timings.renewDeadlineMs;
    if (now < deadline) {
      return { kind: 'renew', record: ours(view, record.acquireTime || now, record.leaseTransitions) };
    }
    const expiry = since + durationMs(record);
    if (now < expiry) return { kind: 'stepDown', until: expiry, deadline };
    return { kind: 'takeOver', record: ours(view, now, record.leaseTransitions + 1), previous: identity };
  }
  const expiry = observedAt + Math.max(durationMs(record), timings.leaseDurationMs);
  if (!isRelease(record) && now < expiry) {
    const holder = record.holderIdentity === identity ? (view.lastHolder ?? '') : record.holderIdentity;
    return { kind: 'wait', until: Math.min(now + timings.retryPeriodMs, expiry), holder };
  }
  return { kind: 'takeOver', record: ours(view, now, record.leaseTransitions + 1), previous: record.holderIdentity };
}

/**
 * The record that gives the lease up on a graceful stop: client-go's `release()` (ReleaseOnCancel):
 * no holder, leaseDurationSeconds 1, transitions kept, so a standby takes over at its next look.
 * Undefined when the record is not ours: nothing to release.
 */
export function releaseRecord(now: number, record: LeaseRecord | undefined, identity: string): LeaseRecord | undefined {
  if (!record || record.holderIdentity !== identity) return undefined;
  const { leaseTransitions } = record;
  return { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions };
}
