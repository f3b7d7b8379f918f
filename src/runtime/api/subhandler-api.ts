/**
 * Sub-handlers (kopf's `@kopf.subhandler` / `kopf.register` / `kopf.execute` inside a handler): a
 * changing handler (create, update, delete, resume, field) registers handlers while it runs, each
 * tracked by a progress record of its own (`<parent key>/<id>`) and retried alone; the parent is done
 * once all of them are. What each returns is merged into the parent's `status.<parent id>`, like the
 * parent's own return value (kopf writes `status["<parent>/<sub>"]`, a key no schema can type and a
 * structural schema prunes): so a sub-handler returns the parent's status type, checked exactly.
 */
import type { HandlerContext } from './context.js';
import type { ErrorsMode } from './registry.js';
import type { Essence } from './field-paths.js';
import type { Exact, StatusPatch } from './resource.js';

type Promisable<T> = T | Promise<T>;

/** kopf's sub-handler options: limits and error mode of its own (no filters: the parent's apply). */
export interface SubhandlerOptions {
  /** Attempts before the sub-handler fails for good (default: unlimited). */
  retries?: number;
  /** Seconds since its first attempt after which it fails for good (checked before each attempt, as kopf). */
  timeout?: number;
  /** Seconds before a retry when an error gives no delay (default 60). */
  backoff?: number;
  /** How errors other than TemporaryError/PermanentError are treated (default `temporary`). */
  errors?: ErrorsMode;
}

/**
 * A sub-handler's callback: the parent's context (its own `retry`, `started`, `runtime` and logger; the
 * parent's `patch`, shared as kopf shares the cause's patch), returning a part of the parent's status.
 * Sub-handlers do not nest: their context has no `subhandler`/`execute`.
 */
export type SubhandlerFn<R, S, Ret extends StatusPatch<S> | void, W = R, O = Essence<R>> = (
  context: HandlerContext<R, W, O>,
) => Promisable<Ret & Exact<Ret, StatusPatch<S>>>;

/** The context of a changing handler: a handler's context and the sub-handler registration. */
export interface ChangingContext<R, S, W = R, O = Essence<R>> extends HandlerContext<R, W, O> {
  /**
   * Registers a sub-handler for this attempt (kopf's `@kopf.subhandler(id=…)`): after the handler
   * returns, one due sub-handler runs (the fewest attempts first, as kopf's `asap`); until every one has
   * finished the handler runs again (its own retries and Events untouched), registering them again.
   * Ids are unique within the handler.
   */
  subhandler<Ret extends StatusPatch<S> | void>(
    id: string,
    fn: SubhandlerFn<R, S, Ret, W, O>,
    options?: SubhandlerOptions,
  ): void;
  /**
   * kopf's `kopf.execute`: runs one due sub-handler of `fns` (or, without `fns`, of those registered
   * with `subhandler`) now, and returns only once all of them have finished; until then it throws,
   * and the handler runs again later: code after it runs once they are done. Throws a PermanentError
   * naming the sub-handlers that failed for good.
   */
  execute(fns?: Readonly<Record<string, SubhandlerFn<R, S, StatusPatch<S> | void, W, O>>>): Promise<void>;
}
