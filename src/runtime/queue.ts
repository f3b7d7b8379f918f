/**
 * Which object is reconciled when (kube-rs `runner`, controller-runtime's workqueue). Keys are
 * object uids. Guarantees: a key is never reconciled twice at once — a key added while it runs
 * is marked dirty and runs once more right after; a key waiting for a slot is queued once
 * however often it is added; one timer per key (the newest `requeueAfter` wins); at most
 * `Slots.limit` keys run at once across every queue sharing the slots, not counting handlers
 * that run long (they lend their slot out, see Slots).
 */
import { fixedLimit, type Limit } from './adaptive-limit.js';

/**
 * Shared bound on objects processed at once, across resources: a constant or an adaptive limit
 * (adaptive-limit.ts), read at each hand-out. A reconcile whose handler runs long lends its slot
 * out (`lend`) for the rest of the handler's run and takes one back, ahead of every object that
 * waits, to write the outcome (`reclaim`): a slow handler does not hold back fast objects, and an
 * object half-way through is finished before new ones start. `drained` waits for lent slots too,
 * so a stop still lets every running handler finish and its outcome be written.
 */
export class Slots {
  private active = 0;
  private lent = 0;
  private readonly waiting: (() => void)[] = [];
  private idle: (() => void)[] = [];
  readonly limit: Limit;
  constructor(limit: number | Limit) {
    this.limit = typeof limit === 'number' ? fixedLimit(limit) : limit;
  }
  async acquire(): Promise<void> {
    if (this.active < this.limit.value) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  /**
   * `acquire` that can be taken back while it waits: `granted` settles true with the slot, or false
   * once `withdraw` took the request out of line (it answers whether it did). A stopped queue withdraws
   * its waiting keys, so a hash range being handed over does not wait its turn behind the replica's
   * other ranges only to start nothing (controller-runtime's workqueue likewise drops what is queued on
   * shutdown).
   */
  request(): { granted: Promise<boolean>; withdraw: () => boolean } {
    if (this.active < this.limit.value) {
      this.active++;
      return { granted: Promise.resolve(true), withdraw: () => false };
    }
    let answer: (granted: boolean) => void = () => undefined;
    const granted = new Promise<boolean>((resolve) => (answer = resolve));
    const waiter = () => answer(true);
    this.waiting.push(waiter);
    const withdraw = () => {
      const at = this.waiting.indexOf(waiter);
      if (at < 0) return false;
      this.waiting.splice(at, 1);
      answer(false);
      return true;
    };
    return { granted, withdraw };
  }
  release(): void {
    if (this.active <= this.limit.value) {
      const next = this.waiting.shift();
      if (next) return next(); // hand the slot over
    }
    this.active--;
    this.settle();
  }
  /** Gives the slot held by a long-running handler to waiting work; `reclaim` takes one back. */
  lend(): void {
    this.lent++;
    this.release();
  }
  /** Takes a slot back after `lend`, before any other waiting work. */
  async reclaim(): Promise<void> {
    if (this.active < this.limit.value) this.active++;
    else await new Promise<void>((resolve) => this.waiting.unshift(resolve));
    this.lent--; // only now: until the slot is back, `drained` must still wait for this reconcile
  }
  /** The limit grew: start waiting work in the new slots. */
  grew(): void {
    while (this.active < this.limit.value) {
      const next = this.waiting.shift();
      if (!next) return;
      this.active++;
      next();
    }
  }
  /** Awaits `work`; should it run past `afterMs`, its slot is lent out meanwhile and reclaimed after. */
  async around<T>(work: Promise<T>, afterMs: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const long = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, afterMs, true)));
    const settled = work.then(
      () => false,
      () => false,
    );
    const lending = await Promise.race([settled, long]);
    clearTimeout(timer);
    if (!lending) return work;
    this.lend();
    try {
      return await work;
    } finally {
      await this.reclaim();
    }
  }
  /** Work waiting for a slot. */
  get waiters(): number {
    return this.waiting.length;
  }
  /** Resolves once nothing holds or has lent a slot. */
  drained(): Promise<void> {
    return this.active === 0 && this.lent === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }
  private settle(): void {
    if (this.active === 0 && this.lent === 0) for (const resolve of this.idle.splice(0)) resolve();
  }
}

/** What a reconcile asks of the queue afterwards (kube-rs `Action`). */
export type Action = { kind: 'done' } | { kind: 'requeue'; afterMs: number };

export const Action = {
  done: (): Action => ({ kind: 'done' }),
  requeueAfter: (ms: number): Action => ({ kind: 'requeue', afterMs: Math.max(0, ms) }),
};

/** Never rejects: failures are turned into an Action by the error policy before they reach the queue. */
export type Work = (key: string) => Promise<Action>;

export class Queue {
  private readonly queued = new Set<string>();
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Queued keys' way out of the slots' line (`Slots.request`), for `stop`. */
  private readonly waiting = new Map<string, () => boolean>();
  private stopping = false;
  /** Waiting for `idle`. */
  private idlers: (() => void)[] = [];

  constructor(
    private readonly slots: Slots,
    private readonly work: Work,
  ) {}

  /** Reconcile `key` as soon as a slot is free (again after the running reconcile, if one runs). */
  add(key: string): void {
    if (this.stopping) return;
    if (this.running.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    const { granted, withdraw } = this.slots.request();
    this.waiting.set(key, withdraw);
    void granted.then((slot) => {
      if (this.waiting.get(key) === withdraw) this.waiting.delete(key);
      if (slot) void this.run(key);
    });
  }

  private async run(key: string): Promise<void> {
    this.queued.delete(key);
    this.running.add(key);
    try {
      const action = await this.work(key);
      if (action.kind === 'requeue') this.requeueAfter(key, action.afterMs);
    } finally {
      this.running.delete(key);
      this.slots.release();
      if (this.dirty.delete(key)) this.add(key);
      if (this.queued.size === 0 && this.running.size === 0) for (const idle of this.idlers.splice(0)) idle();
    }
  }

  /**
   * Settles once no key waits for a slot nor runs: after `stop()`, when this queue's running reconciles
   * have finished (a hash range's drain waits for its own queues, while the slots are the replica's).
   */
  idle(): Promise<void> {
    if (this.queued.size === 0 && this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idlers.push(resolve));
  }

  /** Reconcile `key` after `ms`; replaces the key's earlier timer. */
  requeueAfter(key: string, ms: number): void {
    if (this.stopping) return; // a timer left after stop() would only keep the process alive
    clearTimeout(this.timers.get(key));
    const timer = setTimeout(
      () => {
        this.timers.delete(key);
        this.add(key);
      },
      Math.max(0, ms),
    );
    this.timers.set(key, timer);
  }

  /** The key's object is gone: no timer for it any more. */
  forget(key: string): void {
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
  }

  /**
   * Keys with a reconcile still to start: waiting for a slot, due again after the running one (dirty), or
   * waiting for a requeue timer (a retry's backoff, a delay).
   */
  get pending(): number {
    return new Set([...this.queued, ...this.dirty, ...this.timers.keys()]).size;
  }

  /**
   * No new reconciles; running ones finish (wait for them with the slots' `drained`). Keys still
   * waiting for a slot leave the line and are not reconciled: their objects are the next holder's,
   * which lists them anew.
   */
  stop(): void {
    this.stopping = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const [key, withdraw] of this.waiting) if (withdraw()) this.queued.delete(key);
    this.waiting.clear();
    if (this.queued.size === 0 && this.running.size === 0) for (const idle of this.idlers.splice(0)) idle();
  }

  /** Keys waiting for a slot (the queue depth metric). */
  get depth(): number {
    return this.queued.size;
  }

  get stopped(): boolean {
    return this.stopping;
  }
}

/**
 * Consecutive failures per key, for the error policy's exponential backoff (controller-runtime's
 * ItemExponentialFailureRateLimiter: `When` counts, `Forget` resets after a success).
 */
export class FailureCounts {
  private readonly counts = new Map<string, number>();

  /** Counts one more failure of `key`; returns how many in a row, this one included. */
  failed(key: string): number {
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count;
  }

  /** The key succeeded (or is gone): its next failure backs off from the start. */
  reset(key: string): void {
    this.counts.delete(key);
  }

  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}
