/**
 * A bound on what webhook requests in flight hold: a number of bytes (each request reserves its body's
 * size before a byte of it is read, and holds it until its answer is written) and a number of
 * requests. Past it a request waits, first come first served among those that fit, at most `waitMs`;
 * then it is refused (the server answers 503 with Retry-After, which the API server reports to its
 * client as a failed call, never an out-of-memory kill of every replica at once). Unread bodies wait
 * in the kernel's socket buffers (TCP backpressure), so a waiting request costs nothing but its
 * socket. controller-runtime bounds the body only (7 MiB); the API server bounds its own requests to
 * 3 MiB, but a ConversionReview of a list carries every object of it.
 */
/** controller-runtime reads at most 7 MiB of an admission review. */
export const ADMISSION_BODY_LIMIT = 7 * 1024 * 1024;
/** A conversion review carries a whole list read, so it may hold more. */
export const CONVERSION_BODY_LIMIT = 64 * 1024 * 1024;

export interface BudgetOptions {
  /** Bytes the requests in flight may reserve together (at least the largest body accepted). */
  bytes: number;
  /** Requests in flight at once. */
  requests: number;
  /** How long a request may wait for room before it is refused. */
  waitMs: number;
}

interface Waiter {
  bytes: number;
  grant: (release: () => void) => void;
  timer: NodeJS.Timeout;
}

export interface RequestBudget {
  /** A release function once `bytes` fit, or undefined when they did not within the wait bound. */
  acquire(bytes: number): Promise<(() => void) | undefined>;
  /** Bytes and requests held now (for metrics and tests). */
  held(): { bytes: number; requests: number; waiting: number };
}

export function requestBudget(options: BudgetOptions): RequestBudget {
  let bytes = 0;
  let requests = 0;
  const waiting: Waiter[] = [];
  const fits = (n: number) => requests < options.requests && bytes + n <= options.bytes;
  const take = (n: number): (() => void) => {
    bytes += n;
    requests += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      bytes -= n;
      requests -= 1;
      admitWaiting();
    };
  };
  // First fit in arrival order: a small admission review is not held behind a large conversion that waits for room.
  const admitWaiting = () => {
    for (let i = 0; i < waiting.length;) {
      const waiter = waiting[i];
      if (!fits(waiter.bytes)) {
        i++;
        continue;
      }
      waiting.splice(i, 1);
      clearTimeout(waiter.timer);
      waiter.grant(take(waiter.bytes));
    }
  };
  return {
    acquire: (n) => {
      const size = Math.min(n, options.bytes);
      if (fits(size)) return Promise.resolve(take(size));
      return new Promise((resolve) => {
        const waiter: Waiter = {
          bytes: size,
          grant: resolve,
          timer: setTimeout(() => {
            const at = waiting.indexOf(waiter);
            if (at >= 0) waiting.splice(at, 1);
            resolve(undefined);
          }, options.waitMs),
        };
        waiting.push(waiter);
      });
    },
    held: () => ({ bytes, requests, waiting: waiting.length }),
  };
}

/**
 * What webhook requests in flight may hold. Conversions: bodies up to the conversion limit together
 * (one at the limit, or several smaller), at most two at once; admission: 8 MiB of reviews (hundreds
 * of ordinary ones, one at controller-runtime's limit). Past it a request waits for room, then is
 * answered 503.
 */
export const DEFAULT_WEBHOOK_BUDGET = {
  conversion: { bytes: CONVERSION_BODY_LIMIT, requests: 2, waitMs: 20_000 },
  admission: { bytes: 8 * 1024 * 1024, requests: 256, waitMs: 2_000 },
} satisfies Record<string, BudgetOptions>;

/**
 * The most memory webhook requests in flight take beyond the operator's own, in MiB, from the
 * budget: a conversion holds its body's bytes and its answer's (about as long: the same objects in
 * another version), one object parsed at a time (review-scan.ts), so 2.5 times its bytes with the
 * collector's slack; an admission review is parsed whole, copied for a mutation and diffed, about 8
 * times its bytes: 224 MiB with the default budget. Measured: 4 concurrent 40 MB ConversionReviews
 * took the operator process from 61 MB to a peak of 179 MB RSS, every review answered
 * (test/e2e/webhooks.test.ts; 306 MB with the review parsed whole, 987 MB before any bound).
 */
export function webhookMemoryMiB(budget = DEFAULT_WEBHOOK_BUDGET): number {
  const bytes = budget.conversion.bytes * 2.5 + budget.admission.bytes * 8;
  return Math.ceil(bytes / (1024 * 1024));
}
