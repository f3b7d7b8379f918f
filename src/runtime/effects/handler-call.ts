/**
 * Calling one handler attempt: its context (a copy of the object, its own `patch`, a logger
 * naming the object and handler, a `signal` aborted on shutdown or timeout), the race against
 * the handler's timeout, and what the attempt came to (outcome, progress record, the patch
 * that records it). Writing that patch is the caller's business (api-write).
 */
import type { HandlerContext } from '../api/context.js';
import { isHandlerError } from '../api/errors.js';
import type { KubernetesObject } from '../api/kube-types.js';
import type { ResourceEnv } from '../env.js';
import { clone, getPath } from '../json.js';
import { finalizersOf, type RunStep, type Step } from '../reconcile/decide.js';
import { Unserialisable } from '../reconcile/failures.js';
import { applyLimits, classify, nextRecord, timeLeft, type Attempt, type Outcome } from '../reconcile/outcome.js';
import { conditionsOn } from '../api/conditions-api.js';
import {
  combinePatches,
  emptyPatch,
  outcomePatch,
  replacingPatch,
  resultPatch,
  type ObjectPatch,
} from '../reconcile/patches.js';
import type { Marks } from '../reconcile/marks.js';
import type { ProgressRecord } from '../reconcile/progress.js';
import type { RegisteredHandler } from '../api/registry.js';
import { recordAttempt } from '../observe/handler-metrics.js';
import { childLogger, objectRef } from './log.js';
import type { CrashWrite, RunningAttempt } from '../attempts.js';
import { describe } from '../kube/client.js';
import { accessKind } from '../api/access.js';
import { adoptChild } from '../ownership.js';
import { DEFAULT_FIELD_MANAGER, TypedClient } from './typed-client.js';
import { exceptionEvent, postEvent, warn } from './events.js';
import type { AlreadyOwnedError } from '../api/client-api.js';
import { messageOf } from '../error-message.js';
import { StartRefused } from '../start-gate.js';
import { isPending, SubhandlerRun, type SubhandlerAttempt } from './subhandlers.js';

/** A timed-out attempt is permanent: the brand marks it so without a PermanentError instance. */
function timedOut(seconds: number | undefined): Error {
  const brand = { [Symbol.for('kopfgen.handlerErrorKind')]: 'permanent' };
  return Object.assign(new Error(`timed out after ${seconds}s`), brand);
}

/** What an attempt came to, and when its code ended (later than the result when it timed out). */
interface Attempted {
  result: Attempt;
  /** Resolves once the handler's code has returned or thrown; undefined when it already has. */
  ended: Promise<void> | undefined;
}

/**
 * One attempt, raced against the handler's timeout. A timed-out attempt is told through its `signal`
 * and its result (the timeout, a permanent failure) is returned at once, so it can be recorded on the
 * object while the handler still runs; `ended` resolves when the handler's code has settled. The caller
 * keeps the object's turn until then: the next attempt of the handler for the object never overlaps it
 * (kopf awaits every handler to its end).
 */
async function attempt(
  env: ResourceEnv,
  step: Pick<RunStep, 'handler'>,
  context: HandlerContext<unknown, unknown, unknown>,
  abort: AbortController,
  now: Date,
  running: RunningAttempt | undefined,
): Promise<Attempted> {
  // The start gate (start-gate.ts), asked at the last moment before the handler's code runs.
  const refusal = env.gate?.refuse(context.uid);
  if (refusal) throw new StartRefused(refusal);
  const logger = context.logger;
  const left = timeLeft(step.handler.options, context.started, now);
  let timer: NodeJS.Timeout | undefined;
  let settled = false;
  const timeout = new Promise<Attempt>((resolve) => {
    if (left === undefined) return;
    timer = setTimeout(
      () => {
        abort.abort(new Error('handler timeout'));
        resolve({ ok: false, error: timedOut(step.handler.options.timeout) });
      },
      Math.max(0, left * 1000),
    );
  });
  const call = async (): Promise<Attempt> => {
    try {
      return { ok: true, value: await step.handler.fn(context) };
    } catch (error) {
      return { ok: false, error };
    } finally {
      settled = true;
    }
  };
  const run = running ? running.run(call) : call();
  try {
    const first =
      left === undefined
        ? { result: await run, late: false }
        : await Promise.race([
            run.then((result) => ({ result, late: false })),
            timeout.then((result) => ({ result, late: true })),
          ]);
    if (!first.late || settled) return { result: first.result, ended: undefined };
    logger.warn(
      `timed out after ${step.handler.options.timeout}s: recorded as failed; the object waits for the attempt to end (it ignores its signal)`,
    );
    return { result: first.result, ended: run.then(() => undefined) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Why a handler's signal aborts when its term ends: the term's own reason (with leader election it names
 * the lease and why its hold ended, e.g. the renew deadline), else the operator's shutdown.
 */
function termEnded(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error && !(reason instanceof DOMException) ? reason : new Error('operator shutting down');
}

/**
 * A handler that gave up because the operator is shutting down (it honoured its `signal`, or a
 * client call was cut off with the term) did not fail on its own: whatever its `errors` mode, the
 * attempt is not counted against `retries` or `timeout` and the next operator retries it at once
 * instead of after the backoff (kopf cancels the handler's task at exit and records nothing).
 */
function interrupted(env: ResourceEnv, attempt: Attempt, outcome: Outcome): Outcome {
  if (!env.signal.aborted || attempt.ok || isHandlerError(attempt.error)) return outcome;
  const message = `interrupted by the operator's shutdown: ${outcome.message ?? messageOf(attempt.error)}`;
  return { kind: 'temporary', status: undefined, error: outcome.error, delay: 0, interrupted: true, message };
}

/**
 * Under `status: 'replace'` a status payload becomes `status.<id>` whole: keys the object holds
 * there now and the payload lacks are nulled in the patch (a merge patch would keep them).
 */
function replacing(step: RunStep, body: KubernetesObject, outcome: Outcome): Outcome {
  if (step.handler.options.status !== 'replace' || outcome.status === undefined) return outcome;
  return { ...outcome, status: replacingPatch(getPath(body, ['status', step.handler.id]), outcome.status) };
}

export interface Result {
  outcome: Outcome;
  record: ProgressRecord;
  patch: ObjectPatch;
  /** The sub-handler attempts made during this one (subhandlers.ts), recorded by `patch` too. */
  subhandlers?: SubhandlerAttempt[];
}

interface Clock {
  started: Date;
  now: Date;
  /** `ctx.retry`: the attempts before this one. */
  retry: number;
}

/**
 * The handler's typed client: the term's (its fence, field manager, declared access) waiting at most
 * until the handler's signal, knowing the handled object so that it refuses a cluster-scoped child of
 * a namespaced one.
 */
export function handlerClient(env: ResourceEnv, body: KubernetesObject, signal: AbortSignal): TypedClient {
  const base = env.typed ?? new TypedClient(env.client, { fieldManager: DEFAULT_FIELD_MANAGER });
  const namespaced = env.resource.scope === 'Namespaced';
  const meta = body.metadata ?? {};
  const owner = { uid: String(meta.uid), namespaced, describe: `${String(body.kind)} ${String(meta.name)}` };
  const onRefused = (error: AlreadyOwnedError) =>
    warn(
      env,
      body,
      'AlreadyOwned',
      `${error.resource} ${error.objectName ?? ''} is already controlled by ${error.owner.kind} ${error.owner.name}: not adopted`,
    );
  return base.with({ signal, owner, onRefused });
}

function contextFor(env: ResourceEnv, step: RunStep, body: KubernetesObject, clock: Clock, signal: AbortSignal) {
  const { started, now, retry } = clock;
  const view = clone(body);
  const meta = view.metadata ?? {};
  const owner = { body, namespaced: env.resource.scope === 'Namespaced' };
  const patch = emptyPatch();
  const context: HandlerContext<unknown, unknown, unknown> = {
    body: view,
    spec: view.spec,
    status: view.status,
    meta,
    name: String(meta.name),
    namespace: meta.namespace,
    uid: String(meta.uid),
    cause: step.cause,
    patch,
    logger: childLogger(env.logger, `${objectRef(body)} ${step.handler.id}`),
    retry,
    started,
    runtime: now.getTime() - started.getTime(),
    diff: step.diff,
    old: step.old,
    new: step.new,
    signal,
    memo: env.memos?.of(String(meta.uid)) ?? {},
    client: handlerClient(env, body, signal),
    adopt: (kind, child, options) => adoptChild(owner, accessKind(kind), child, options) as never,
    conditions: conditionsOn(patch),
    event: (object, event) => postEvent(env, body, object, event),
    info: (object, reason, message) => postEvent(env, body, object, { type: 'Normal', reason, message }),
    warn: (object, reason, message) => postEvent(env, body, object, { type: 'Warning', reason, message }),
    exception: (object, error, reason, message) => postEvent(env, body, object, exceptionEvent(error, reason, message)),
  };
  return context;
}

/** Registers the attempt with the operator's registry (attempts.ts), for as long as its code runs. */
function begin(
  env: ResourceEnv,
  step: RunStep,
  body: KubernetesObject,
  started: Date,
  onCrash?: CrashWrite,
): RunningAttempt | undefined {
  if (!env.attempts) return undefined;
  const meta = body.metadata ?? {};
  return env.attempts.begin(
    {
      resource: describe(env.resource),
      namespace: meta.namespace,
      name: String(meta.name),
      uid: String(meta.uid),
      handler: step.handler.id,
      key: step.key,
      cause: step.cause,
      attempt: (step.record?.retries ?? 0) + 1,
      started,
      spawned:
        step.record === undefined && (step.cause === 'timer' || step.cause === 'daemon' || step.cause === 'child'),
    },
    onCrash,
  );
}

/**
 * An attempt's result, and when its code ended: `ended` is set when that is later than the result (it
 * timed out and runs on, see `attempt`).
 */
export interface RunResult extends Result {
  ended: Promise<void> | undefined;
}

/**
 * One attempt of a changing handler on `body`, the object as the server holds it; `records` is the
 * object as decide read it (records.ts's view: the records as annotations, wherever the resource keeps
 * them), where its sub-handlers' records are read. `onCrash` is the write that records the attempt as failed should the
 * process exit from its code (the operator calls it from its exit listener). A term that began after a
 * crash (crash-journal.ts) writes the journal, which now names this attempt, before the handler runs.
 */
export async function runHandler(
  env: ResourceEnv,
  step: RunStep,
  body: KubernetesObject,
  onCrash?: CrashWrite,
  records: KubernetesObject = body,
): Promise<RunResult> {
  const now = env.now();
  const started = step.record ? new Date(step.record.started) : now;
  const abort = new AbortController();
  const onStop = () => abort.abort(termEnded(env.signal));
  env.signal.addEventListener('abort', onStop, { once: true });
  const subhandlers = new SubhandlerRun(env, step, body, records, unserialisable);
  const context = subhandlers.extend(
    contextFor(env, step, body, { started, now, retry: step.record?.retries ?? 0 }, abort.signal),
  );
  const running = begin(env, step, body, now, onCrash);
  let ended: Promise<void> | undefined;
  try {
    if (env.crash?.guarded()) await env.crash.record();
    const called = { handler: { ...step.handler, fn: subhandlers.wrap(step.handler.fn) } };
    const attempted = await attempt(env, called, context, abort, now, running);
    ended = attempted.ended;
    const result = attempted.result;
    const end = env.now();
    const options = step.handler.options;
    const attempts = (step.record?.retries ?? 0) + 1;
    const pending = isPending(result);
    const classified = interrupted(env, result, classify(result, options));
    const outcome = pending
      ? { ...classified, pending }
      : replacing(
          step,
          body,
          classified.interrupted ? classified : applyLimits(classified, options, attempts, started, end),
        );
    const next = nextRecord(step.record, step.cause, outcome, started, end);
    // An interrupted attempt, or one that waits for its sub-handlers, is not one of the handler's own: the
    // record keeps the count it had (kopf counts the latter, so a parent's `retries` would cap its children).
    const record = outcome.interrupted || outcome.pending ? { ...next, retries: step.record?.retries ?? 0 } : next;
    recordAttempt(env, {
      handler: step.handler.id,
      cause: step.cause,
      outcome: outcome.kind,
      started: now,
      ended: end,
    });
    const own = serialisable(step.handler.id, outcome, context.patch, () =>
      outcomePatch(step.handler.id, step.key, outcome, context.patch, record, env.marks, finalizersOf(body)),
    );
    const attemptsOfSubs = [...subhandlers.attempts];
    // The sub-handlers' records and results first, the parent's outcome over them (its status merges after).
    const patch = attemptsOfSubs.reduceRight((merged, sub) => combinePatches(sub.patch, merged), own);
    return { outcome, record, ended, patch, ...(attemptsOfSubs.length > 0 && { subhandlers: attemptsOfSubs }) };
  } finally {
    const cleanUp = () => {
      env.signal.removeEventListener('abort', onStop);
      running?.end();
    };
    if (ended) void ended.finally(cleanUp);
    else cleanUp();
  }
}

/**
 * The path of the first value JSON cannot carry as it is: a BigInt, NaN or ±Infinity (which
 * JSON.stringify would write as null, deleting the key in a merge patch), a function or a symbol
 * anywhere (JSON drops such a member, so the key would silently vanish from a patch, and writes one
 * in a list as null), undefined in a list (written as null), a cycle. Undefined when the value is
 * plain JSON (object members that are undefined are left out by JSON, as intended: that is how a
 * handler or a mutation deletes a key).
 */
export function unserialisable(value: unknown, path: string[] = []): string | undefined {
  return findUnserialisable(value, path, new Set());
}

/** `unserialisable`'s walk: `path` is one stack pushed and popped, copied only for the answer. */
function findUnserialisable(value: unknown, path: string[], seen: Set<object>): string | undefined {
  const where = () => path.join('.') || '(the value itself)';
  if (typeof value === 'bigint') return `a BigInt at ${where()}`;
  if (typeof value === 'number' && !Number.isFinite(value)) return `${value} at ${where()}`;
  if (typeof value === 'function' || typeof value === 'symbol') return `a ${typeof value} at ${where()}`;
  if (typeof value !== 'object' || value === null) return undefined;
  if (seen.has(value)) return `a cycle at ${where()}`;
  seen.add(value);
  const list = Array.isArray(value);
  // A list's holes too (Array.from keeps them as undefined), as JSON writes them null.
  const keys = list ? Array.from(value, (_, i) => String(i)) : Object.keys(value);
  for (const key of keys) {
    const member: unknown = Reflect.get(value, key);
    path.push(key);
    const found = list && member === undefined ? `undefined at ${where()}` : findUnserialisable(member, path, seen);
    path.pop();
    if (found) return found;
  }
  seen.delete(value);
  return undefined;
}

/**
 * The outcome's patch, built only if JSON can carry it exactly: a BigInt, NaN, Infinity or a cycle in the
 * result, the error's status or the handler's patch fails here, once, as an Unserialisable failure for
 * the error policy — not later inside a write, where it would look like a network error, and never as a
 * `null` that silently deletes the key.
 */
function serialisable(id: string, outcome: Outcome, handlerPatch: unknown, build: () => ObjectPatch): ObjectPatch {
  // checked before the patch is built: building copies through JSON, which would turn NaN into null
  const found = unserialisable(outcome.status, ['status', id]) ?? unserialisable(handlerPatch);
  if (found) throw new Unserialisable(found);
  try {
    return build();
  } catch (error) {
    throw new Unserialisable(messageOf(error));
  }
}

/**
 * The attempts of a spawned handler so far, kept in memory by its caller (kopf's daemon keeps one
 * `progression.State` for its whole life, never written to the object): `ctx.retry` counts them,
 * `ctx.started` is the first one's, and the handler's `retries` and `timeout` end it.
 */
export interface SpawnedProgress {
  retries: number;
  started: Date;
}

/**
 * One call of a timer, daemon or child handler (kopf's spawning handlers; `extra`: a child handler's
 * owned object): the same context, timeout and
 * classification as a changing handler's attempt, told to stop through `stop` (the object's
 * deletion, its filters no longer matching) as well as the operator's shutdown. No progress
 * record: the outcome and the patch carrying its status. A call that ends with an ordinary error
 * after being told to stop was cancelled, not failed. Returns once the call's code has ended (runs
 * of one timer never overlap). With `progress` (a daemon's earlier attempts), the handler's limits
 * apply to a temporary failure as to a changing handler's.
 */
export async function callSpawned(
  env: ResourceEnv,
  handler: RegisteredHandler,
  body: KubernetesObject,
  stop: AbortSignal,
  extra: Record<string, unknown> = {},
  progress?: SpawnedProgress,
): Promise<{ outcome: Outcome; patch: ObjectPatch; cancelled: boolean }> {
  const now = env.now();
  const started = progress?.started ?? now;
  const retry = progress?.retries ?? 0;
  const abort = new AbortController();
  const onStop = () => abort.abort(env.signal.aborted ? termEnded(env.signal) : new Error('stopped'));
  const signals = [env.signal, stop];
  for (const signal of signals) signal.addEventListener('abort', onStop, { once: true });
  const step: RunStep = {
    kind: 'run',
    handler,
    key: handler.id,
    cause: handler.cause,
    record: undefined,
    diff: [],
    old: undefined,
    new: undefined,
  };
  const context = Object.assign(contextFor(env, step, body, { started, now, retry }, abort.signal), extra);
  if (env.signal.aborted || stop.aborted) onStop();
  const running = begin(env, step, body, now);
  try {
    let attempted: Attempted;
    try {
      attempted = await attempt(env, step, context, abort, now, running);
    } catch (error) {
      if (!(error instanceof StartRefused)) throw error;
      // Not started: nothing to record; the hold is over, so the caller stops as on a cancellation.
      return { outcome: { kind: 'success' }, cancelled: true, patch: {} };
    }
    const { result, ended } = attempted;
    if (ended) await ended;
    const end = env.now();
    const cancelled = abort.signal.aborted && !result.ok && !isHandlerError(result.error);
    const classified = classify(result, handler.options);
    const limited = progress ? applyLimits(classified, handler.options, retry + 1, started, end) : classified;
    const outcome: Outcome = cancelled ? { kind: 'success' } : replacing(step, body, limited);
    recordAttempt(env, { handler: handler.id, cause: handler.cause, outcome: outcome.kind, started: now, ended: end });
    return {
      outcome,
      cancelled,
      patch: serialisable(handler.id, outcome, context.patch, () =>
        resultPatch(handler.id, outcome, context.patch, env.marks, finalizersOf(body)),
      ),
    };
  } finally {
    running?.end();
    for (const signal of signals) signal.removeEventListener('abort', onStop);
  }
}

/**
 * An attempt that ended with the process (crash-journal.ts, or the exit listener's record): a failed
 * attempt of the handler, retried at once unless its `retries` or `timeout` end it. `started` is the
 * first attempt's start (the record's, or the crashed attempt's own when it was the first).
 */
export function crashedAttempt(step: RunStep, started: Date, now: Date, marks: Marks, message: string): Result {
  const attempts = (step.record?.retries ?? 0) + 1;
  const outcome = applyLimits({ kind: 'temporary', delay: 0, message }, step.handler.options, attempts, started, now);
  const record = nextRecord(step.record, step.cause, outcome, started, now);
  return { outcome, record, patch: outcomePatch(step.handler.id, step.key, outcome, emptyPatch(), record, marks) };
}

type FailStep = Extract<Step, { kind: 'fail' }>;

/** A handler whose limits ran out before another attempt: it fails for good without running. */
export function failWithoutRunning(step: FailStep, now: Date, marks: Marks): Result {
  const outcome: Outcome = { kind: 'permanent', message: step.message };
  const stopped = now.toISOString();
  const record = { ...step.record, stopped, failure: true, delayed: undefined, message: step.message };
  return { outcome, record, patch: outcomePatch(step.handler.id, step.key, outcome, emptyPatch(), record, marks) };
}
