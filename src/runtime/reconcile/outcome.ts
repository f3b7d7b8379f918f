/**
 * What an attempt of a handler came to, and the arithmetic of retries, as in kopf's
 * execution.py: TemporaryError retries after its delay (else the backoff, 60 s by default),
 * PermanentError stops, other errors follow the handler's errors mode. Unlike kopf, a
 * handler's `retries` limit and `timeout` turn the failing attempt itself into a permanent
 * failure instead of waiting one more backoff to find out.
 */
import { isHandlerError } from '../api/errors.js';
import type { ProgressRecord } from './progress.js';
import type { Cause, HandlerOptions } from '../api/registry.js';
import { messageOf } from '../error-message.js';

export const DEFAULT_BACKOFF_SECONDS = 60;

export type OutcomeKind = 'success' | 'temporary' | 'permanent' | 'ignored';

export interface Outcome {
  kind: OutcomeKind;
  /** What goes into `status.<id>`: the return value, or the error's `status`. */
  status?: unknown;
  /** Seconds until the retry (temporary only). */
  delay?: number;
  message?: string;
  error?: unknown;
  /** The attempt was cut short by the operator's shutdown (no Event: nothing is wrong with the object). */
  interrupted?: boolean;
  /**
   * The handler's sub-handlers have not all finished (effects/subhandlers.ts): it runs again after
   * `delay`, its attempts not counted, no Event (kopf's HandlerChildrenRetry, logged at debug).
   */
  pending?: boolean;
}

export type Attempt = { ok: true; value: unknown } | { ok: false; error: unknown };

/** A property of a thrown value (any copy of the error classes, or a look-alike); undefined if absent. */
function carried(error: unknown, key: 'delay' | 'status'): unknown {
  return typeof error === 'object' && error !== null ? Reflect.get(error, key) : undefined;
}

/** Classifies one attempt's result, before limits are applied. */
export function classify(attempt: Attempt, options: HandlerOptions): Outcome {
  if (attempt.ok) return { kind: 'success', status: attempt.value ?? undefined };
  const error = attempt.error;
  const kind = isHandlerError(error);
  const backoff = options.backoff ?? DEFAULT_BACKOFF_SECONDS;
  if (kind === 'temporary') {
    const given = carried(error, 'delay');
    const delay = Math.max(0, typeof given === 'number' ? given : backoff);
    return { kind: 'temporary', status: carried(error, 'status'), delay, message: messageOf(error), error };
  }
  if (kind === 'permanent') {
    return { kind: 'permanent', status: carried(error, 'status'), message: messageOf(error), error };
  }
  const mode = options.errors ?? 'temporary';
  if (mode === 'permanent') return { kind: 'permanent', message: messageOf(error), error };
  if (mode === 'ignored') return { kind: 'ignored', message: messageOf(error), error };
  return { kind: 'temporary', delay: Math.max(0, backoff), message: messageOf(error), error };
}

/** Seconds left before the handler's timeout, or undefined without one. */
export function timeLeft(options: HandlerOptions, started: Date, now: Date): number | undefined {
  if (options.timeout === undefined) return undefined;
  return options.timeout - (now.getTime() - started.getTime()) / 1000;
}

/**
 * Why the handler must not run (again) for this cause, checked before an attempt: the
 * number of attempts or the time since the first one is used up (kopf's HandlerRetriesError /
 * HandlerTimeoutError, both permanent).
 */
export function exhausted(options: HandlerOptions, record: ProgressRecord | undefined, now: Date): string | undefined {
  if (!record) return undefined;
  if (options.retries !== undefined && record.retries >= options.retries)
    return `gave up after ${record.retries} attempt(s)`;
  const left = timeLeft(options, new Date(record.started), now);
  if (left !== undefined && left <= 0) return `timed out after ${options.timeout}s`;
  return undefined;
}

/** Applies the retries/timeout limits to a temporary outcome of attempt number `attempts` (1-based). */
export function applyLimits(
  outcome: Outcome,
  options: HandlerOptions,
  attempts: number,
  started: Date,
  now: Date,
): Outcome {
  if (outcome.kind !== 'temporary') return outcome;
  if (options.retries !== undefined && attempts >= options.retries) {
    return {
      ...outcome,
      kind: 'permanent',
      delay: undefined,
      message: `${outcome.message} (gave up after ${attempts} attempt(s))`,
    };
  }
  const left = timeLeft(options, started, now);
  if (left !== undefined && left - (outcome.delay ?? 0) <= 0) {
    return {
      ...outcome,
      kind: 'permanent',
      delay: undefined,
      message: `${outcome.message} (timed out after ${options.timeout}s)`,
    };
  }
  return outcome;
}

/** The progress record after an attempt. */
export function nextRecord(
  previous: ProgressRecord | undefined,
  cause: Cause,
  outcome: Outcome,
  started: Date,
  now: Date,
): ProgressRecord {
  const base: ProgressRecord = {
    started: started.toISOString(),
    purpose: cause,
    retries: (previous?.retries ?? 0) + 1,
  };
  switch (outcome.kind) {
    case 'success':
      return { ...base, stopped: now.toISOString(), success: true };
    case 'ignored':
      return { ...base, stopped: now.toISOString(), success: true, message: `ignored: ${outcome.message}` };
    case 'permanent':
      return { ...base, stopped: now.toISOString(), failure: true, message: outcome.message };
    case 'temporary':
      return {
        ...base,
        delayed: new Date(now.getTime() + (outcome.delay ?? 0) * 1000).toISOString(),
        message: outcome.message,
      };
  }
}
