/**
 * Timers (kopf's @kopf.timer, kopf/_core/engines/daemons.py `_timer`): per object and timer, a
 * first run `initialDelay` after the object is first seen, then one every `interval` — after the
 * previous run ended, or with `sharp` on the fixed schedule initialDelay + n × interval (runs the
 * previous one overlapped are skipped, as kopf does); with `idle`, never before the object has gone
 * unchanged that long. Runs never overlap: the next is scheduled when the previous has ended. A
 * run's result or error status lands in `status.<id>` (spawn-host.ts). Timers stop when the
 * object's deletion is marked, when it is gone, and when the term ends (shutdown, lost lease).
 * "Changed" means what the user controls changed (the essence: spec, labels, annotations), so a
 * timer's own status write does not reset its idle time.
 */
import type { KubernetesObject } from './api/kube-types.js';
import type { RegisteredHandler, TimerOptions } from './api/registry.js';
import { callSpawned } from './effects/handler-call.js';
import { logFailure } from './effects/log.js';
import type { ResourceEnv } from './env.js';
import { messageOf } from './error-message.js';
import { matchesFilters } from './reconcile/filter-match.js';
import { recordSpawned, type SpawnHost } from './spawn-host.js';

/** Milliseconds since the epoch. */
export interface TimerState {
  /** When this process first saw the object (the schedule's origin). */
  firstSeen: number;
  /** When the object's essence last changed (first sight included). */
  lastChange: number;
  /** When the last run ended; undefined before the first. */
  ended?: number;
}

/** When the timer is next due (ms since the epoch); pure. */
export function nextRun(options: TimerOptions, state: TimerState): number {
  const base = state.firstSeen + (options.initialDelay ?? 0) * 1000;
  const interval = options.interval * 1000;
  let due = base;
  if (state.ended !== undefined) {
    due = options.sharp ? base + (Math.floor((state.ended - base) / interval) + 1) * interval : state.ended + interval;
  }
  if (options.idle !== undefined) due = Math.max(due, state.lastChange + options.idle * 1000);
  return due;
}

interface Entry {
  handler: RegisteredHandler;
  options: TimerOptions;
  state: TimerState;
  stop: AbortController;
  timer?: NodeJS.Timeout;
  running?: Promise<void>;
}

export class Timers {
  private readonly entries = new Map<string, Entry[]>();
  /** Runs under way, also of timers already stopped (the term waits for them). */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly env: ResourceEnv,
    private readonly handlers: readonly RegisteredHandler[],
    private readonly host: SpawnHost,
  ) {}

  /** Whether a timer waits for idleness: only then must the controller tell changes (essence) apart. */
  get idle(): boolean {
    return this.handlers.some((handler) => handler.timer?.idle !== undefined);
  }

  /** The newest state of an object: starts its timers on first sight, stops them once its deletion is marked. */
  seen(uid: string, body: KubernetesObject): void {
    if (body.metadata?.deletionTimestamp) return this.stop(uid);
    if (this.handlers.length === 0 || this.env.signal.aborted || this.entries.has(uid)) return;
    const now = this.env.now().getTime();
    const started = this.handlers.flatMap((handler) => {
      if (!handler.timer) return [];
      const state = { firstSeen: now, lastChange: now };
      return [{ handler, options: handler.timer, state, stop: new AbortController() }];
    });
    this.entries.set(uid, started);
    for (const entry of started) this.schedule(uid, entry);
  }

  /** What the user controls of the object changed: an idle timer waits again from now. */
  changed(uid: string): void {
    const now = this.env.now().getTime();
    for (const entry of this.entries.get(uid) ?? []) {
      entry.state.lastChange = now;
      if (entry.options.idle !== undefined && !entry.running) this.schedule(uid, entry);
    }
  }

  /** No more runs for the object; a run under way is told through its signal. */
  stop(uid: string): void {
    for (const entry of this.entries.get(uid) ?? []) {
      clearTimeout(entry.timer);
      entry.stop.abort();
    }
    this.entries.delete(uid);
  }

  /** Timer runs scheduled and not yet started that would run (their filters match the object now). */
  get scheduled(): number {
    let count = 0;
    for (const [uid, entries] of this.entries) {
      const body = this.host.current(uid);
      for (const entry of entries) if (entry.timer && body && matchesFilters(entry.handler.options, body)) count++;
    }
    return count;
  }

  stopAll(): void {
    for (const uid of [...this.entries.keys()]) this.stop(uid);
  }

  /** Resolves once no run is under way. */
  async drained(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private schedule(uid: string, entry: Entry): void {
    clearTimeout(entry.timer);
    const delay = Math.max(0, nextRun(entry.options, entry.state) - this.env.now().getTime());
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      const running = this.tick(uid, entry).finally(() => {
        entry.running = undefined;
        this.inFlight.delete(running);
      });
      entry.running = running;
      this.inFlight.add(running);
    }, delay);
  }

  private async tick(uid: string, entry: Entry): Promise<void> {
    if (entry.stop.signal.aborted || this.env.signal.aborted) return;
    const body = this.host.current(uid);
    if (!body || body.metadata?.deletionTimestamp) return this.stop(uid);
    try {
      if (matchesFilters(entry.handler.options, body)) {
        const result = await callSpawned(this.env, entry.handler, body, entry.stop.signal);
        if (!result.cancelled) await recordSpawned(this.env, this.host, uid, entry.handler, result);
      }
    } catch (error) {
      logFailure(this.env, body, uid, `timer ${entry.handler.id} failed: ${messageOf(error)}`);
    }
    entry.state.ended = this.env.now().getTime();
    if (!entry.stop.signal.aborted && !this.env.signal.aborted) this.schedule(uid, entry);
  }
}
