/**
 * Where handler registrations go. Generated `defineHandler(...)` objects register into the
 * default registry unless `options.registry` names another (tests use their own).
 */
import type { HandlerContext } from './context.js';
import type { ResourceDescriptor } from './define.js';

export type Cause = 'create' | 'update' | 'delete' | 'resume' | 'field';

/** What a handler does with an error that is neither TemporaryError nor PermanentError. */
export type ErrorsMode = 'temporary' | 'permanent' | 'ignored';

/**
 * How a handler's status payload (return value, or an error's `status`) meets `status.<id>`:
 * `merge` (default, kopf's): merged key by key, so keys an earlier attempt wrote stay unless the
 * payload sets them to `null`; `replace`: the payload becomes `status.<id>` whole, the runtime
 * nulling every key the object holds there that the payload lacks.
 */
export type StatusMode = 'merge' | 'replace';

export interface HandlerOptions {
  /** Attempts before the handler fails for good (default: unlimited, as in kopf). */
  retries?: number;
  /** Seconds since the first attempt after which the handler fails for good. */
  timeout?: number;
  /** Seconds before a retry when an error gives no delay (default 60, as in kopf). */
  backoff?: number;
  /** How errors other than TemporaryError/PermanentError are treated (default `temporary`). */
  errors?: ErrorsMode;
  /** How a status payload meets `status.<id>`: `merge` (default) or `replace`. */
  status?: StatusMode;
  /** The registry to register into (default: `defaultRegistry`). */
  registry?: Registry;
}

export interface RegisteredHandler {
  resource: ResourceDescriptor;
  id: string;
  cause: Cause;
  fn: (context: HandlerContext<unknown, unknown, unknown>) => unknown;
  options: HandlerOptions;
  /** For `field` handlers: the dotted path whose change triggers the handler. */
  field?: string;
}

function resourceKey(r: ResourceDescriptor): string {
  return `${r.plural}.${r.group}/${r.version}`;
}

export class Registry {
  readonly handlers: RegisteredHandler[] = [];

  register(handler: RegisteredHandler): void {
    const clash = this.handlers.find(
      (h) =>
        resourceKey(h.resource) === resourceKey(handler.resource) &&
        h.id === handler.id &&
        h.cause === handler.cause &&
        h.field === handler.field,
    );
    // Two callbacks for one id and cause would race for the same status.<id> and progress record.
    if (clash)
      throw new Error(
        `handler ${handler.id} (${handler.cause}) is already registered for ${resourceKey(handler.resource)}`,
      );
    this.handlers.push(handler);
  }

  /** The distinct resources that have handlers, in registration order. */
  resources(): ResourceDescriptor[] {
    const seen = new Map<string, ResourceDescriptor>();
    for (const h of this.handlers)
      if (!seen.has(resourceKey(h.resource))) seen.set(resourceKey(h.resource), h.resource);
    return [...seen.values()];
  }

  handlersFor(resource: ResourceDescriptor): RegisteredHandler[] {
    return this.handlers.filter((h) => resourceKey(h.resource) === resourceKey(resource));
  }
}

/**
 * One default registry per process, even when a `.ts` operator loaded through tsx brings a
 * second copy of this module: both copies find the same instance under a global symbol.
 */
const globalKey = Symbol.for('kopfgen.defaultRegistry');
export const defaultRegistry: Registry = ((globalThis as Record<symbol, unknown>)[globalKey] ??=
  new Registry()) as Registry;
