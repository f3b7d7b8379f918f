/**
 * Running one handler attempt and writing what it came to: the patch (status through the
 * `/status` subresource where there is one), retried on conflicts, throttling and server
 * errors so that no outcome is lost; a warning naming any field the server pruned; a Warning
 * Event per failure; one log line per outcome.
 */
import { hostname } from 'node:os';
import type { HandlerContext, Logger } from './context.js';
import type { ResourceDescriptor } from './define.js';
import { clone, prunedFields } from './json.js';
import { describe, KubeError, resourcePath, type KubeClient } from './kube.js';
import { childLogger } from './log.js';
import { isHandlerError } from './errors.js';
import { applyLimits, classify, nextRecord, timeLeft, type Attempt, type Outcome } from './outcome.js';
import { emptyPatch, outcomePatch, splitPatch } from './patches.js';
import type { ObjectPatch, RunStep } from './plan.js';
import type { ProgressRecord } from './progress.js';

export interface ExecEnv {
  client: KubeClient;
  resource: ResourceDescriptor;
  logger: Logger;
  /** Aborted when the operator shuts down. */
  signal: AbortSignal;
  now: () => Date;
}

type Body = Record<string, unknown>;

export function objectRef(body: Body): string {
  const meta = (body.metadata ?? {}) as { name?: string; namespace?: string };
  return meta.namespace ? `${meta.namespace}/${meta.name}` : String(meta.name);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A write conflicting with a concurrent change (only for writes that carry a resourceVersion). */
export class Conflict extends Error {}

const PATCH_ATTEMPTS = 10;

function retriable(error: unknown): boolean {
  if (!(error instanceof KubeError)) return true; // network: reset, timeout, refused
  return error.status === 409 || error.status === 429 || error.status >= 500;
}

async function patchWithRetries(env: ExecEnv, path: string, patch: ObjectPatch, precondition: boolean): Promise<Body> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await env.client.request<Body>('PATCH', path, { body: patch, contentType: 'application/merge-patch+json' });
    } catch (error) {
      if (error instanceof KubeError && error.status === 409 && precondition) throw new Conflict(error.message);
      if (!retriable(error) || attempt >= PATCH_ATTEMPTS) throw error;
      const wait = error instanceof KubeError && error.retryAfter !== undefined ? error.retryAfter * 1000 : Math.min(5000, 100 * 2 ** attempt);
      env.logger.warn(`patch of ${path} failed (attempt ${attempt}), retrying in ${wait} ms: ${(error as Error).message}`);
      await sleep(wait);
    }
  }
}

/** A 404 from `/status` while the object exists means the cluster's CRD has no status subresource. */
async function patchStatus(env: ExecEnv, meta: { name: string; namespace?: string }, status: ObjectPatch): Promise<Body> {
  try {
    return await patchWithRetries(env, resourcePath(env.resource, meta.namespace, meta.name, 'status'), status, false);
  } catch (error) {
    if (!(error instanceof KubeError && error.status === 404)) throw error;
    await env.client.request('GET', resourcePath(env.resource, meta.namespace, meta.name)); // 404 too: the object is gone
    throw new Error(`${describe(env.resource)} has no status subresource in the cluster, but its descriptor says statusSubresource: true (regenerate from the installed CRD)`);
  }
}

/** Writes the patch; returns the object as the server answered, or undefined when it is gone (404). */
export async function writePatch(env: ExecEnv, body: Body, patch: ObjectPatch): Promise<Body | undefined> {
  const meta = body.metadata as { name: string; namespace?: string };
  const { main, status } = splitPatch(patch, env.resource.statusSubresource);
  const precondition = patch.metadata?.resourceVersion !== undefined;
  let answer: Body | undefined;
  try {
    // Status first: should the operator stop in between, the handler runs again rather than its result being lost.
    if (status) answer = await patchStatus(env, meta, status);
    if (main) answer = await patchWithRetries(env, resourcePath(env.resource, meta.namespace, meta.name), main, precondition);
  } catch (error) {
    if (error instanceof KubeError && error.status === 404) return undefined;
    throw error;
  }
  if (answer) warnPruned(env, body, patch, answer);
  return answer;
}

function warnPruned(env: ExecEnv, body: Body, patch: ObjectPatch, answer: Body): void {
  const written = { spec: patch.spec, status: patch.status };
  for (const field of prunedFields(written, answer)) {
    env.logger.warn(`${objectRef(body)}: the API server dropped ${field} (not in the CRD's schema?)`, { resource: env.resource.plural });
  }
}

async function attempt(env: ExecEnv, step: RunStep, context: HandlerContext<unknown>, abort: AbortController): Promise<Attempt> {
  const left = timeLeft(step.handler.options, context.started, env.now());
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Attempt>((resolve) => {
    if (left === undefined) return;
    timer = setTimeout(() => {
      abort.abort(new Error('handler timeout'));
      resolve({ ok: false, error: Object.assign(new Error(`timed out after ${step.handler.options.timeout}s`), { [Symbol.for('kopfgen.handlerErrorKind')]: 'permanent' }) });
    }, Math.max(0, left * 1000));
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
function interrupted(env: ExecEnv, attempt: Attempt, outcome: Outcome): Outcome {
  if (!env.signal.aborted || attempt.ok || isHandlerError(attempt.error) || outcome.kind !== 'temporary') return outcome;
  return { ...outcome, delay: 0, interrupted: true, message: `interrupted by the operator's shutdown: ${outcome.message}` };
}

export interface Result {
  outcome: Outcome;
  record: ProgressRecord;
  patch: ObjectPatch;
}

export async function runHandler(env: ExecEnv, step: RunStep, body: Body): Promise<Result> {
  const now = env.now();
  const started = step.record ? new Date(step.record.started) : now;
  const abort = new AbortController();
  const onStop = () => abort.abort(new Error('operator shutting down'));
  env.signal.addEventListener('abort', onStop, { once: true });
  const view = clone(body);
  const meta = (view.metadata ?? {}) as HandlerContext<unknown>['meta'];
  const context: HandlerContext<unknown> = {
    body: view, spec: view.spec as never, status: view.status as never, meta,
    name: String(meta.name), namespace: meta.namespace, uid: String(meta.uid), cause: step.cause,
    patch: emptyPatch(), logger: childLogger(env.logger, `${objectRef(body)} ${step.handler.id}`),
    retry: step.record?.retries ?? 0, started, runtime: now.getTime() - started.getTime(),
    diff: step.diff, old: step.old, new: step.new, signal: abort.signal,
  };
  try {
    const result = await attempt(env, step, context, abort);
    const end = env.now();
    const options = step.handler.options;
    const outcome = interrupted(env, result, applyLimits(classify(result, options), options, (step.record?.retries ?? 0) + 1, started, end));
    const record = nextRecord(step.record, step.cause, outcome, started, end);
    return { outcome, record, patch: outcomePatch(step.handler.id, step.key, outcome, context.patch, record) };
  } finally {
    env.signal.removeEventListener('abort', onStop);
  }
}

export function logOutcome(env: ExecEnv, body: Body, id: string, cause: string, outcome: Outcome): void {
  const fields = { resource: env.resource.plural, object: objectRef(body), handler: id, cause };
  switch (outcome.kind) {
    case 'success':
      return env.logger.info(`handler ${id} succeeded`, fields);
    case 'ignored':
      return env.logger.warn(`handler ${id} failed, error ignored: ${outcome.message}`, fields);
    case 'temporary':
      return env.logger.warn(`handler ${id} failed temporarily, retry in ${outcome.delay}s: ${outcome.message}`, fields);
    case 'permanent':
      return env.logger.error(`handler ${id} failed permanently: ${outcome.message}`, fields);
  }
}

/** A Kubernetes Event (type Warning) naming the handler; best effort, a failure is only logged. */
export async function postEvent(env: ExecEnv, body: Body, id: string, outcome: Outcome): Promise<void> {
  const meta = body.metadata as { name: string; namespace?: string; uid: string; resourceVersion?: string };
  const namespace = meta.namespace ?? 'default';
  const time = env.now().toISOString();
  const retry = outcome.kind === 'temporary' ? `, retry in ${outcome.delay}s` : '';
  const event = {
    apiVersion: 'v1', kind: 'Event',
    metadata: { generateName: `${meta.name}.`, namespace },
    involvedObject: { apiVersion: body.apiVersion, kind: body.kind, name: meta.name, namespace: meta.namespace, uid: meta.uid, resourceVersion: meta.resourceVersion },
    type: 'Warning',
    reason: `${id}Failed`.slice(0, 128),
    message: `Handler ${id} failed ${outcome.kind === 'permanent' ? 'permanently' : 'temporarily'}: ${outcome.message}${retry}`.slice(0, 1024),
    source: { component: 'kopfgen', host: hostname() },
    reportingComponent: 'kopfgen', reportingInstance: hostname(),
    firstTimestamp: time, lastTimestamp: time, count: 1,
  };
  try {
    await env.client.request('POST', `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, { body: event });
  } catch (error) {
    env.logger.warn(`could not post the Event for handler ${id} on ${objectRef(body)}: ${(error as Error).message}`);
  }
}
