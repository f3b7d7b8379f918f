/**
 * The one error policy (kube-rs `error_policy`): what happens after a reconcile failed with an
 * error that no narrower rule handled — a write the write retry policy gave up on or does not
 * retry (403, 422, other 4xx), a status subresource missing from the cluster, a result JSON
 * cannot carry, a failing read-back. Handler errors never come here: they are outcomes
 * (reconcile/outcome.ts), not failures.
 *
 * Every failure backs the object off exponentially (controller-runtime's per-item rate
 * limiter; a success resets it), posts a Warning Event with a stable message (so the
 * EventRecorder aggregates repeats into one series) and is logged on one line naming the
 * object. A failure during a handler's attempt also counts as an attempt of that handler: its
 * progress record is advanced as a temporary failure delayed by the backoff, so the handler's
 * `retries` and `timeout` end it as they end its own errors.
 */
import type { KubernetesObject } from './api/kube-types.js';
import type { ResourceDescriptor } from './api/define.js';
import { KubeError } from './kube/client.js';
import { Action } from './queue.js';
import {
  HandlerStepFailed,
  RequestFailed,
  StatusSubresourceMissing,
  Unserialisable,
  type Attribution,
} from './reconcile/failures.js';
import { applyLimits, nextRecord, type Outcome } from './reconcile/outcome.js';
import type { ProgressRecord } from './reconcile/progress.js';
import { messageOf } from './error-message.js';

/**
 * The backoff: `baseMs` doubling per consecutive failure of an object, at most `maxMs`.
 * Defaults 1 s → 610 s (kopf's throttler's range) rather than controller-runtime's 5 ms →
 * 1000 s: what reaches this policy already went through the write retry policy (409, 429,
 * 5xx and network errors are retried inside the write), so it is the durable kind — a missing
 * permission, an invalid object — which 5 ms retries would only hammer the API server with
 * (about 14 attempts in the first minute against 6), and 610 s keeps a fixed cluster noticed
 * within ten minutes.
 */
export interface BackoffSettings {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffSettings = { baseMs: 1000, maxMs: 610_000 };

/** Milliseconds to wait after the object's `failures`-th consecutive failure (1-based). */
export function backoffDelay(failures: number, settings: BackoffSettings = DEFAULT_BACKOFF): number {
  const exponent = Math.max(0, failures - 1);
  return Math.min(settings.maxMs, settings.baseMs * 2 ** Math.min(exponent, 52));
}

/**
 * Milliseconds before the `attempt`-th rewrite of a spawned result (a timer's, daemon's or child run's
 * `status.<id>`) that met a newer state of its object (409 on its resourceVersion): 50 ms doubling to
 * 5 s, with jitter, so runs that collide on one object spread out instead of re-reading and colliding
 * again at once (controller-runtime's per-item exponential rate limiter; the full jitter of AWS's
 * "Exponential Backoff And Jitter"). Short, unlike `backoffDelay`: a conflict is no failure, the
 * newer state is usually already in the store by then. Such a write is never given up for a
 * conflict: only the object's deletion or the term's end stops it.
 */
export function conflictDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(5000, 50 * 2 ** Math.min(Math.max(0, attempt - 1), 16));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

export type FailureKind =
  'forbidden' | 'invalid' | 'annotations-too-large' | 'status-missing' | 'unserialisable' | 'client' | 'transient';

export interface Failure {
  error: unknown;
  resource: ResourceDescriptor;
  /** The object's newest known state, if it is still known. */
  object: KubernetesObject | undefined;
  /** This object's consecutive failures, this one included (1 for the first). */
  failures: number;
  now: Date;
  backoff?: BackoffSettings;
}

export interface Decision {
  kind: FailureKind;
  /** What is wrong and, where known, what to do; stable across attempts. */
  reason: string;
  delayMs: number;
  action: Action;
  /** The handler the failure counted against, its new progress record, and whether its limits ended it. */
  handler?: { id: string; key: string; record: ProgressRecord; final: boolean };
  event: { reason: string; message: string };
  /** The one log line (without the object, which the logger's fields carry). */
  log: string;
}

function classify(error: unknown): { kind: FailureKind; reason: string } {
  if (error instanceof StatusSubresourceMissing) return { kind: 'status-missing', reason: error.message };
  if (error instanceof Unserialisable) return { kind: 'unserialisable', reason: error.message };
  const request = error instanceof RequestFailed ? error.request : undefined;
  const status = error instanceof RequestFailed || error instanceof KubeError ? error.status : 0;
  const server = error instanceof RequestFailed ? error.serverMessage : messageOf(error);
  const what = request ? `${request.verb} on ${request.resource}` : 'a request';
  const where = request?.namespace ? `in namespace ${request.namespace}` : 'cluster-wide';
  if (status === 403) {
    const role = request?.namespace ? 'Role' : 'ClusterRole';
    return { kind: 'forbidden', reason: `forbidden: ${what} ${where} — grant it in the operator's ${role}` };
  }
  if (status === 422 && /metadata\.annotations/.test(server) && /too long/i.test(server)) {
    return {
      kind: 'annotations-too-large',
      reason: `${what} rejected: the object's annotations would exceed 256 KiB (${server})`,
    };
  }
  if (status === 422) return { kind: 'invalid', reason: `${what} rejected as invalid: ${server}` };
  if (status >= 400 && status < 500)
    return { kind: 'client', reason: `${what} answered ${status}, retrying alone will not fix it: ${server}` };
  return { kind: 'transient', reason: status ? `${what} answered ${status}: ${server}` : server };
}

/** The handler's record after a failed attempt: a temporary failure delayed by the backoff, unless its limits end it. */
function countAttempt(
  handler: Attribution,
  reason: string,
  delayMs: number,
  now: Date,
): { record: ProgressRecord; final: boolean } {
  const previous = handler.record;
  const started = new Date(previous?.started ?? handler.started);
  const attempts = (previous?.retries ?? 0) + 1;
  const failed: Outcome =
    handler.outcome === 'permanent'
      ? { kind: 'permanent', message: reason }
      : { kind: 'temporary', delay: delayMs / 1000, message: reason };
  const limited = applyLimits(failed, handler.options, attempts, started, now);
  return { record: nextRecord(previous, handler.cause, limited, started, now), final: limited.kind === 'permanent' };
}

export function errorPolicy(failure: Failure): Decision {
  const attributed = failure.error instanceof HandlerStepFailed ? failure.error.handler : undefined;
  const cause = failure.error instanceof HandlerStepFailed ? failure.error.error : failure.error;
  const { kind, reason } = classify(cause);
  const delayMs = backoffDelay(failure.failures, failure.backoff);
  const retry = `retrying in ${delayMs / 1000}s (failure ${failure.failures} in a row)`;
  if (!attributed) {
    return {
      kind,
      reason,
      delayMs,
      action: Action.requeueAfter(delayMs),
      event: { reason: 'ReconcileFailed', message: `Processing failed: ${reason}` },
      log: `processing failed, ${retry}: ${reason}`,
    };
  }
  const { record, final } = countAttempt(attributed, reason, delayMs, failure.now);
  const handler = { id: attributed.id, key: attributed.key, record, final };
  const ended = final ? `failed permanently: ${record.message ?? reason}` : `failed: ${reason}`;
  const next = final ? 'not retrying it' : retry;
  return {
    kind,
    reason,
    delayMs,
    action: Action.requeueAfter(delayMs),
    handler,
    event: { reason: `${attributed.id}Failed`.slice(0, 128), message: `Handler ${attributed.id} ${ended}` },
    log: `handler ${attributed.id} ${ended} (attempt ${record.retries}), ${next}`,
  };
}
