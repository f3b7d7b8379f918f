/**
 * A term's hold on writing (`KubeClient.fenced`): whether a write may leave the process now, until when a
 * write already sent is still covered by the term, and the signal that ends the term. client-go stops its
 * controllers when the lease is lost and runs a term's requests under the renew context; a JavaScript
 * handler cannot be stopped, so the client refuses the writes, bounds their timeouts by the renew deadline
 * and aborts what is still in flight when the term ends. Bytes already handed to TCP can still arrive
 * later: those are stopped by the resourceVersion precondition every outcome write carries (api-write.ts).
 */

export interface WriteFence {
  /** Why writes must not be sent now, or undefined when they may. */
  refuse(): string | undefined;
  /**
   * Monotonic time (`performance.now()`) at which the term's hold on writing ends unless renewed: a write's
   * timeout is cut to end there, so no request of the term is still waited for after it. Infinity: no bound.
   */
  deadline(): number;
  /** Aborts when the term ends: the term's requests still in flight are aborted, their sockets destroyed. */
  readonly signal: AbortSignal;
}

/**
 * The fence of one term: closed once, for good (a new term gets a new fence), by `close` or when any of
 * the fences it is laid over (`within`, e.g. the leader elector's hold on the lease) closes.
 */
export class TermFence implements WriteFence {
  private readonly controller = new AbortController();
  private reason: string | undefined;

  constructor(private readonly within: readonly WriteFence[] = []) {
    for (const outer of within) {
      if (outer.signal.aborted) this.close(outer.refuse() ?? 'the term ended');
      else outer.signal.addEventListener('abort', () => this.close(outer.refuse() ?? 'the term ended'), { once: true });
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Ends the term's writes: nothing more is sent, what is in flight is aborted. */
  close(reason: string): void {
    if (this.controller.signal.aborted) return;
    this.reason = reason;
    this.controller.abort(new Error(reason));
  }

  refuse(): string | undefined {
    if (this.reason !== undefined) return this.reason;
    for (const outer of this.within) {
      const refused = outer.refuse();
      if (refused !== undefined) return refused;
    }
    return undefined;
  }

  deadline(): number {
    let deadline = Infinity;
    for (const outer of this.within) deadline = Math.min(deadline, outer.deadline());
    return deadline;
  }
}
