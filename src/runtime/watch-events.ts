/**
 * `onEvent` handlers (kopf's @kopf.on.event): every raw watch event of a matching object, in the
 * order the watch delivered them per object, with no progress record, no status write and no
 * retry; an error is logged and the next event comes regardless. An object delivered by a
 * (re)list has no event type, as in kopf. Calls for one object run one after another; calls for
 * different objects run side by side, outside the reconcile slots (they write nothing).
 */
import type { EventContext, WatchEventType } from './api/event-context.js';
import type { KubernetesObject } from './api/kube-types.js';
import type { Memo } from './api/memo.js';
import type { RegisteredHandler } from './api/registry.js';
import { handlerClient } from './effects/handler-call.js';
import { childLogger, logFailure, objectRef } from './effects/log.js';
import type { ResourceEnv } from './env.js';
import { messageOf } from './error-message.js';
import { clone } from './json.js';
import { matchesFilters } from './reconcile/filter-match.js';
import { uidOf } from './store.js';

export class WatchEvents {
  /** The last call queued per object: the next one runs after it. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly env: ResourceEnv,
    private readonly handlers: readonly RegisteredHandler[],
  ) {}

  deliver(body: KubernetesObject, type: WatchEventType | undefined): void {
    if (this.handlers.length === 0) return;
    const uid = uidOf(body);
    const previous = this.chains.get(uid) ?? Promise.resolve();
    const copy = clone(body); // now: the store trims the object it keeps
    // now too: a DELETED event's object is forgotten (its memo dropped) before the call runs
    const memo = this.env.memos?.of(uid) ?? {};
    const next = previous.then(() => this.call(uid, copy, type, memo));
    this.chains.set(uid, next);
    void next.finally(() => {
      if (this.chains.get(uid) === next) this.chains.delete(uid);
    });
  }

  /** Resolves once every queued call has run. */
  async drained(): Promise<void> {
    await Promise.allSettled([...this.chains.values()]);
  }

  private async call(uid: string, body: KubernetesObject, type: WatchEventType | undefined, memo: Memo): Promise<void> {
    const meta = body.metadata ?? {};
    for (const handler of this.handlers) {
      try {
        if (!matchesFilters(handler.options, body)) continue;
        // the start gate (start-gate.ts): a replica whose hold lapsed calls no handler; the event is not its
        if (this.env.gate?.refuse(uid)) return;
        const context: EventContext<unknown> = {
          type,
          body,
          meta,
          name: String(meta.name),
          namespace: meta.namespace,
          uid,
          logger: childLogger(this.env.logger, `${objectRef(body)} ${handler.id}`),
          client: handlerClient(this.env, body, this.env.signal),
          memo,
        };
        await handler.fn(context as never);
      } catch (error) {
        logFailure(
          this.env,
          body,
          uid,
          `event handler ${handler.id} failed (${type ?? 'listed'}): ${messageOf(error)}`,
        );
      }
    }
  }
}
