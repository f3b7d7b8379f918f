/**
 * One resource's controller: wires the watcher's steps into the store, the store's changes
 * into the queue, the queue to the reconciler, and any reconcile failure through the one
 * error policy (kube-rs `Controller::run(reconcile, error_policy)`). Serial per object,
 * concurrent across objects up to the slots shared by every resource. A write refused by the term's
 * fence (the lease is lost) ends the reconcile without retry: the new leader owns the object now.
 */
import type { RegisteredHandler } from './api/registry.js';
import type { ResourceDescriptor } from './api/define.js';
import type { KubernetesObject } from './api/kube-types.js';
import { warn } from './effects/events.js';
import { logFailure } from './effects/log.js';
import type { ResourceEnv } from './env.js';
import { errorPolicy } from './error-policy.js';
import { FencedError } from './kube/client.js';
import { FailureCounts, Queue, type Action, type Slots } from './queue.js';
import { Reconciler } from './reconcile/reconciler.js';
import { Store, uidOf } from './store.js';
import type { WatchConsumer } from './watcher.js';
import { Daemons } from './daemons.js';
import { Timers } from './timers.js';
import { Children, type ChildNews } from './children.js';
import { WatchEvents } from './watch-events.js';
import type { SpawnHost } from './spawn-host.js';
import { buildEssence } from './reconcile/essence.js';
import { deepEqual } from './json.js';
import { startRefusal } from './start-gate.js';

/**
 * A handler still running after this long gives its slot to other objects until it returns (no
 * head-of-line blocking): longer than a trivial handler and a write take, short enough that a few
 * slow handlers never stall the rest.
 */
export const LEND_AFTER_MS = 200;

/**
 * The fence's refusal, also where it comes wrapped (a handler's write fails as RequestFailed inside
 * HandlerStepFailed): it is no failure of the object, so it must not count as an attempt or post an Event.
 */
function fencedWrite(error: unknown): FencedError | undefined {
  let current = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof FencedError) return current;
    current = current.cause;
  }
  return undefined;
}

export class Controller implements WatchConsumer {
  readonly store = new Store();
  private readonly queue: Queue;
  private readonly reconciler: Reconciler;
  private readonly failures = new FailureCounts();
  private readonly events: WatchEvents;
  private readonly timers: Timers;
  private readonly daemons: Daemons;
  private readonly children: Children;

  constructor(
    private readonly env: ResourceEnv,
    handlers: readonly RegisteredHandler[],
    slots: Slots,
  ) {
    this.queue = new Queue(slots, (uid) => this.work(uid));
    const hooks = {
      gone: (uid: string) => this.forget(uid),
      stopping: () => this.queue.stopped,
      daemonsRunning: (uid: string) => this.daemons.running(uid),
      long: <T>(run: Promise<T>) => slots.around(run, LEND_AFTER_MS),
    };
    this.reconciler = new Reconciler(env, handlers, this.store, hooks);
    const host: SpawnHost = {
      current: (uid) => this.store.get(uid),
      adopt: (uid, answer) => (answer ? this.store.adopt(uid, answer) : this.forget(uid)),
    };
    const of = (cause: RegisteredHandler['cause']) => handlers.filter((h) => h.cause === cause);
    this.events = new WatchEvents(env, of('event'));
    this.timers = new Timers(env, of('timer'), host);
    this.daemons = new Daemons(env, of('daemon'), host, (uid) => this.queue.add(uid));
    this.children = new Children(env, of('child'), host, slots);
  }

  /** The owned kinds (`describe()`) this resource's child handlers watch. */
  ownedKinds(): Set<string> {
    return this.children.kinds();
  }

  /** News of an object that `owner` (a uid of this resource) controls: its child handlers run. */
  childChanged(owner: string, news: ChildNews): void {
    if (this.queue.stopped) return;
    this.children.deliver(owner, news);
  }

  upsert(body: KubernetesObject, event?: 'ADDED' | 'MODIFIED'): void {
    this.events.deliver(body, event);
    const before = this.timers.idle ? this.store.get(uidOf(body)) : undefined;
    const uid = this.store.apply(body);
    if (uid === undefined) return;
    if (before && !deepEqual(buildEssence(before, this.env.marks), buildEssence(body, this.env.marks))) {
      this.timers.changed(uid);
    }
    this.queue.add(uid);
  }

  delete(body: KubernetesObject): void {
    this.events.deliver(body, 'DELETED');
    this.forget(uidOf(body));
  }

  /** Resolves once no timer run, daemon or event handler of this controller is under way. */
  async drained(): Promise<void> {
    await Promise.all([this.timers.drained(), this.daemons.drained(), this.events.drained(), this.children.drained()]);
  }

  /** Resolves once, besides `drained`, no reconcile of this controller waits for a slot or runs (after `stop`). */
  async idle(): Promise<void> {
    await Promise.all([this.queue.idle(), this.drained()]);
  }

  get resource(): ResourceDescriptor {
    return this.env.resource;
  }

  /** Objects waiting for a slot. */
  get depth(): number {
    return this.queue.depth;
  }

  listed(uids: Set<string>): void {
    for (const uid of this.store.retain(uids)) this.forget(uid);
    this.children.ownersListed();
  }

  /**
   * No new reconciles; running ones finish (the operator waits for the shared slots to drain). Returns how
   * many starts were still queued (reconciles waiting for a slot or a requeue, timer runs scheduled): work
   * left to the next holder.
   */
  stop(): number {
    const left = this.queue.stopped ? 0 : this.queue.pending + this.timers.scheduled;
    this.queue.stop();
    this.timers.stopAll();
    this.daemons.stopAll('the operator stops leading');
    this.children.stopAll();
    return left;
  }

  /** Starts or stops the object's timers and daemons for its newest known state. */
  private spawn(uid: string): void {
    const body = this.store.get(uid);
    if (!body || this.queue.stopped) return;
    this.timers.seen(uid, body);
    this.daemons.seen(uid, body);
  }

  private forget(uid: string): void {
    this.timers.stop(uid);
    this.daemons.cancel(uid, 'it is gone');
    this.store.delete(uid);
    this.env.memos?.forget(uid);
    this.queue.forget(uid);
    this.reconciler.forget(uid);
    this.failures.reset(uid);
  }

  /**
   * A reconcile that returns resets the object's backoff unless records of a failed attempt
   * still wait to be written; a failure goes through the error policy, which says when to try
   * again, what the failing handler's record becomes, the Event and the one log line.
   */
  private async work(uid: string): Promise<Action> {
    try {
      this.spawn(uid); // a deletion stops the daemons before the delete handlers run
      const action = await this.reconciler.reconcile(uid);
      this.spawn(uid); // e.g. the finalizer a daemon waits for was just added
      if (!this.reconciler.holding(uid)) this.failures.reset(uid);
      return action;
    } catch (error) {
      const refused = startRefusal(error);
      if (refused) {
        // The start gate refused the handler (the hold lapsed): the object is left as the cluster holds it.
        this.env.logger.debug(`${refused.message}; left to the next holder`, {
          resource: this.env.resource.plural,
          uid,
        });
        return { kind: 'done' };
      }
      const fenced = fencedWrite(error);
      if (fenced) {
        // The term is over and another replica leads: it handles the object from what the cluster holds.
        this.env.logger.warn(`${fenced.message}; left to the new leader`, { resource: this.env.resource.plural, uid });
        return { kind: 'done' };
      }
      const object = this.store.get(uid);
      const failures = this.failures.failed(uid);
      const decision = errorPolicy({
        error,
        resource: this.env.resource,
        object,
        failures,
        now: this.env.now(),
        backoff: this.env.backoff,
      });
      if (decision.handler) this.reconciler.hold(uid, decision.handler.key, decision.handler.record);
      logFailure(this.env, object, uid, decision.log);
      if (object) warn(this.env, object, decision.event.reason, decision.event.message);
      return decision.action;
    }
  }
}
