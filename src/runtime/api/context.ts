/**
 * What a handler callback receives, typed by the resource. Mirrors kopf's kwargs
 * (body, spec, status, meta, name, namespace, patch, logger, retry, started, runtime, diff, old, new).
 */
import type { ObjectMeta } from './kube-types.js';
import type { Essence } from './field-paths.js';
import type { MergePatch } from './resource.js';

export type { MergePatch } from './resource.js';

/**
 * Why a handler runs: the changing causes (create, update, delete, resume, field; progress-tracked),
 * a raw watch event (`event`), a timer tick (`timer`) or a daemon (`daemon`): the last two are
 * kopf's spawning handlers, whose result lands in `status.<id>` without progress records.
 */
export type Cause = 'create' | 'update' | 'delete' | 'resume' | 'field' | 'event' | 'timer' | 'daemon';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

type SpecOf<R> = R extends { spec?: infer S } ? S : unknown;
type StatusOf<R> = R extends { status?: infer S } ? S : unknown;

/** The patch of one section (`spec`, `status`) of `W`: typed where the resource types it, else open. */
type SectionPatch<S> = [NonNullable<S>] extends [object]
  ? [unknown] extends [S]
    ? Record<string, unknown>
    : MergePatch<NonNullable<S>>
  : Record<string, unknown>;

/**
 * The metadata a handler may patch. `finalizers` and `ownerReferences` are lists, which a merge
 * patch replaces whole: the runtime keeps the operator's own finalizer in (or out of) the list as
 * the object has it, so a handler lists only the finalizers it means.
 */
export type MetadataPatch = MergePatch<Pick<ObjectMeta, 'labels' | 'annotations' | 'finalizers' | 'ownerReferences'>>;

/**
 * JSON merge patch (RFC 7386) of the object: `null` deletes a key. Applied after the handler, also
 * when it fails; every key is written (kopf's `patch` takes any key). Typed by the resource's write
 * view `W` (`…Input`, where server defaults make it differ from the object as read): `metadata`
 * and `spec`, `status` are always there to assign into. Other top-level keys (a `data` beside
 * `spec`) are accepted untyped: typing them from `W` too makes TypeScript compare a stub declared
 * with the read view's context (`HandlerContext<R>`) against the write view's by `W` itself, and
 * reject it.
 */
export interface Patch<W = unknown> {
  metadata: MetadataPatch;
  spec: SectionPatch<SpecOf<W>>;
  status: SectionPatch<StatusOf<W>>;
  [key: string]: unknown;
}

export type DiffOperation = 'add' | 'change' | 'remove';
/** One changed field between the last handled state and now: `[op, path, old, new]`, as in kopf. */
export type DiffItem = readonly [DiffOperation, readonly string[], unknown, unknown];

/**
 * `W`: the resource's write view, which types `patch` (the object as read when they agree). `O`:
 * what `old`/`new` hold, the essence (see `Essence`) or, for a field handler, the field's value.
 */
export interface HandlerContext<R, W = R, O = Essence<R>> {
  body: R;
  spec: SpecOf<R>;
  status: StatusOf<R> | undefined;
  meta: ObjectMeta;
  name: string;
  namespace: string | undefined;
  uid: string;
  cause: Cause;
  patch: Patch<W>;
  logger: Logger;
  /** 0 on the first attempt. */
  retry: number;
  /** When the first attempt of this handler for this cause started. */
  started: Date;
  /** Milliseconds since `started`. */
  runtime: number;
  diff: readonly DiffItem[];
  /**
   * The essence last handled and the essence now: no apiVersion, kind or status, metadata reduced
   * to labels and annotations (create: `old` undefined; delete: both undefined). For a field
   * handler, the field's value in each.
   */
  old: O | undefined;
  new: O | undefined;
  /** Aborted when the operator shuts down or the handler's timeout passes. */
  signal: AbortSignal;
}
