/**
 * The start gate: the one question every start of user code for an object asks (a changing handler's
 * attempt, a retry, a timer's tick, a daemon's start or restart, a child handler woken by its child, an
 * `onEvent` call): may this replica start work for this object now? It is asked at the moment of the start,
 * not when the work was queued: after a freeze (SIGSTOP) or an event loop blocked by a handler, the timers
 * and I/O callbacks that were due run in an order of their own, and work queued before the freeze would
 * otherwise start before the renew deadline's timer tells the term it is over. client-go's leader election
 * documents that it does not guarantee one leader across such pauses, and controller-runtime's workers
 * resume on a thaw; kopfgen checks its hold on the monotonic clock instead, at the cost of one comparison.
 *
 * A refusal leaves the work where it was (queued in the cluster: nothing is recorded, the next holder
 * handles the object from what the cluster holds), counts in `kopfgen_starts_refused_total` by reason and
 * ends the hold at once (`Hold.lapse`), so running handlers are told through their signal and timers and
 * daemons stop without waiting for the deadline timer. Webhooks do not ask: every replica serves them.
 * The hold asked is per object (`holdOf`): one lease for the whole operator with leader election, a hash
 * range's lease when the objects are sharded.
 */
import type { WriteFence } from './kube/fence.js';

/** Why a start was refused (the metric's `reason` label). */
export type RefusalReason =
  /** The hold's renew deadline had passed before the deadline timer ended the term (a freeze, a blocked loop). */
  | 'renew_deadline'
  /** The hold was already over: the lease lost, released or rewritten, the term ended or past its drain timeout. */
  | 'not_held'
  /** The object's hash range is being handed over: what runs finishes, nothing new starts (shard/). */
  | 'range_handover';

export interface Refusal {
  reason: RefusalReason;
  /** Names the lease (the fence's refusal). */
  message: string;
}

/** What the gate asks of a hold: a term's write fence, and how to end the hold at once once it has lapsed. */
export interface Hold {
  /** The term's fence: a start is refused exactly when a write would be (`refuse()`). */
  fence: Pick<WriteFence, 'refuse' | 'signal'>;
  /** Ends the hold now if its renew deadline has passed (LeaderElector.lapse); idempotent. */
  lapse(): void;
  /**
   * Why new starts are refused while the fence still lets writes out (a range drained before its hand-over:
   * running handlers finish and write their outcomes); undefined when they are not.
   */
  handover?(): string | undefined;
}

export interface StartGate {
  /** Undefined when user code for the object may start now; else why not (counted, the hold ended). */
  refuse(uid: string): Refusal | undefined;
}

/** Thrown by a changing handler's attempt the gate refused: not an attempt, not a failure of the object. */
export class StartRefused extends Error {
  constructor(readonly refusal: Refusal) {
    super(`not started: ${refusal.message}`);
    this.name = 'StartRefused';
  }
}

/** The gate of a term: `holdOf` gives the hold that covers an object; `refused` counts a refusal. */
export function startGate(holdOf: (uid: string) => Hold, refused: (reason: RefusalReason) => void): StartGate {
  return {
    refuse(uid) {
      const hold = holdOf(uid);
      const message = hold.fence.refuse();
      if (message === undefined) {
        const handover = hold.handover?.();
        if (handover === undefined) return undefined;
        refused('range_handover');
        return { reason: 'range_handover', message: handover };
      }
      // The fence's signal still open: only the clock said no, the deadline timer has not run yet.
      const reason: RefusalReason = hold.fence.signal.aborted ? 'not_held' : 'renew_deadline';
      refused(reason);
      // Ended after the caller has unwound: the term's stop runs listeners that must not re-enter the start.
      if (reason === 'renew_deadline') queueMicrotask(() => hold.lapse());
      return { reason, message };
    },
  };
}

/** The refusal wrapped anywhere in an error's causes (a reconcile wraps a handler step's failure). */
export function startRefusal(error: unknown): StartRefused | undefined {
  let current = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof StartRefused) return current;
    current = current.cause;
  }
  return undefined;
}
