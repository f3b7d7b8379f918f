/**
 * How many objects may be reconciled at once, adapted to what the API server takes (AIMD, as TCP
 * congestion control and Netflix's concurrency-limits): while objects wait for a slot and requests
 * go through, the limit grows — by one per request answered until the first sign of congestion
 * (slow start: it doubles per round trip), then by one per round of `limit` answers; on a sign of
 * congestion — a 429, a 5xx, a request without an answer, latency far above its long-run average,
 * or above a second — it shrinks by a factor, at most once per second so one congested moment
 * counts once. The API server's own max-in-flight limit (429) is the hard bound; the latency rules
 * back off before it. The maximum stays well below the client's 64 connections, so the lease
 * renewal, Events and watches always find one free: with all 64 taken by writes of an overloaded
 * server, a renewal queued behind them missed its 10 s deadline and the leader lost its lease
 * (measured). A fixed `concurrency` option replaces all this with a constant.
 */

export interface LimitSettings {
  initial: number;
  min: number;
  max: number;
}

export const DEFAULT_LIMIT: LimitSettings = { initial: 16, min: 4, max: 48 };

/** One answered (or failed) API request, as the client reports it. */
export interface Sample {
  /** HTTP status; undefined when the request got no answer (network error, timeout). */
  code: number | undefined;
  seconds: number;
}

/** The bound Slots read: a constant, or one that adapts. */
export interface Limit {
  readonly value: number;
}

/** Shrink factors: throttling is the server saying no; latency is a hint. */
const THROTTLED = 0.7;
const SLOW = 0.9;
/** Latency counts as congestion above this multiple of its long-run average, and above LATENCY_FLOOR_MS. */
const SLOW_RATIO = 4;
const LATENCY_FLOOR_MS = 250;
/** Latency counts as congestion above this, whatever its average: the server is overloaded. */
const LATENCY_CEILING_MS = 1000;
const DECREASE_INTERVAL_MS = 1000;

export class AdaptiveLimit implements Limit {
  private limit: number;
  private slowStart = true;
  private answered = 0;
  private shortMs: number | undefined;
  private longMs: number | undefined;
  private lastDecrease = -Infinity;

  constructor(
    private readonly settings: LimitSettings = DEFAULT_LIMIT,
    /** Whether objects wait for a slot: the limit only grows when more would be used. */
    private readonly demand: () => boolean = () => true,
    /** Called when the limit grew, so waiting work can start. */
    private readonly grew: () => void = () => undefined,
  ) {
    this.limit = Math.min(settings.max, Math.max(settings.min, settings.initial));
  }

  get value(): number {
    return this.limit;
  }

  /** Feeds one request's outcome; `nowMs` is a monotonic clock (performance.now()). */
  observe(sample: Sample, nowMs: number): void {
    const ms = sample.seconds * 1000;
    const failed = sample.code === undefined || sample.code === 429 || sample.code >= 500;
    if (!failed) {
      this.shortMs = this.shortMs === undefined ? ms : this.shortMs * 0.8 + ms * 0.2;
      this.longMs = this.longMs === undefined ? ms : this.longMs * 0.99 + ms * 0.01;
    }
    const slow =
      this.shortMs !== undefined &&
      this.longMs !== undefined &&
      this.shortMs > LATENCY_FLOOR_MS &&
      (this.shortMs > SLOW_RATIO * this.longMs || this.shortMs > LATENCY_CEILING_MS);
    if (failed || slow) {
      if (nowMs - this.lastDecrease < DECREASE_INTERVAL_MS) return;
      this.lastDecrease = nowMs;
      this.slowStart = false;
      this.answered = 0;
      this.limit = Math.max(this.settings.min, Math.floor(this.limit * (failed ? THROTTLED : SLOW)));
      return;
    }
    if (!this.demand() || this.limit >= this.settings.max) return;
    this.answered++;
    if (this.slowStart || this.answered >= this.limit) {
      this.answered = 0;
      this.limit++;
      this.grew();
    }
  }
}

/** A constant limit (the `concurrency` option). */
export function fixedLimit(value: number): Limit {
  return { value };
}
