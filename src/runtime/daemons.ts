/**
 * Daemons (kopf's @kopf.daemon, kopf/_core/engines/daemons.py): one long-running call per object
 * and daemon, started `initialDelay` after the object carries the operator's finalizer (so its
 * deletion cannot pass before the daemon is stopped). Its `signal` is aborted when the object's
 * deletion is marked or it is gone, when its filters stop matching, and when the term ends
 * (shutdown, lost lease). An object being deleted keeps its finalizer until each daemon has ended
 * (its result or error status written to `status.<id>`) or, past `cancellationTimeout` after the
 * abort, has been abandoned with a log line (kopf's `cancellation_timeout`); then the object is
 * requeued, and the reconcile releases it. A TemporaryError restarts the daemon after its delay;
 * a daemon that returns or fails for good is not restarted for that object in this process. Its
 * attempts are counted in memory for its life (kopf's daemon keeps one state): `ctx.retry` grows,
 * `ctx.started` stays the first attempt's, and `retries`/`timeout` end it with a permanent failure.
 */
import type { KubernetesObject } from './api/kube-types.js';
import type { RegisteredHandler } from './api/registry.js';
import { callSpawned, type SpawnedProgress } from './effects/handler-call.js';
import { logFailure, objectRef } from './effects/log.js';
import type { ResourceEnv } from './env.js';
import { messageOf } from './error-message.js';
import { matchesFilters } from './reconcile/filter-match.js';
import { recordSpawned, type SpawnHost } from './spawn-host.js';

/** kopf's default cancellation timeout is none (wait for ever); a bounded default keeps deletions moving. */
export const DEFAULT_CANCELLATION_TIMEOUT = 60;

interface Entry {
  handler: RegisteredHandler;
  stop: AbortController;
  /** Ended or abandoned: the object need not wait for it any more. */
  released: boolean;
  abandon?: NodeJS.Timeout;
  /** Settles when the entry is released. */
  whenReleased: Promise<void>;
  onReleased: () => void;
}

/** Sleeps `seconds`, or less if a signal aborts first. */
function pause(seconds: number, signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    if (signals.some((s) => s.aborted)) return resolve();
    const done = () => {
      clearTimeout(timer);
      for (const s of signals) s.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, seconds * 1000));
    for (const s of signals) s.addEventListener('abort', done, { once: true });
  });
}

export class Daemons {
  private readonly entries = new Map<string, Entry[]>();
  /** Entries not yet released, across objects: the term waits for them. */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly env: ResourceEnv,
    private readonly handlers: readonly RegisteredHandler[],
    private readonly host: SpawnHost,
    /** Called when the last daemon of a deleting (or gone) object is released: decide again. */
    private readonly released: (uid: string) => void,
  ) {}

  /** The newest state of an object: starts its daemons once it carries the finalizer, stops them on deletion. */
  seen(uid: string, body: KubernetesObject): void {
    if (this.handlers.length === 0) return;
    if (body.metadata?.deletionTimestamp) return this.cancel(uid, 'its deletion is marked');
    if (this.env.signal.aborted || !(body.metadata?.finalizers ?? []).includes(this.env.marks.finalizer)) return;
    const entries = this.entries.get(uid) ?? [];
    this.entries.set(uid, entries);
    for (const handler of this.handlers) {
      const entry = entries.find((e) => e.handler === handler);
      const matches = matchesFilters(handler.options, body);
      if (matches && !entry) this.start(uid, handler, entries);
      else if (!matches && entry && !entry.stop.signal.aborted) this.abort(uid, entry, 'its filters no longer match');
    }
  }

  /** Whether any daemon of the object has neither ended nor been abandoned: its finalizer must stay. */
  running(uid: string): boolean {
    return (this.entries.get(uid) ?? []).some((entry) => !entry.released);
  }

  /** Stops the object's daemons (deletion marked, object gone). */
  cancel(uid: string, why: string): void {
    for (const entry of this.entries.get(uid) ?? []) if (!entry.stop.signal.aborted) this.abort(uid, entry, why);
  }

  stopAll(why: string): void {
    for (const uid of this.entries.keys()) this.cancel(uid, why);
  }

  /** Resolves once every daemon has ended or been abandoned past its cancellation timeout. */
  async drained(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  private start(uid: string, handler: RegisteredHandler, entries: Entry[]): void {
    let onReleased = () => undefined as void;
    const whenReleased = new Promise<void>((resolve) => (onReleased = resolve));
    const entry: Entry = { handler, stop: new AbortController(), released: false, whenReleased, onReleased };
    entries.push(entry);
    this.pending.add(whenReleased);
    void this.run(uid, entry)
      .catch((error: unknown) => {
        logFailure(this.env, this.host.current(uid), uid, `daemon ${handler.id} failed: ${messageOf(error)}`);
      })
      .finally(() => this.release(uid, entry));
  }

  private async run(uid: string, entry: Entry): Promise<void> {
    const signals = [entry.stop.signal, this.env.signal];
    const stopped = () => signals.some((s) => s.aborted);
    await pause(entry.handler.daemon?.initialDelay ?? 0, signals);
    // one progress for the daemon's life (kopf's daemon `state`): its retries count up, its start stays
    let progress: SpawnedProgress | undefined;
    while (!stopped()) {
      const body = this.host.current(uid);
      if (!body) return;
      progress ??= { retries: 0, started: this.env.now() };
      const result = await callSpawned(this.env, entry.handler, body, entry.stop.signal, {}, progress);
      if (!result.cancelled) await recordSpawned(this.env, this.host, uid, entry.handler, result);
      if (result.outcome.kind !== 'temporary') return;
      progress = { ...progress, retries: progress.retries + 1 };
      await pause(result.outcome.delay ?? 0, signals);
    }
  }

  private abort(uid: string, entry: Entry, why: string): void {
    entry.stop.abort(new Error(`daemon stopped: ${why}`));
    if (entry.released) return this.release(uid, entry);
    const seconds = entry.handler.daemon?.cancellationTimeout ?? DEFAULT_CANCELLATION_TIMEOUT;
    entry.abandon = setTimeout(() => {
      if (entry.released) return;
      const body = this.host.current(uid);
      const name = body ? objectRef(body) : `uid ${uid}`;
      this.env.logger.warn(
        `${this.env.resource.plural} ${name}: daemon ${entry.handler.id} did not end within its cancellation timeout of ${seconds}s after ${why}; released without it`,
        { resource: this.env.resource.plural, handler: entry.handler.id },
      );
      this.release(uid, entry);
    }, seconds * 1000);
  }

  private release(uid: string, entry: Entry): void {
    clearTimeout(entry.abandon);
    const first = !entry.released;
    entry.released = true;
    entry.onReleased();
    this.pending.delete(entry.whenReleased);
    const entries = this.entries.get(uid) ?? [];
    // A stopped daemon is forgotten once released (a new match starts it again); one that ended by itself stays, not restarted.
    const index = entries.indexOf(entry);
    if (entry.stop.signal.aborted && index >= 0) entries.splice(index, 1);
    if (entries.length === 0) this.entries.delete(uid);
    if (first && !this.running(uid)) this.released(uid);
  }
}
