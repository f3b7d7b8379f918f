/**
 * The typed registration surface that generated modules call: `defineResource` describes a
 * custom resource (what to watch), `defineHandler` binds a handler id and its status type to it.
 * Registrations go to a `Registry` (the default one unless an option names another), which the
 * operator (`kopfgen run`, or `Operator` directly) executes.
 */
import type { AdmissionOptions, MutationContext, ValidateFn } from './admission.js';
import type { ChildContext, HandlerContext } from './context.js';
import { OWNED_ACCESS } from './access.js';
import type { EventContext } from './event-context.js';
import type { ChangeFilters } from './filters.js';
import type { ChangingContext } from './subhandler-api.js';
import type { CheckedFieldPath, Essence, FieldValue } from './field-paths.js';
import {
  Registry,
  defaultRegistry,
  type Cause,
  type DaemonOptions,
  type HandlerOptions,
  type RegisteredHandler,
  type TimerOptions,
} from './registry.js';
import { builtinHandler, isBuiltin, type BuiltinDescriptor } from './builtins.js';
import type { Exact, ResourceDescriptor, StatusPatch } from './resource.js';

// What generated modules and the rest of the runtime import from here, defined where the
// errors, the registry and the built-in kinds can import them without importing this file.
export {
  defineResource,
  type Exact,
  type MergePatch,
  type PrinterColumnDescriptor,
  type ResourceDescriptor,
  type ResourceInfo,
  type StatusPatch,
} from './resource.js';

type Promisable<T> = T | Promise<T>;

/**
 * Which registry an admission registration goes to (default: `defaultRegistry`); beside
 * `AdmissionOptions`, not in it, so the admission types need not import the registry that imports them.
 */
interface InRegistry {
  registry?: Registry;
}

/**
 * A handler callback: returns the handler's status (merged into `status.<id>`) or nothing. `O` is
 * what `old`/`new` hold (the essence, or the watched field's value for `onField`).
 */
export type HandlerFn<Res, S, Ret extends StatusPatch<S> | void, W = Res, O = Essence<Res>> = (
  context: HandlerContext<Res, W, O>,
) => Promisable<Ret & Exact<Ret, StatusPatch<S>>>;

/**
 * A changing handler's callback (create, update, delete, resume, field): a handler's, whose context
 * also registers sub-handlers (`ctx.subhandler`, `ctx.execute`, subhandler-api.ts).
 */
export type ChangingFn<Res, S, Ret extends StatusPatch<S> | void, W = Res, O = Essence<Res>> = (
  context: ChangingContext<Res, S, W, O>,
) => Promisable<Ret & Exact<Ret, StatusPatch<S>>>;

/** A child handler's callback (`onChild`): the owner's context and the owned object; returns the owner's status. */
export type ChildFn<Res, S, Ret extends StatusPatch<S> | void, W, C> = (
  context: ChildContext<Res, W, C>,
) => Promisable<Ret & Exact<Ret, StatusPatch<S>>>;

/**
 * A mutating callback: edits `context.object` (the incoming object in the write view) in place, or
 * returns the edited object, checked exactly against the write view (`Exact`): an unknown key or a
 * wrong type is a compile error, also in an `async` callback.
 */
export type MutateFn<Res, W, Ret extends W | void> = (
  context: MutationContext<Res, W>,
) => Promisable<Ret & Exact<Ret, W>>;

export interface HandlerDefinition<Res, S, W = Res> {
  readonly id: string;
  readonly resource: ResourceDescriptor<Res, W>;
  /** `old` is undefined, `new` the essence (what a later update is compared with). */
  onCreate<Ret extends StatusPatch<S> | void>(fn: ChangingFn<Res, S, Ret, W>, options?: HandlerOptions<Res>): void;
  /** `old`/`new`: the essence last handled and the essence now (no metadata but labels and annotations, no status). */
  onUpdate<Ret extends StatusPatch<S> | void>(fn: ChangingFn<Res, S, Ret, W>, options?: HandlerOptions<Res>): void;
  /** `old`/`new` are undefined: the object is going away. */
  onDelete<Ret extends StatusPatch<S> | void>(fn: ChangingFn<Res, S, Ret, W>, options?: HandlerOptions<Res>): void;
  /** `old`/`new`: the essence last handled and now (equal unless the resume rides along an update). */
  onResume<Ret extends StatusPatch<S> | void>(fn: ChangingFn<Res, S, Ret, W>, options?: HandlerOptions<Res>): void;
  /**
   * Runs on create/update when the value at `field` (a dotted path into the essence, e.g.
   * `spec.replicas`; a typo is a compile error) changed; `old`/`new` are that field's values. The
   * options' `old`/`new` (kopf's `old=`/`new=`) narrow it to changes from and to given values, typed
   * by the field's value type: `{ old: 'value', new: 'changed' }`.
   */
  onField<P extends string, Ret extends StatusPatch<S> | void>(
    field: P & CheckedFieldPath<Res, NoInfer<P>>,
    fn: ChangingFn<Res, S, Ret, W, FieldValue<Res, NoInfer<P>>>,
    options?: HandlerOptions<Res> & ChangeFilters<FieldValue<Res, NoInfer<P>>>,
  ): void;
  /**
   * Every raw watch event of a matching object (kopf's on.event): no progress, no status write, no
   * retries; an error is logged and the next event comes regardless.
   */
  onEvent(fn: (context: EventContext<Res>) => Promisable<void>, options?: HandlerOptions<Res>): void;
  /** Runs every `interval` seconds per matching object (kopf's timer); its result lands in `status.<id>`. */
  onTimer<Ret extends StatusPatch<S> | void>(
    fn: HandlerFn<Res, S, Ret, W>,
    options: HandlerOptions<Res> & TimerOptions,
  ): void;
  /**
   * One long-running call per matching object (kopf's daemon), its `signal` aborted on deletion,
   * shutdown or lost leadership; its result lands in `status.<id>`.
   */
  onDaemon<Ret extends StatusPatch<S> | void>(
    fn: HandlerFn<Res, S, Ret, W>,
    options?: HandlerOptions<Res> & DaemonOptions,
  ): void;
  /**
   * Runs when an object of `kind` that this resource's object controls (a controller owner reference,
   * `ctx.adopt`) is added, changed or deleted, with the owner's context and `child`/`childEvent`; its
   * result lands in `status.<id>` (a Deployment's readiness mirrored into the owner's status). Declares
   * `kind` as owned: the leader watches it, `kopfgen manifests` grants get, list, watch, create, patch
   * and delete on it. Not run for owners the operator does not handle or whose deletion is marked.
   */
  onChild<C, CW, Ret extends StatusPatch<S> | void>(
    kind: ResourceDescriptor<C, CW>,
    fn: ChildFn<Res, S, Ret, W, C>,
    options?: HandlerOptions<Res>,
  ): void;
  /**
   * A validating admission webhook (kopf's on.validate): return nothing to allow, warnings to allow with
   * them, or return/throw an AdmissionError to deny; served by every replica at `/validate/…`.
   */
  onValidate(fn: ValidateFn<Res>, options?: AdmissionOptions<Res> & InRegistry): void;
  /**
   * A mutating admission webhook (kopf's on.mutate): edit `context.object` or return the edited object;
   * the API server receives the JSON patch of the difference. Throw an AdmissionError to deny.
   */
  onMutate<Ret extends W | void>(fn: MutateFn<Res, W, Ret>, options?: AdmissionOptions<Res> & InRegistry): void;
}

/** Splits a timer's or daemon's schedule from the options every registration shares. */
function scheduleOf(cause: Cause, options: HandlerOptions & Partial<TimerOptions & DaemonOptions>) {
  const { interval, initialDelay, idle, sharp, cancellationTimeout, ...common } = options;
  const extra: Pick<RegisteredHandler, 'timer' | 'daemon'> = {};
  // A timer without a positive interval would spin: refused at registration, like a clashing id.
  if (cause === 'timer' && !(typeof interval === 'number' && interval > 0))
    throw new Error(`a timer needs an interval in seconds above 0 (got ${String(interval)})`);
  if (cause === 'timer') extra.timer = { interval: interval ?? 0, initialDelay, idle, sharp };
  if (cause === 'daemon') extra.daemon = { initialDelay, cancellationTimeout };
  return { common, extra };
}

/** The object type a descriptor carries. */
type ResourceOf<D> = D extends ResourceDescriptor<infer R, unknown> ? R : never;

/**
 * A built-in kind's handlers (builtins.ts): the status type is `never`, so a handler that returns a
 * value does not compile; the status of Kubernetes' own kinds is not the operator's to write.
 */
export function defineHandler<D extends BuiltinDescriptor<unknown>>(
  resource: D,
  id: string,
): HandlerDefinition<ResourceOf<D>, never>;
export function defineHandler<Res, S, W = Res>(
  resource: ResourceDescriptor<Res, W>,
  id: string,
): HandlerDefinition<Res, S, W>;
export function defineHandler<Res, S, W = Res>(
  resource: ResourceDescriptor<Res, W>,
  id: string,
): HandlerDefinition<Res, S, W> {
  const builtin = isBuiltin(resource);
  const register =
    (cause: Cause) =>
    (
      fn: (context: never) => unknown,
      options: HandlerOptions<Res> & Partial<TimerOptions & DaemonOptions> & ChangeFilters<unknown> = {},
      field?: string,
      child?: ResourceDescriptor<unknown, unknown>,
    ): void => {
      const registry: Registry = options.registry ?? defaultRegistry;
      const { common, extra } = scheduleOf(cause, options);
      const callback = fn as never;
      // An event handler writes nothing, so a built-in kind's needs no guard against status writes.
      const guarded = builtin && cause !== 'event' ? builtinHandler(id, callback) : callback;
      registry.register({
        resource,
        id,
        cause,
        fn: guarded,
        options: common,
        field,
        ...extra,
        ...(child && { child }),
      });
      if (child) {
        const { group, version, plural, kind, scope } = child;
        const via = `${id}.onChild(${kind}, …)`;
        registry.declare({ resource: { group, version, plural, kind, scope }, verbs: OWNED_ACCESS, via });
      }
    };
  const admission =
    (kind: 'validate' | 'mutate') =>
    (fn: (context: never) => unknown, options: AdmissionOptions<Res> & InRegistry = {}): void => {
      const { registry = defaultRegistry, ...rest } = options;
      registry.registerWebhook({ resource, id, kind, fn: fn as never, options: rest as AdmissionOptions });
    };
  const definition: HandlerDefinition<Res, S, W> = {
    id,
    resource,
    onCreate: (fn, options) => register('create')(fn, options),
    onUpdate: (fn, options) => register('update')(fn, options),
    onDelete: (fn, options) => register('delete')(fn, options),
    onResume: (fn, options) => register('resume')(fn, options),
    onField: (field, fn, options) => register('field')(fn, options, field),
    onEvent: (fn, options) => register('event')(fn, options),
    onTimer: (fn, options) => register('timer')(fn, options),
    onDaemon: (fn, options) => register('daemon')(fn, options),
    onChild: (kind, fn, options) => register('child')(fn, options, undefined, kind),
    onValidate: (fn, options) => admission('validate')(fn, options),
    onMutate: (fn, options) => admission('mutate')(fn, options),
  };
  return Object.freeze(definition);
}

/**
 * Brands a handler's status type with its owner (`readonly [handlerStatus]?: "<group>/<Kind>/<id>"`),
 * so a status typed for one handler is not accepted by another handler's error class even
 * where the two are structurally alike. Never present at run time.
 */
export const handlerStatus: unique symbol = Symbol('kopfgen.handlerStatus');
