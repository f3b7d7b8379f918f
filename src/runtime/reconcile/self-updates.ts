/**
 * A per-object limit on self-caused updates: the update an object shows right after the operator's own
 * write changed what the user controls (a handler that edits its object's spec, labels or annotations).
 * A handler that edits its object on every update would otherwise run in a tight loop (each run's write
 * is the next run's cause; kopf loops too, more slowly). Each object has a token bucket, as client-go's
 * rate limiters (`BucketRateLimiter`): a burst of self-caused updates runs at once, then one per refill
 * period; updates anyone else caused are never held back. When an object's bucket runs dry, it loops:
 * one Warning Event and one count in `kopfgen_self_update_loops_total` per episode, until it comes to rest.
 * Pure bookkeeping on a clock the caller passes; the reconciler acts on the answers.
 */

export interface SelfUpdateLimits {
  /** Self-caused updates an object may run back to back (default 5). */
  burst: number;
  /** One more self-caused update is allowed per this many ms (default 6 s: ten a minute). */
  refillMs: number;
}

export const DEFAULT_SELF_UPDATE_LIMITS: SelfUpdateLimits = { burst: 5, refillMs: 6_000 };

interface ObjectState {
  /** The essence (as text) the operator's own last write left the object with. */
  produced: string;
  tokens: number;
  /** When `tokens` was last brought up to date (ms). */
  at: number;
  /** The bucket ran dry since the object was last at rest: the loop has been reported. */
  looping: boolean;
}

/** What to do with an update of an object: run it, or wait (and whether a loop was just detected). */
export type SelfUpdateAnswer = { kind: 'run' } | { kind: 'wait'; ms: number; loopDetected: boolean };

export class SelfUpdates {
  private readonly objects = new Map<string, ObjectState>();

  constructor(private readonly limits: SelfUpdateLimits = DEFAULT_SELF_UPDATE_LIMITS) {}

  /** The operator's write changed the object's essence to `essence` (its text). */
  wrote(uid: string, essence: string, now: number): void {
    const state = this.objects.get(uid);
    if (state) state.produced = essence;
    else this.objects.set(uid, { produced: essence, tokens: this.limits.burst, at: now, looping: false });
  }

  /**
   * An update (or field) handler is due on the object whose essence is now `essence`: run, or wait `ms`
   * because the update is self-caused and the object's bucket is empty. `loopDetected` is true the first
   * time the bucket runs dry in an episode.
   */
  take(uid: string, essence: string, now: number): SelfUpdateAnswer {
    const state = this.objects.get(uid);
    if (!state || state.produced !== essence) return { kind: 'run' }; // someone else changed it
    const { burst, refillMs } = this.limits;
    state.tokens = Math.min(burst, state.tokens + (now - state.at) / refillMs);
    state.at = now;
    if (state.tokens >= 1) {
      state.tokens -= 1;
      return { kind: 'run' };
    }
    const loopDetected = !state.looping;
    state.looping = true;
    return { kind: 'wait', ms: Math.ceil((1 - state.tokens) * refillMs), loopDetected };
  }

  /** The object came to rest (nothing left to do): a later self-caused update starts a new episode. */
  rested(uid: string): void {
    const state = this.objects.get(uid);
    if (state) state.looping = false;
  }

  forget(uid: string): void {
    this.objects.delete(uid);
  }
}
