/**
 * Calling one handler attempt: its context (a copy of the object, its own `patch`, a logger
 * naming the object and handler, a `signal` aborted on shutdown or timeout), the race against
 * the handler's timeout, and what the attempt came to (outcome, progress record, the patch
 * that records it). Writing that patch is the caller's business (api-write).
 */
import type { HandlerContext, Logger } from '../api/context.js';
import { isHandlerError } from '../api/errors.js';
import type { KubernetesObject } from '../api/kube-types.js';
import type { ResourceEnv } from '../env.js';
import { clone, getPath } from '../json.js';
import { finalizersOf, type RunStep, type Step } from '../reconcile/decide.js';
import { Unserialisable } from '../reconcile/failures.js';
import { applyLimits, classify, nextRecord, timeLeft, type Attempt, type Outcome } from '../reconcile/outcome.js';
import { emptyPatch, outcomePatch, replacingPatch, resultPatch, type ObjectPatch } from '../reconcile/patches.js';
import type { Marks } from '../reconcile/marks.js';
import type { ProgressRecord } from '../reconcile/progress.js';
import type { RegisteredHandler } from '../api/registry.js';
import { recordAttempt } from '../observe/handler-metrics.js';
import { childLogger, objectRef } from './log.js';
import { messageOf } from '../error-message.js';

/** A timed-out attempt is permanent: the brand marks it so without a PermanentError instance. */
function timedOut(seconds: number | undefined): Error {
  const brand = { [Symbol.for('kopfgen.handlerErrorKind')]: 'permanent' };
  return Object.assign(new Error(`timed out after ${seconds}s`), brand);
}

/**
 * One attempt, raced against the handler's timeout. A timed-out attempt is told through its
 * `signal`, but the call returns only once the handler has settled: an attempt that ignores its
 * signal keeps its slot and its object's turn in the queue until it ends, so the next attempt of
 * the handler for the object never overlaps it (kopf awaits every handler to its end).
 */
async function attempt(
  step: Pick<RunStep, 'handler'>,
  context: HandlerContext<unknown, unknown, unknown>,
  abort: AbortController,
  now: Date,
  logger: Logger,
) {
  const left = timeLeft(step.handler.options, context.started, now);
  let timer: NodeJS.Timeout | undefined;
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
  const run = (async (): Promise<Attempt> => {
    try {
      return { ok: true, value: await step.handler.fn(context) };
    } catch (error) {
      return { ok: false, error };
    }
  })();
  try {
    const first = await Promise.race([run, timeout]);
    if (first.ok || !abort.signal.aborted || (await settledYet(run))) return first;
    logger.warn(
      `timed out after ${step.handler.options.timeout}s; waiting for the attempt to end (it ignores its signal)`,
    );
    await run;
    return first;
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `promise` has settled already (checked after the microtasks queued so far). */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  const pending = Symbol('pending');
  return (await Promise.race([promise.then(() => true), Promise.resolve(pending)])) !== pending;
}

/**
 * A handler that gave up because the operator is shutting down (it honoured its `signal`)
 * did not fail on its own: the next operator retries it at once instead of after the backoff.
 */
function interrupted(env: ResourceEnv, attempt: Attempt, outcome: Outcome): Outcome {
  if (!env.signal.aborted || attempt.ok || isHandlerError(attempt.error) || outcome.kind !== 'temporary') {
    return outcome;
  }
  const message = `interrupted by the operator's shutdown: ${outcome.message}`;
  return { ...outcome, delay: 0, interrupted: true, message };
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
}

interface Clock {
  started: Date;
  now: Date;
}

function contextFor(env: ResourceEnv, step: RunStep, body: KubernetesObject, clock: Clock, signal: AbortSignal) {
  const { started, now } = clock;
  const view = clone(body);
  const meta = view.metadata ?? {};
  const context: HandlerContext<unknown, unknown, unknown> = {
    body: view,
    spec: view.spec,
    status: view.status,
    meta,
    name: String(meta.name),
    namespace: meta.namespace,
    uid: String(meta.uid),
    cause: step.cause,
    patch: emptyPatch(),
    logger: childLogger(env.logger, `${objectRef(body)} ${step.handler.id}`),
    retry: step.record?.retries ?? 0,
    started,
    runtime: now.getTime() - started.getTime(),
    diff: step.diff,
    old: step.old,
    new: step.new,
    signal,
  };
  return context;
}

export async function runHandler(env: ResourceEnv, step: RunStep, body: KubernetesObject): Promise<Result> {
  const now = env.now();
  const started = step.record ? new Date(step.record.started) : now;
  const abort = new AbortController();
  const onStop = () => abort.abort(new Error('operator shutting down'));
  env.signal.addEventListener('abort', onStop, { once: true });
  const context = contextFor(env, step, body, { started, now }, abort.signal);
  try {
    const result = await attempt(step, context, abort, now, context.logger);
    const end = env.now();
    const options = step.handler.options;
    const attempts = (step.record?.retries ?? 0) + 1;
    const outcome = replacing(
      step,
      body,
      interrupted(env, result, applyLimits(classify(result, options), options, attempts, started, end)),
    );
    const record = nextRecord(step.record, step.cause, outcome, started, end);
    recordAttempt(env, {
      handler: step.handler.id,
      cause: step.cause,
      outcome: outcome.kind,
      started: now,
      ended: end,
    });
    return {
      outcome,
      record,
      patch: serialisable(() =>
        outcomePatch(step.handler.id, step.key, outcome, context.patch, record, env.marks, finalizersOf(body)),
      ),
    };
  } finally {
    env.signal.removeEventListener('abort', onStop);
  }
}

/**
 * The outcome's patch, built only if JSON can carry it: a BigInt or a cycle in the result, the
 * error's status or the handler's patch fails here, once, as an Unserialisable failure for the
 * error policy — not later inside a write, where it would look like a network error.
 */
function serialisable(build: () => ObjectPatch): ObjectPatch {
  try {
    const patch = build();
    JSON.stringify(patch);
    return patch;
  } catch (error) {
    throw new Unserialisable(messageOf(error));
  }
}

/**
 * One call of a timer or daemon (kopf's spawning handlers): the same context, timeout and
 * classification as a changing handler's attempt, told to stop through `stop` (the object's
 * deletion, its filters no longer matching) as well as the operator's shutdown. No progress
 * record: the outcome and the patch carrying its status. A call that ends with an ordinary error
 * after being told to stop was cancelled, not failed.
 */
export async function callSpawned(
  env: ResourceEnv,
  handler: RegisteredHandler,
  body: KubernetesObject,
  stop: AbortSignal,
): Promise<{ outcome: Outcome; patch: ObjectPatch; cancelled: boolean }> {
  const now = env.now();
  const abort = new AbortController();
  const onStop = () => abort.abort(new Error(stop.aborted ? 'stopped' : 'operator shutting down'));
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
  const context = contextFor(env, step, body, { started: now, now }, abort.signal);
  if (env.signal.aborted || stop.aborted) onStop();
  try {
    const result = await attempt(step, context, abort, now, context.logger);
    const end = env.now();
    const cancelled = abort.signal.aborted && !result.ok && !isHandlerError(result.error);
    const outcome: Outcome = cancelled ? { kind: 'success' } : replacing(step, body, classify(result, handler.options));
    recordAttempt(env, { handler: handler.id, cause: handler.cause, outcome: outcome.kind, started: now, ended: end });
    return {
      outcome,
      cancelled,
      patch: serialisable(() => resultPatch(handler.id, outcome, context.patch, env.marks, finalizersOf(body))),
    };
  } finally {
    for (const signal of signals) signal.removeEventListener('abort', onStop);
  }
}

type FailStep = Extract<Step, { kind: 'fail' }>;

/** A handler whose limits ran out before another attempt: it fails for good without running. */
export function failWithoutRunning(step: FailStep, now: Date, marks: Marks): Result {
  const outcome: Outcome = { kind: 'permanent', message: step.message };
  const stopped = now.toISOString();
  const record = { ...step.record, stopped, failure: true, delayed: undefined, message: step.message };
  return { outcome, record, patch: outcomePatch(step.handler.id, step.key, outcome, emptyPatch(), record, marks) };
}
