/**
 * Handler errors that carry a status payload. Thrown anywhere below a handler (also from a
 * helper shared by several handlers), their `status` is merged into `status.<id>` of the
 * handler that is running when they surface: the runtime knows the id, the thrower need not.
 */

import type { StatusPatch } from './resource.js';

/**
 * What an error may carry, typed by the handler's status type in generated subclasses: the
 * status as a return value may be, `null` clearing an optional field (see `StatusPatch`).
 */
export interface HandlerErrorOptions<S> {
  /** Merged into `status.<handler id>` exactly like a handler's return value. */
  status?: StatusPatch<S>;
  /** The underlying error, kept for logs (standard `Error.cause`). */
  cause?: unknown;
}

export interface TemporaryErrorOptions<S> extends HandlerErrorOptions<S> {
  /** Seconds until the retry; the handler's backoff applies when omitted. */
  delay?: number;
}

/**
 * Brand recognised across copies of this module (a `.ts` operator loaded through tsx next to the
 * compiled runtime may bring a second copy, where `instanceof` would fail).
 */
export const handlerErrorKind: unique symbol = Symbol.for('kopfgen.handlerErrorKind') as never;

/** Base of the handler errors, so the runtime can recognise either with one `instanceof`. */
export abstract class HandlerError<S = unknown> extends Error {
  readonly status: StatusPatch<S> | undefined;
  abstract readonly [handlerErrorKind]: 'temporary' | 'permanent';
  constructor(message: string, options: HandlerErrorOptions<S> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = options.status;
  }
}

/** `temporary` / `permanent` for a TemporaryError / PermanentError (of any copy of this module), else undefined. */
export function isHandlerError(error: unknown): 'temporary' | 'permanent' | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const value: unknown = Reflect.get(error, Symbol.for('kopfgen.handlerErrorKind'));
  return value === 'temporary' || value === 'permanent' ? value : undefined;
}

/** The handler failed for now; it is retried after `delay` seconds (or its backoff). */
export class TemporaryError<S = Record<string, unknown>> extends HandlerError<S> {
  readonly delay: number | undefined;
  readonly [handlerErrorKind] = 'temporary' as const;
  constructor(message: string, options: TemporaryErrorOptions<S> = {}) {
    super(message, options);
    this.delay = options.delay;
  }
}

/** The handler failed for good: not retried for this cause; its status is still written. */
export class PermanentError<S = Record<string, unknown>> extends HandlerError<S> {
  readonly [handlerErrorKind] = 'permanent' as const;
}
