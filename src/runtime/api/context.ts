/**
 * What a handler callback receives, typed by the resource. Mirrors kopf's kwargs
 * (body, spec, status, meta, name, namespace, patch, logger, retry, started, runtime, diff, old, new).
 */
import type { Cause } from './registry.js';
import type { ObjectMeta } from './kube-types.js';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

type SpecOf<R> = R extends { spec?: infer S } ? S : unknown;
type StatusOf<R> = R extends { status?: infer S } ? S : unknown;

/** JSON merge patch (RFC 7386) of the object: `null` deletes a key. Applied after the handler, also when it fails. */
export interface Patch {
  metadata: { labels?: Record<string, string | null>; annotations?: Record<string, string | null> };
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
}

export type DiffOperation = 'add' | 'change' | 'remove';
/** One changed field between the last handled state and now: `[op, path, old, new]`, as in kopf. */
export type DiffItem = readonly [DiffOperation, readonly string[], unknown, unknown];

export interface HandlerContext<R> {
  body: R;
  spec: SpecOf<R>;
  status: StatusOf<R> | undefined;
  meta: ObjectMeta;
  name: string;
  namespace: string | undefined;
  uid: string;
  cause: Cause;
  patch: Patch;
  logger: Logger;
  /** 0 on the first attempt. */
  retry: number;
  /** When the first attempt of this handler for this cause started. */
  started: Date;
  /** Milliseconds since `started`. */
  runtime: number;
  diff: readonly DiffItem[];
  /** The last handled state (update, field) and the current one. */
  old: R | undefined;
  new: R | undefined;
  /** Aborted when the operator shuts down or the handler's timeout passes. */
  signal: AbortSignal;
}
