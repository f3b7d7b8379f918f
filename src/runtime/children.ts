/**
 * `child` handlers (`onChild`): a change to, or the deletion of, an object the handled one controls (a
 * controller owner reference, ownership.ts) runs the owner's handler for it, with the owner's context
 * and status type and the owned object (controller-runtime's `Owns()`, which enqueues the owner; kube-rs
 * `Controller::owns`). kopf has no such cause: its users write an `on.event` handler on the child kind and
 * an index to find the owner; here the owner's handler is woken directly and its result lands in
 * `status.<id>` like a timer's (spawn-host.ts), so a Deployment's readiness is mirrored into the owner's
 * status with the owner's status type, and a deleted child can be made again (drift repair).
 *
 * Runs are per owner and handler (kube-rs's per-object deduplication, kopf's batch window): never two at
 * once, so a later run always sees what an earlier one did and its status is written after it (a stale
 * "Repairing" cannot overtake "Deploying"). News that arrives while one runs waits as the newest state of
 * each child (the watch's events in between carry nothing the newest lacks); the next run calls the
 * handler once per changed child, in the order the news came, each call with its child and the names of
 * every child of the run (`changedChildren`), and writes the merged result once, or not at all when it
 * changes nothing. A burst of N child events is a few runs and a few writes, not N writes racing on the
 * owner's status. Runs take a slot of the operator's concurrency (queue.ts `Slots`, lent out while a
 * handler runs long, as a reconcile's), so child work is bounded with the rest and leaves the event loop
 * to the lease renewal. A result write that meets a newer state backs off and is written on the newest
 * (spawn-host.ts `writeOnNewest`); any other failure goes through the error policy and the run's news is
 * handed to a later run after its delay: a result is written or its run retried, never dropped.
 *
 * Nothing runs for an owner the operator does not handle (not in its store, filtered out) or whose
 * deletion is marked (its children are going away with it: nothing is made again). The owned kind's
 * watch may list before the owners' does: news of an owner not known yet is kept until the owners'
 * first list is complete, then delivered (controller-runtime enqueues the owner's key instead).
 */
import { setMaxListeners } from 'node:events';
import type { ChildEvent } from './api/context.js';
import type { KubernetesObject } from './api/kube-types.js';
import type { RegisteredHandler } from './api/registry.js';
import { warn } from './effects/events.js';
import { callSpawned } from './effects/handler-call.js';
import { logFailure } from './effects/log.js';
import type { ResourceEnv } from './env.js';
import { errorPolicy } from './error-policy.js';
import { applyMergePatch, deepEqual } from './json.js';
import { describe } from './kube/client.js';
import type { Slots } from './queue.js';
import type { Outcome } from './reconcile/outcome.js';
import { combinePatches, type ObjectPatch } from './reconcile/patches.js';
import { matchesFilters } from './reconcile/filter-match.js';
import { reportSpawned, writeOnNewest, type SpawnHost } from './spawn-host.js';

/** One owned object's newest news. */
export interface ChildNews {
  /** `describe()` of the owned kind. */
  kind: string;
  uid: string;
  name: string;
  /** Undefined for a cluster-scoped kind. */
  namespace?: string;
  event: ChildEvent;
  /** Undefined when it was deleted. */
  object: KubernetesObject | undefined;
}

/** One owner and handler's work: the news no run has taken yet (newest per child, in arrival order). */
interface Slot {
  pending: Map<string, ChildNews>;
  /** The newest news of each child queued while the slot lives: a retry of older news is dropped. */
  latest: Map<string, ChildNews>;
  running: Promise<void> | undefined;
  /** Retries waiting for their delay (the slot lives until they are due). */
  waiting: number;
  /** Consecutive failed runs, for the error policy's backoff. */
  failures: number;
}

/** Seconds before a child handler that failed for now runs again, when neither it nor its options say (kopf's 60). */
export const DEFAULT_CHILD_BACKOFF = 60;

/** A handler call running past this long lends its slot out (as a reconcile's, controller.ts `LEND_AFTER_MS`). */
const LEND_AFTER_MS = 200;

/**
 * The handlers news of an owned object of `kind` runs for its owner `body`: those registered for the kind
 * whose filters match the owner (the filters are the owner's, as every registration's of its resource).
 */
export function childHandlersFor(
  handlers: readonly RegisteredHandler[],
  kind: string,
  body: KubernetesObject,
): RegisteredHandler[] {
  return handlers.filter(
    (handler) =>
      handler.child !== undefined && describe(handler.child) === kind && matchesFilters(handler.options, body),
  );
}

/**
 * What a child handler's context adds to its owner's: the owned object (undefined once deleted), the event,
 * its name and namespace, and the names of every child the run was woken for (this one when alone).
 */
export function childContext(
  news: Pick<ChildNews, 'object' | 'event' | 'name' | 'namespace'>,
  changed: readonly string[] = [news.name],
): Record<string, unknown> {
  return {
    child: news.object,
    childEvent: news.event,
    childName: news.name,
    childNamespace: news.namespace,
    changedChildren: changed,
  };
}

/** A run's calls, folded: the merged patch, and each call's outcome to report once it is written. */
interface Folded {
  patch: ObjectPatch;
  outcomes: { handler: RegisteredHandler; outcome: Outcome; news: ChildNews }[];
  /** News whose call failed for now, to run again after its delay (seconds). */
  again: { news: ChildNews; delay: number }[];
}

export class Children {
  private readonly slots = new Map<string, Slot>();
  private readonly stop = new AbortController();
  /** Runs waiting to retry (a handler's temporary failure, a failed write), cleared on stop. */
  private readonly timers = new Set<NodeJS.Timeout>();
  /**
   * News that arrived before the owners' first list was complete (the owned kind's watch may list first),
   * by owner and child: delivered again once it is, when the owner turned out to be handled.
   */
  private early: Map<string, { owner: string; news: ChildNews }> | undefined = new Map();

  constructor(
    private readonly env: ResourceEnv,
    private readonly handlers: readonly RegisteredHandler[],
    private readonly host: SpawnHost,
    /** The operator's concurrency, shared with reconciles. */
    private readonly concurrency: Slots,
  ) {
    setMaxListeners(0, this.stop.signal); // one listener per handler call, by design
  }

  /** The owned kinds these handlers watch. */
  kinds(): Set<string> {
    return new Set(this.handlers.flatMap((handler) => (handler.child ? [describe(handler.child)] : [])));
  }

  /** News of an object `owner` controls: queued for each matching handler's next run (newest per child). */
  deliver(owner: string, news: ChildNews): void {
    if (this.stopped) return;
    const body = this.host.current(owner);
    if (!body && this.early) this.early.set(`${owner}\u0000${news.uid}`, { owner, news });
    if (!body || body.metadata?.deletionTimestamp) return;
    // An owner reference names an object of the dependent's own namespace (the garbage collector reads it
    // so): one written by hand to point elsewhere is not this owner's child.
    const ns = body.metadata?.namespace;
    if (ns !== undefined && news.namespace !== undefined && news.namespace !== ns) return;
    for (const handler of childHandlersFor(this.handlers, news.kind, body)) this.queue(owner, handler, news);
  }

  private get stopped(): boolean {
    return this.stop.signal.aborted || this.env.signal.aborted;
  }

  private queue(owner: string, handler: RegisteredHandler, news: ChildNews): void {
    const key = `${owner}\u0000${handler.id}`;
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { pending: new Map(), latest: new Map(), running: undefined, waiting: 0, failures: 0 };
      this.slots.set(key, slot);
    }
    slot.pending.delete(news.uid); // the newest news goes last, as it came
    slot.pending.set(news.uid, news);
    slot.latest.set(news.uid, news);
    if (slot.running) return;
    const started = slot;
    started.running = this.drain(owner, handler, started).finally(() => {
      started.running = undefined;
      this.settle(key, started);
    });
  }

  /** Forgets an idle slot (nothing pending, running or waiting to retry). */
  private settle(key: string, slot: Slot): void {
    if (slot.pending.size === 0 && !slot.running && slot.waiting === 0 && this.slots.get(key) === slot)
      this.slots.delete(key);
  }

  /** Runs until no news waits, each run under a slot of the operator's concurrency. */
  private async drain(owner: string, handler: RegisteredHandler, slot: Slot): Promise<void> {
    await Promise.resolve(); // the slot is registered before the first run starts
    while (slot.pending.size > 0 && !this.stopped) {
      await this.concurrency.acquire();
      try {
        if (this.stopped) return;
        const batch = [...slot.pending.values()];
        slot.pending.clear();
        await this.run(owner, handler, slot, batch).catch((error: unknown) =>
          this.failed(owner, handler, slot, batch, error, 'running'),
        );
      } finally {
        this.concurrency.release();
      }
    }
  }

  /** One run: the handler once per child of `batch`, then one write of the merged results. */
  private async run(owner: string, handler: RegisteredHandler, slot: Slot, batch: ChildNews[]): Promise<void> {
    const changed = batch.map((news) => news.name);
    const folded: Folded = { patch: {}, outcomes: [], again: [] };
    for (const news of batch) {
      const body = this.host.current(owner);
      if (!body || body.metadata?.deletionTimestamp || this.stopped) return;
      const call = callSpawned(this.env, handler, body, this.stop.signal, childContext(news, changed));
      const result = await this.concurrency.around(call, LEND_AFTER_MS);
      if (result.cancelled) return;
      folded.patch = combinePatches(folded.patch, result.patch);
      folded.outcomes.push({ handler, outcome: result.outcome, news });
      if (result.outcome.kind === 'temporary')
        folded.again.push({ news, delay: result.outcome.delay ?? handler.options.backoff ?? DEFAULT_CHILD_BACKOFF });
    }
    const body = this.host.current(owner);
    if (!body) return; // gone: nothing to write to
    try {
      // the same status again (a child's readiness unchanged) is not written again
      if (!deepEqual(applyMergePatch(body, folded.patch), body)) {
        if (!(await writeOnNewest(this.env, this.host, owner, body, folded.patch))) return;
      }
    } catch (error) {
      this.failed(owner, handler, slot, batch, error, 'writing the result of');
      return;
    }
    slot.failures = 0;
    for (const { outcome } of folded.outcomes) reportSpawned(this.env, body, handler, outcome);
    for (const { news, delay } of folded.again) this.later(owner, handler, slot, [news], delay * 1000);
  }

  /**
   * A run that failed outside the handler's own outcome (its result write, after the write retry policy;
   * anything else thrown): the error policy decides the delay, the Event and the log line, and the run's
   * news is handed to a later run.
   */
  private failed(
    owner: string,
    handler: RegisteredHandler,
    slot: Slot,
    batch: readonly ChildNews[],
    error: unknown,
    doing: string,
  ): void {
    if (this.stopped) return;
    const body = this.host.current(owner);
    slot.failures++;
    const decision = errorPolicy({
      error,
      resource: this.env.resource,
      object: body,
      failures: slot.failures,
      now: this.env.now(),
      backoff: this.env.backoff,
    });
    const what = `${doing} child handler ${handler.id} (${batch.length} children)`;
    logFailure(this.env, body, owner, `${what} failed, running it again: ${decision.log}`);
    if (body) warn(this.env, body, decision.event.reason, decision.event.message);
    this.later(owner, handler, slot, batch, decision.delayMs);
  }

  /** Hands `batch` to a run after `ms`, each child's news unless newer news of it came meanwhile. */
  private later(owner: string, handler: RegisteredHandler, slot: Slot, batch: readonly ChildNews[], ms: number): void {
    if (this.stopped) return;
    const key = `${owner}\u0000${handler.id}`;
    slot.waiting++;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      slot.waiting--;
      const body = this.host.current(owner);
      if (!this.stopped && body && !body.metadata?.deletionTimestamp)
        for (const news of batch) if (slot.latest.get(news.uid) === news) this.queue(owner, handler, news);
      this.settle(key, slot);
    }, ms);
    this.timers.add(timer);
  }

  /** The owners' first list is complete: news kept from before it is delivered now (to owners now known). */
  ownersListed(): void {
    const early = this.early;
    this.early = undefined;
    for (const { owner, news } of early?.values() ?? []) this.deliver(owner, news);
  }

  stopAll(): void {
    this.stop.abort(new Error('the operator stops leading'));
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** Resolves once no run is under way. */
  async drained(): Promise<void> {
    await Promise.allSettled([...this.slots.values()].map((slot) => slot.running));
  }
}
