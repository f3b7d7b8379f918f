/**
 * Sub-handlers, the effect (kopf's `kopf.register`/`kopf.execute` inside a handler,
 * reactor/subhandling.py): the registrations a parent's attempt makes through its context, and the run
 * of the one sub-handler `decideSubhandler` (reconcile/subhandler-decision.ts) picks: its context, its
 * attempt, what it came to and the patch recording it (its own progress record, what it returned merged
 * into the parent's `status.<id>`). The parent's attempt then ends as kopf's does: it returns once every
 * sub-handler has finished, else it throws `SubhandlersPending` (kopf's HandlerChildrenRetry) and runs
 * again after the delay; a sub-handler that failed for good fails the parent for good.
 */
import type { HandlerContext } from '../api/context.js';
import { PermanentError, TemporaryError, isHandlerError } from '../api/errors.js';
import type { KubernetesObject } from '../api/kube-types.js';
import type { SubhandlerOptions } from '../api/subhandler-api.js';
import type { ResourceEnv } from '../env.js';
import { messageOf } from '../error-message.js';
import { recordAttempt } from '../observe/handler-metrics.js';
import type { RunStep } from '../reconcile/decide.js';
import { applyLimits, classify, nextRecord, type Attempt, type Outcome } from '../reconcile/outcome.js';
import { emptyPatch, outcomePatch, type ObjectPatch } from '../reconcile/patches.js';
import { readProgress, type ProgressRecord } from '../reconcile/progress.js';
import { decideSubhandler, parentDelay, type SubhandlerStep } from '../reconcile/subhandler-decision.js';
import { childLogger, objectRef } from './log.js';

type Context = HandlerContext<unknown, unknown, unknown>;
type SubFn = (context: Context) => unknown;

interface Registered {
  id: string;
  fn: SubFn;
  options: SubhandlerOptions;
}

/** One sub-handler attempt made during the parent's: `id` is `<parent id>/<sub id>`, as logged. */
export interface SubhandlerAttempt {
  id: string;
  outcome: Outcome;
  patch: ObjectPatch;
}

/** The parent's attempt waits for its sub-handlers: it runs again after `delay` seconds. */
export class SubhandlersPending extends TemporaryError {
  constructor(delay: number) {
    super('sub-handlers not finished yet', { delay });
  }
}

/** Whether the parent's attempt ended waiting for its sub-handlers. */
export function isPending(attempt: Attempt): boolean {
  return !attempt.ok && attempt.error instanceof SubhandlersPending;
}

/**
 * The sub-handlers of one attempt of a changing handler. `extend` gives the handler's context its
 * `subhandler`/`execute`, `wrap` the handler's function the implicit execution after it returns (kopf
 * runs the registered sub-handlers when the handler did not call `execute`), `attempts` what ran.
 */
export class SubhandlerRun {
  /** Every id registered in this attempt (ids are unique within the handler). */
  private readonly registered: Registered[] = [];
  /** Those registered through `ctx.subhandler`: run after the handler returns unless `execute()` ran them. */
  private readonly declared: Registered[] = [];
  private executed = false;
  readonly attempts: SubhandlerAttempt[] = [];

  constructor(
    private readonly env: ResourceEnv,
    private readonly step: RunStep,
    private readonly body: KubernetesObject,
    /** The object as decide reads it (records.ts's view): the sub-handlers' records as annotations. */
    private readonly records: KubernetesObject,
    /** handler-call.ts's `unserialisable` (passed in: that module imports this one). */
    private readonly unserialisable: (value: unknown) => string | undefined,
  ) {}

  extend(context: Context): Context {
    const subhandler = (id: string, fn: SubFn, options: SubhandlerOptions = {}) =>
      void this.declared.push(this.register(id, fn, options));
    // As kopf's `execute`: with `fns`, those (the declared ones still run after the handler returns);
    // without, the declared ones, now and only now.
    const execute = async (fns?: Readonly<Record<string, SubFn>>) => {
      if (fns !== undefined)
        return this.run(
          context,
          Object.entries(fns).map(([id, fn]) => this.register(id, fn, {})),
        );
      if (this.executed) return;
      this.executed = true;
      return this.run(context, this.declared);
    };
    return Object.assign(context, { subhandler, execute });
  }

  wrap(fn: (context: never) => unknown): (context: Context) => Promise<unknown> {
    return async (context) => {
      const value = await fn(context as never);
      if (!this.executed && this.declared.length > 0) {
        this.executed = true;
        await this.run(context, this.declared);
      }
      return value;
    };
  }

  /** A registration; a missing or repeated id is the handler's own error, for good (no retry mends it). */
  private register(id: string, fn: SubFn, options: SubhandlerOptions): Registered {
    const parent = this.step.handler.id;
    if (typeof id !== 'string' || id === '') throw new PermanentError(`a sub-handler of ${parent} needs an id`);
    if (this.registered.some((r) => r.id === id))
      throw new PermanentError(`sub-handler ${parent}/${id} is registered twice`);
    const entry = { id, fn, options };
    this.registered.push(entry);
    return entry;
  }

  private decide(entries: readonly Registered[], overrides: ReadonlyMap<string, ProgressRecord>): SubhandlerStep {
    return decideSubhandler({
      parentKey: this.step.key,
      cause: this.step.cause,
      subhandlers: entries,
      records: (key) => overrides.get(key) ?? readProgress(this.records, key, this.env.marks),
      now: this.env.now(),
    });
  }

  /** kopf's `execute`: one due sub-handler of `entries` runs; returns once all have finished, else throws. */
  private async run(context: Context, entries: readonly Registered[]): Promise<void> {
    const step = this.decide(entries, new Map());
    const written = new Map<string, ProgressRecord>();
    if (step.kind === 'run' || step.kind === 'fail') {
      const entry = entries.find((e) => e.id === step.id);
      if (entry) {
        const record = await this.attempt(context, entry, step);
        written.set(step.key, record);
      }
    }
    const after = this.decide(entries, written);
    if (after.kind === 'done') {
      if (after.failures.length === 0) return;
      const named = after.failures.map((f) => `${this.step.handler.id}/${f.id} (${f.message})`).join(', ');
      throw new PermanentError(`sub-handler(s) failed for good: ${named}`);
    }
    throw new SubhandlersPending(parentDelay(after, this.env.now()) ?? 0);
  }

  /** One attempt of a sub-handler (or its failure without one, when its limits ran out); returns its record. */
  private async attempt(
    context: Context,
    entry: Registered,
    step: Extract<SubhandlerStep, { kind: 'run' | 'fail' }>,
  ): Promise<ProgressRecord> {
    const parent = this.step.handler.id;
    const id = `${parent}/${entry.id}`;
    const now = this.env.now();
    const started = step.record ? new Date(step.record.started) : now;
    const options = entry.options;
    let outcome: Outcome;
    if (step.kind === 'fail') outcome = { kind: 'permanent', message: step.message };
    else {
      const { subhandler: _s, execute: _e, ...rest } = context as Context & { subhandler?: unknown; execute?: unknown };
      const own: Context = {
        ...rest,
        logger: childLogger(this.env.logger, `${objectRef(this.body)} ${id}`),
        retry: step.record?.retries ?? 0,
        started,
        runtime: now.getTime() - started.getTime(),
      };
      let result: Attempt;
      try {
        result = { ok: true, value: await entry.fn(own) };
      } catch (error) {
        result = { ok: false, error };
      }
      outcome = this.outcomeOf(result, options, step.record, started);
    }
    const end = this.env.now();
    const next = nextRecord(step.record, this.step.cause, outcome, started, end);
    const record =
      step.kind === 'fail'
        ? { ...step.record, stopped: end.toISOString(), failure: true, delayed: undefined, message: step.message }
        : outcome.interrupted
          ? { ...next, retries: step.record?.retries ?? 0 }
          : next;
    recordAttempt(this.env, { handler: id, cause: this.step.cause, outcome: outcome.kind, started: now, ended: end });
    // What it returned goes into the parent's status (its own `patch` is the parent's, written with it).
    const patch = outcomePatch(parent, step.key, outcome, emptyPatch(), record, this.env.marks);
    this.attempts.push({ id, outcome, patch });
    return record;
  }

  /**
   * As a changing handler's attempt is classified (handler-call.ts): its limits applied, a value JSON
   * cannot carry a failure for good, an attempt cut short by the shutdown not counted.
   */
  private outcomeOf(
    result: Attempt,
    options: SubhandlerOptions,
    record: ProgressRecord | undefined,
    started: Date,
  ): Outcome {
    if (this.env.signal.aborted && !result.ok && !isHandlerError(result.error)) {
      const message = `interrupted by the operator's shutdown: ${messageOf(result.error)}`;
      return { kind: 'temporary', delay: 0, interrupted: true, message };
    }
    const classified = applyLimits(
      classify(result, options),
      options,
      (record?.retries ?? 0) + 1,
      started,
      this.env.now(),
    );
    const bad = this.unserialisable(classified.status);
    if (bad) return { kind: 'permanent', message: `its result cannot be written as JSON: ${bad}` };
    return classified;
  }
}
