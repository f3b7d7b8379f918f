/**
 * `child` handlers (`onChild`): a change to, or the deletion of, an object the handled one controls (a
 * controller owner reference, ownership.ts) runs the owner's handler for it, with the owner's context
 * and status type and the owned object (controller-runtime's `Owns()`, which enqueues the owner; kube-rs
 * `Controller::owns`). kopf has no such cause: its users write an `on.event` handler on the child kind and
 * an index to find the owner; here the owner's handler is woken directly and its result lands in
 * `status.<id>` like a timer's (spawn-host.ts), so a Deployment's readiness is mirrored into the owner's
 * status with the owner's status type, and a deleted child can be made again (drift repair).
 *
 * Runs are per owner, handler and owned object: never two at once, and changes that arrive while one runs
 * are coalesced into one more run with the newest state (the watch's events in between carry nothing the
 * newest lacks). Nothing runs for an owner the operator does not handle (not in its store, filtered out)
 * or whose deletion is marked (its children are going away with it: nothing is made again). The owned
 * kind's watch may list before the owners' does: news of an owner not known yet is kept until the
 * owners' first list is complete, then delivered (controller-runtime enqueues the owner's key instead).
 */
import { setMaxListeners } from 'node:events';
import type { ChildEvent } from './api/context.js';
import type { KubernetesObject } from './api/kube-types.js';
import type { RegisteredHandler } from './api/registry.js';
import { callSpawned } from './effects/handler-call.js';
import { logFailure } from './effects/log.js';
import type { ResourceEnv } from './env.js';
import { messageOf } from './error-message.js';
import { describe } from './kube/client.js';
import { matchesFilters } from './reconcile/filter-match.js';
import { recordSpawned, type SpawnHost } from './spawn-host.js';

/** One owned object's newest news. */
export interface ChildNews {
  /** `describe()` of the owned kind. */
  kind: string;
  uid: string;
  name: string;
  event: ChildEvent;
  /** Undefined when it was deleted. */
  object: KubernetesObject | undefined;
}

interface Slot {
  /** The news not yet handed to a run. */
  next?: ChildNews;
  running: Promise<void>;
}

/** Seconds before a child handler that failed for now runs again, when neither it nor its options say (kopf's 60). */
export const DEFAULT_CHILD_BACKOFF = 60;

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

/** What a child handler's context adds to its owner's: the owned object (undefined once deleted), the event, its name. */
export function childContext(news: Pick<ChildNews, 'object' | 'event' | 'name'>): Record<string, unknown> {
  return { child: news.object, childEvent: news.event, childName: news.name };
}

export class Children {
  private readonly slots = new Map<string, Slot>();
  private readonly stop = new AbortController();
  /**
   * News that arrived before the owners' first list was complete (the owned kind's watch may list first),
   * by owner and child: delivered again once it is, when the owner turned out to be handled.
   */
  private early: Map<string, { owner: string; news: ChildNews }> | undefined = new Map();

  constructor(
    private readonly env: ResourceEnv,
    private readonly handlers: readonly RegisteredHandler[],
    private readonly host: SpawnHost,
  ) {
    setMaxListeners(0, this.stop.signal); // one listener per run waiting to retry, by design
  }

  /** The owned kinds these handlers watch. */
  kinds(): Set<string> {
    return new Set(this.handlers.flatMap((handler) => (handler.child ? [describe(handler.child)] : [])));
  }

  /** News of an object `owner` controls: runs each matching handler with it (coalesced per object). */
  deliver(owner: string, news: ChildNews): void {
    if (this.stop.signal.aborted || this.env.signal.aborted) return;
    const body = this.host.current(owner);
    if (!body && this.early) this.early.set(`${owner}\u0000${news.uid}`, { owner, news });
    if (!body || body.metadata?.deletionTimestamp) return;
    for (const handler of childHandlersFor(this.handlers, news.kind, body)) {
      const key = `${owner}\u0000${handler.id}\u0000${news.uid}`;
      const slot = this.slots.get(key);
      if (slot) {
        slot.next = news;
        continue;
      }
      const started: Slot = { next: news, running: Promise.resolve() };
      started.running = this.drain(owner, handler, started).finally(() => this.slots.delete(key));
      this.slots.set(key, started);
    }
  }

  /**
   * Runs the handler until no news waits. A temporary failure runs it again with the same news after its
   * delay (the handler's backoff when it gave none), unless newer news came meanwhile.
   */
  private async drain(owner: string, handler: RegisteredHandler, slot: Slot): Promise<void> {
    await Promise.resolve(); // the slot is registered before the first run starts
    while (slot.next && !this.stop.signal.aborted && !this.env.signal.aborted) {
      const news = slot.next;
      slot.next = undefined;
      const body = this.host.current(owner);
      if (!body || body.metadata?.deletionTimestamp) return;
      try {
        const result = await callSpawned(this.env, handler, body, this.stop.signal, childContext(news));
        if (result.cancelled) return;
        await recordSpawned(this.env, this.host, owner, handler, result);
        if (result.outcome.kind === 'temporary') {
          await this.sleep(result.outcome.delay ?? handler.options.backoff ?? DEFAULT_CHILD_BACKOFF);
          slot.next ??= news;
        }
      } catch (error) {
        const what = `child handler ${handler.id} for ${news.kind} ${news.name}`;
        logFailure(this.env, body, owner, `${what} failed: ${messageOf(error)}`);
      }
    }
  }

  private sleep(seconds: number): Promise<void> {
    const signal = this.stop.signal;
    return new Promise((resolve) => {
      const woken = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', woken);
        resolve();
      }, seconds * 1000);
      signal.addEventListener('abort', woken, { once: true });
    });
  }

  /** The owners' first list is complete: news kept from before it is delivered now (to owners now known). */
  ownersListed(): void {
    const early = this.early;
    this.early = undefined;
    for (const { owner, news } of early?.values() ?? []) this.deliver(owner, news);
  }

  stopAll(): void {
    this.stop.abort(new Error('the operator stops leading'));
  }

  /** Resolves once no run is under way. */
  async drained(): Promise<void> {
    await Promise.allSettled([...this.slots.values()].map((slot) => slot.running));
  }
}
