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
import { emptyPatch, outcomePatch, replacingPatch, type ObjectPatch } from '../reconcile/patches.js';
import type { Marks } from '../reconcile/marks.js';
import type { ProgressRecord } from '../reconcile/progress.js';
import { recordAttempt } from '../observe/handler-metrics.js';
import { childLogger, objectRef } from './log.js';
import { messageOf } from '../error-message.js';

/** A timed-out attempt is permanent: the brand marks it so without a PermanentError instance. */
function timedOut(seconds: number | undefined): Error {
  const brand = { [Symbol.for('kopfgen.handlerErrorKind')]: 'permanent' };
  return Object.assign(new Error(`timed out after ${seconds}s`), brand);
}

async function attempt(
  step: RunStep,
  context: HandlerContext<unknown, unknown, unknown>,
  abort: AbortController,
  now: Date,
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
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
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
    const result = await attempt(step, context, abort, now);
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

type FailStep = Extract<Step, { kind: 'fail' }>;

/** A handler whose limits ran out before another attempt: it fails for good without running. */
export function failWithoutRunning(step: FailStep, now: Date, marks: Marks): Result {
  const outcome: Outcome = { kind: 'permanent', message: step.message };
  const stopped = now.toISOString();
  const record = { ...step.record, stopped, failure: true, delayed: undefined, message: step.message };
  return { outcome, record, patch: outcomePatch(step.handler.id, step.key, outcome, emptyPatch(), record, marks) };
}
