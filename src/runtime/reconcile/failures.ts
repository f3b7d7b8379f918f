/**
 * What can fail in a reconcile besides a handler, as values the one error policy
 * (error-policy.ts) can tell apart: a request the API server refused (with the verb and
 * resource, so a 403 can name the missing permission), a status subresource the cluster's CRD
 * lacks, a result JSON cannot carry, and the handler a failure belongs to.
 */
import type { HandlerOptions } from '../api/registry.js';
import type { Cause } from '../api/registry.js';
import type { OutcomeKind } from './outcome.js';
import type { ProgressRecord } from './progress.js';
import { messageOf } from '../error-message.js';

/** Which request failed: `patch` on `myresources/status` in namespace `ns`. */
export interface RequestRef {
  verb: string;
  /** `<plural>` or `<plural>/<subresource>`, as RBAC rules name it. */
  resource: string;
  group: string;
  namespace: string | undefined;
  name: string | undefined;
}

/** A request that failed for good (the write retry policy gave up or does not retry it). */
export class RequestFailed extends Error {
  constructor(
    readonly request: RequestRef,
    /** The HTTP status, or 0 when no answer came (network). */
    readonly status: number,
    readonly serverMessage: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${request.verb} ${request.resource}${request.name ? ` ${request.name}` : ''}: ${status || 'no answer'} ${serverMessage}`,
      options,
    );
    this.name = 'RequestFailed';
  }
}

/** `/status` answered 404 while the object exists: the cluster's CRD has no status subresource. */
export class StatusSubresourceMissing extends Error {
  constructor(readonly resource: string) {
    super(
      `${resource} has no status subresource in the cluster, but its descriptor says statusSubresource: true ` +
        '(regenerate from the installed CRD, or add the subresource to the CRD)',
    );
    this.name = 'StatusSubresourceMissing';
  }
}

/** A handler's result, error status or patch that JSON cannot carry (a BigInt, a cycle). */
export class Unserialisable extends Error {
  constructor(why: string) {
    super(`the handler's result cannot be written as JSON: ${why}`);
    this.name = 'Unserialisable';
  }
}

/** The handler whose attempt a failure belongs to: the failure counts as an attempt of it. */
export interface Attribution {
  id: string;
  key: string;
  cause: Cause;
  options: HandlerOptions;
  /** The handler's progress record before this attempt. */
  record: ProgressRecord | undefined;
  /**
   * ISO time of the handler's first attempt for this cause (the record's `started`, or this attempt's
   * start when it is the first): the failure counts against the handler's `timeout` from there, not from
   * when the failure was noticed.
   */
  started: string;
  /** What the attempt itself came to, when the handler ran (its recording is what failed). */
  outcome?: OutcomeKind;
}

/** A failure while a handler's attempt was run or recorded. */
export class HandlerStepFailed extends Error {
  constructor(
    readonly handler: Attribution,
    readonly error: unknown,
  ) {
    super(messageOf(error), { cause: error });
    this.name = 'HandlerStepFailed';
  }
}
