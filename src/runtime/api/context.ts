/**
 * What a handler callback receives, typed by the resource. Mirrors kopf's kwargs
 * (body, spec, status, meta, name, namespace, patch, logger, retry, started, runtime, diff, old, new).
 */
import type { Client, ClientKind, WriteBody } from './client-api.js';
import type { ConditionsOf } from './conditions-api.js';
import type { ObjectMeta } from './kube-types.js';
import type { DiffItem, Essence } from './field-paths.js';
import type { Memo } from './memo.js';
import type { MergePatch } from './resource.js';

export type { MergePatch } from './resource.js';

/**
 * Why a handler runs: the changing causes (create, update, delete, resume, field; progress-tracked),
 * a raw watch event (`event`), a timer tick (`timer`), a daemon (`daemon`) or a change of an owned
 * object (`child`): the last three land their result in `status.<id>` without progress records.
 */
export type Cause = 'create' | 'update' | 'delete' | 'resume' | 'field' | 'event' | 'timer' | 'daemon' | 'child';

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

/**
 * `W`: the resource's write view, which types `patch` (the object as read when they agree). `O`:
 * what `old`/`new` hold and `diff` compares: the essence (`Essence<R>`) for create, update, resume,
 * delete, timer and daemon handlers, the field's value for an `onField` handler. `O` defaults to
 * `unknown`, so `HandlerContext<R>` is what every handler's context of `R` is assignable to: a helper
 * typed so is callable from any of them (kopf passes one kwargs shape to every handler). A helper
 * that reads `old`/`new` as the essence takes `HandlerContext<R, W, Essence<R>>`. `D`: one `diff`
 * entry, `DiffItem<O>`; a parameter of its own because TypeScript cannot measure how a conditional
 * type varies with `O` and would compare contexts as if `O` were invariant, so no field handler's
 * context would be assignable to `HandlerContext<R>`.
 */
export interface HandlerContext<R, W = R, O = unknown, D = DiffItem<O>> {
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
  /** What changed, typed by path where `O` types it (`DiffItem`). */
  diff: readonly D[];
  /**
   * The essence last handled and the essence now: no apiVersion, kind or status, metadata reduced
   * to labels and annotations (create: `old` undefined; delete: both undefined). For a field
   * handler, the field's value in each.
   */
  old: O | undefined;
  new: O | undefined;
  /** Aborted when the operator shuts down or the handler's timeout passes. */
  signal: AbortSignal;
  /**
   * This object's memo (kopf's `memo`): a shallow copy of the operator's (`HookContext.memo`), made when
   * the object is first handled and shared by all its handlers while it is known. Typed by the project's
   * `Memo` declaration (api/memo.ts).
   */
  memo: Memo;
  /**
   * The typed client (client-api.ts): other objects read and written with the operator's credentials,
   * retry policy and metrics, under the term's lease fence, waiting at most until `signal` aborts.
   */
  client: Client;
  /**
   * `child` made this object's (kopf's `adopt`, controller-runtime's `SetControllerReference`): a
   * controller owner reference to this object (blockOwnerDeletion), this object's namespace, and,
   * when it has none, this object's name; and this object's labels under the child's own (as kopf's
   * `adopt`; `{ labels: false }` leaves them out).
   * Throws for a cluster-scoped child of a namespaced object, a child in another namespace, or one
   * another object controls (the garbage collector would delete or keep it against the intent).
   */
  adopt<CR, CW>(kind: ClientKind<CR, CW>, child: WriteBody<CW>, options?: AdoptOptions): WriteBody<CW>;
  /**
   * This object's own `status.conditions` entries (conditions-api.ts), written with the outcome:
   * `ctx.conditions.set('Degraded', { status: 'True', reason: 'NoQuorum', message })`. Present where
   * the resource's status schema has a `conditions` list (else `never`), named by its enum if any.
   */
  conditions: ConditionsOf<R>;
  /**
   * Posts an Event about `object` (this object, `ctx.body`, or any other, e.g. a child the client
   * returned; a list posts one each): kopf's `kopf.event`. Written in the background, aggregated and
   * rate-limited with the operator's own Events; never throws.
   */
  event(object: EventObject | readonly EventObject[], event: PostedEvent): void;
  /** A Normal Event about `object` (kopf's `kopf.info`). */
  info(object: EventObject | readonly EventObject[], reason: string, message?: string): void;
  /** A Warning Event about `object` (kopf's `kopf.warn`). */
  warn(object: EventObject | readonly EventObject[], reason: string, message?: string): void;
  /**
   * A Warning Event about `object` for `error` (kopf's `kopf.exception`): the reason defaults to the
   * error's name, the message is `message` followed by the error's. kopf posts the type `Error`, which
   * Kubernetes does not define (Normal and Warning); kopfgen posts a Warning.
   */
  exception(object: EventObject | readonly EventObject[], error: unknown, reason?: string, message?: string): void;
}

/**
 * What an Event can be about: an object as read, of any typing (generated, kubernetes-types): only
 * what an Event's involvedObject names of it.
 */
export interface EventObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
}

/** An Event to post (core/v1 Event: type Normal or Warning, an UpperCamelCase reason, a message). */
export interface PostedEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message?: string;
}

export interface AdoptOptions {
  /** Copy this object's labels onto the child, under the child's own (kopf's `adopt` labels too). Default true. */
  labels?: boolean;
}

/** What happened to an owned object: the watch event that woke its owner's `child` handler. */
export type ChildEvent = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * What a `child` handler receives (`onChild`): the owner's context (its object, `patch`, status type)
 * and the owned object that changed. `C`: the owned kind's object type.
 */
export interface ChildContext<R, W, C> extends HandlerContext<R, W, Essence<R>> {
  /** The owned object as the watch delivered it; undefined when it was deleted. */
  child: C | undefined;
  childEvent: ChildEvent;
  /** The owned object's name (also when it was deleted). */
  childName: string;
  /** The owned object's namespace (the owner's: a child elsewhere is not its); undefined for a cluster-scoped kind. */
  childNamespace: string | undefined;
  /**
   * The names of every owned object of this kind whose news this run of the handler was woken for, this one
   * included: the handler is called once for each, in the order the news came, and their results are merged
   * into one write of `status.<id>`.
   */
  changedChildren: readonly string[];
}
