/**
 * Where handler registrations go. Generated `defineHandler(...)` objects register into the
 * default registry unless `options.registry` names another (tests use their own).
 */
import type { AdmissionContext, AdmissionOptions, MutationContext } from './admission.js';
import type { Client } from './client-api.js';
import type { Cause, HandlerContext, Logger } from './context.js';
import type { ConversionFn } from './conversion-fn.js';
import type { Memo } from './memo.js';
import type { ChangeFilters, Filters } from './filters.js';
import type { ResourceDescriptor } from './resource.js';

export type { Cause } from './context.js';

/** What a handler does with an error that is neither TemporaryError nor PermanentError. */
export type ErrorsMode = 'temporary' | 'permanent' | 'ignored';

/**
 * How a handler's status payload (return value, or an error's `status`) meets `status.<id>`:
 * `merge` (default, kopf's): merged key by key, so keys an earlier attempt wrote stay unless the
 * payload sets them to `null`; `replace`: the payload becomes `status.<id>` whole, the runtime
 * nulling every key the object holds there that the payload lacks.
 */
export type StatusMode = 'merge' | 'replace';

/** Options of every registration, with its filters (`R`: the resource, which types `when`). */
export interface HandlerOptions<R = unknown> extends Filters<R> {
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
  /**
   * Delete handlers only (kopf's `optional=True`): adds no finalizer; runs only if the operator
   * sees the deletion while something else (another finalizer) still holds the object.
   */
  optional?: boolean;
  /**
   * Resume handlers only (kopf's `deleted=True`): also run for an object found already marked for
   * deletion when the operator starts (or takes over), alongside its delete handlers and before the
   * finalizer goes. Without it a resume handler skips such an object, as kopf's does.
   */
  deleted?: boolean;
  /**
   * Fields of the resource whose values the operator must not store as they are (dotted paths into
   * the essence, e.g. `spec.password`): the last-handled state keeps keyed digests of them, and
   * `diff`, `old` and `new` show those digests. They apply to the resource as a whole, with its
   * descriptor's `sensitive` and every other registration's (a generated descriptor cannot be edited).
   */
  sensitive?: readonly string[];
  /**
   * Who sets the resource's `Ready` condition (where its status schema has `conditions`): `auto`
   * (default) the runtime, from the handlers' outcomes (reconcile/conditions.ts); `manual` the
   * handlers, through `ctx.conditions.set('Ready', …)` (e.g. once a child Deployment is available).
   * One registration asking for `manual` makes it so for the resource.
   */
  readiness?: 'auto' | 'manual';
}

/** kopf's @kopf.timer: when a timer runs for each object. Seconds. */
export interface TimerOptions {
  /** Between runs: after the previous run ends, or on a fixed schedule with `sharp`. */
  interval: number;
  /** Before the first run, after the object is first seen (default 0). */
  initialDelay?: number;
  /** Only once the object (what the user controls: spec, labels, annotations) has not changed for this long. */
  idle?: number;
  /** Runs at initialDelay + n × interval from the start, not interval after the last run ended. */
  sharp?: boolean;
}

/** kopf's @kopf.daemon: one long-running call per object. Seconds. */
export interface DaemonOptions {
  /** Before the daemon starts, after the object is first seen (default 0). */
  initialDelay?: number;
  /**
   * After its `signal` is aborted (deletion, shutdown, lost leadership), how long the daemon may
   * take to end before it is abandoned with a log line and the object released (default 60).
   */
  cancellationTimeout?: number;
}

/** An operator-level hook: startup (before any watch) or cleanup (after the handlers drained). */
export interface OperatorHook {
  id: string;
  fn: (context: HookContext) => unknown;
  /** How a failing startup hook is retried (api/hooks.ts). */
  retrying?: HookRetries;
}

/**
 * How a failing startup hook is retried (kopf's activity handlers take `errors`, `retries`, `backoff`
 * and `timeout` as any handler): a TemporaryError after its delay; any other error as `errors` says.
 */
export interface HookRetries {
  /** Attempts before the hook fails for good, ending the start (default: unlimited). */
  retries?: number;
  /** Seconds since the first attempt after which it fails for good. */
  timeout?: number;
  /** Seconds before a retry when an error gives no delay (default 60, as in kopf). */
  backoff?: number;
  /**
   * Errors other than TemporaryError/PermanentError: `permanent` (the default: the start ends at once,
   * the place to fail fast), `temporary` (retried after `backoff`, kopf's default) or `ignored`.
   */
  errors?: ErrorsMode;
}

export interface HookContext {
  logger: Logger;
  /**
   * The typed client (client-api.ts), not fenced: hooks run on every replica, leader or not (a
   * startup hook before leader election, a cleanup hook after the term).
   */
  client: Client;
  /** Startup: aborted when the operator is stopped while the hook runs. Cleanup: aborted after 60 s. */
  signal: AbortSignal;
  /** A startup hook's attempts before this one (0 on the first; kopf's `retry`). */
  retry: number;
  /**
   * The operator's memo (kopf's `memo`, a `kopf.Memo`): what startup hooks store here every object's
   * handlers find in their own memo, a shallow copy of this one made when the object is first handled.
   */
  memo: Memo;
}

export interface RegisteredHandler {
  resource: ResourceDescriptor;
  id: string;
  cause: Cause;
  fn: (context: HandlerContext<unknown, unknown, unknown>) => unknown;
  /** With a field handler's `old`/`new` filters (kopf's `old=`/`new=`). */
  options: HandlerOptions & ChangeFilters;
  /** For `field` handlers: the dotted path whose change triggers the handler. */
  field?: string;
  /** For `timer` handlers: the schedule. */
  timer?: TimerOptions;
  /** For `daemon` handlers: the start delay and cancellation timeout. */
  daemon?: DaemonOptions;
  /** For `child` handlers: the owned kind whose objects wake the handler. */
  child?: ResourceDescriptor;
}

/** The verbs RBAC grants (a server-side apply is a `patch`, and a `create` when the object is new). */
export type AccessVerb = 'get' | 'list' | 'watch' | 'create' | 'patch' | 'delete';

/** The coordinates of a kind the operator's code uses, from a descriptor or a `ResourceRef`. */
export interface AccessKind {
  group: string;
  version: string;
  plural: string;
  kind: string;
  scope: 'Namespaced' | 'Cluster';
}

/**
 * A kind the operator's code uses beyond its handled resources (api/access.ts), with the RBAC verbs
 * it needs and the declaration that asked for them (for messages).
 */
export interface DeclaredAccess {
  resource: AccessKind;
  verbs: readonly AccessVerb[];
  via: string;
}

/**
 * An index kept from a watch (api/indexes.ts): the kind watched and the store the operator feeds. The
 * store's methods are the operator's; handlers read it through the `Index` `defineIndex` returned.
 */
export interface RegisteredIndex {
  id: string;
  resource: ResourceDescriptor;
  store: IndexFeed;
}

/** What the operator does to an index as its watch goes (api/indexes.ts `IndexStore`). */
export interface IndexFeed {
  reset(): void;
  upsert(uid: string, object: unknown): void;
  remove(uid: string): void;
  retain(uids: ReadonlySet<string>): void;
  listed(): void;
}

/** A validating or mutating callback as the webhook server runs it (api/admission.ts). */
export interface RegisteredWebhook {
  resource: ResourceDescriptor;
  /** The handler id of the definition it was registered on; names the webhook and its path. */
  id: string;
  kind: 'validate' | 'mutate';
  fn: (context: AdmissionContext<unknown> & Partial<MutationContext<unknown>>) => unknown;
  options: AdmissionOptions;
}

/**
 * A probe (kopf's @kopf.on.probe): a value the operator reports at `/probes` of its health server,
 * computed when asked (a count of tasks, the objects an index holds).
 */
/** The login hooks' answer and context (api/login.ts, kopf's `@kopf.on.login`). */
/** How to reach and authenticate to the API server (kopf's `kopf.ConnectionInfo`). */
export interface ConnectionInfo {
  /** The API server's URL, e.g. `https://10.0.0.1:6443`. */
  server: string;
  /** PEM CA certificate(s) the server's certificate is verified against (default: Node's trusted CAs). */
  ca?: string;
  /** Skip verifying the server's certificate (kubeconfig's `insecure-skip-tls-verify`). */
  insecure?: boolean;
  /** `Authorization: Bearer <token>`. */
  token?: string;
  /** Basic auth (`username`/`password`). */
  username?: string;
  password?: string;
  /** A PEM client certificate and its key. */
  certificate?: { cert: string; key: string };
  /** The namespace an unnamespaced request defaults to (default `default`). */
  namespace?: string;
  /** When these credentials stop working: the next request after it logs in again first. */
  expiration?: Date;
}

export interface LoginContext {
  logger: Logger;
  /** Logins before this one in this process (0 at the start; kopf's `retry` of an activity). */
  retry: number;
}

export type LoginFn = (context: LoginContext) => ConnectionInfo | undefined | Promise<ConnectionInfo | undefined>;

export interface RegisteredLogin {
  id: string;
  fn: LoginFn;
}

export interface RegisteredProbe {
  id: string;
  fn: (context: ProbeContext) => unknown;
}

export interface ProbeContext {
  logger: Logger;
  /** Aborted when the probe takes longer than the request allows (10 s). */
  signal: AbortSignal;
  /** The operator's memo (HookContext.memo). */
  memo: Memo;
}

/** One spoke version's two functions, through the hub (the storage version). */
export interface SpokeFunctions {
  toHub: ConversionFn<unknown, unknown>;
  fromHub: ConversionFn<unknown, unknown>;
}

/** The conversion functions of one CRD (api/conversion.ts): hub and spoke, as controller-runtime's `Hub`/`Convertible`. */
export interface RegisteredConversion {
  group: string;
  plural: string;
  kind: string;
  /** The hub: the storage version. */
  hub: string;
  /** Every other served version's functions, by version name. */
  spokes: ReadonlyMap<string, SpokeFunctions>;
}

function resourceKey(r: ResourceDescriptor): string {
  return `${r.plural}.${r.group}/${r.version}`;
}

/** Who sets a resource's `Ready` condition: `manual` when any of its registrations says so. */
export function readinessMode(handlers: readonly RegisteredHandler[]): 'auto' | 'manual' {
  return handlers.some((h) => h.options.readiness === 'manual') ? 'manual' : 'auto';
}

/** The sensitive fields of a resource: its descriptor's and those its registrations name, sorted, once each. */
export function sensitiveFields(resource: ResourceDescriptor, handlers: readonly RegisteredHandler[]): string[] {
  const fields = new Set(resource.sensitive ?? []);
  for (const handler of handlers) {
    if (resourceKey(handler.resource) !== resourceKey(resource)) continue;
    for (const field of handler.options.sensitive ?? []) fields.add(field);
  }
  return [...fields].sort();
}

export class Registry {
  readonly handlers: RegisteredHandler[] = [];
  /** Run in order before the operator watches anything; one failing stops the start. */
  readonly startup: OperatorHook[] = [];
  /** Run in order when the operator stops gracefully, after the running handlers drained. */
  readonly cleanup: OperatorHook[] = [];
  /** kopf's @kopf.on.probe: values served at `/probes`, in registration order. */
  readonly probes: RegisteredProbe[] = [];
  /** kopf's @kopf.on.login (api/login.ts): how to reach the API server instead of the kubeconfig. */
  readonly logins: RegisteredLogin[] = [];
  /** Validating and mutating callbacks, served by the webhook server of every replica. */
  readonly webhooks: RegisteredWebhook[] = [];
  /** Conversion functions by CRD name (`<plural>.<group>`), served at `/convert`. */
  readonly conversions = new Map<string, RegisteredConversion>();
  /** Kinds the operator's code uses beyond the handled resources (`uses`, `onChild`, `defineIndex`). */
  readonly access: DeclaredAccess[] = [];
  /** Indexes kept from watches (`defineIndex`). */
  readonly indexes: RegisteredIndex[] = [];

  declare(access: DeclaredAccess): void {
    this.access.push(access);
  }

  registerIndex(index: RegisteredIndex): void {
    if (this.indexes.some((known) => known.id === index.id))
      throw new Error(`an index named ${index.id} is already registered`);
    this.indexes.push(index);
  }

  /**
   * The kinds watched beside the handled resources (owned kinds of `child` handlers, indexed kinds),
   * once each, in registration order.
   */
  secondaryKinds(): ResourceDescriptor[] {
    const seen = new Map<string, ResourceDescriptor>();
    for (const h of this.handlers)
      if (h.child && !seen.has(resourceKey(h.child))) seen.set(resourceKey(h.child), h.child);
    for (const i of this.indexes) if (!seen.has(resourceKey(i.resource))) seen.set(resourceKey(i.resource), i.resource);
    return [...seen.values()];
  }

  register(handler: RegisteredHandler): void {
    const clash = this.handlers.find(
      (h) =>
        resourceKey(h.resource) === resourceKey(handler.resource) &&
        h.id === handler.id &&
        h.cause === handler.cause &&
        h.field === handler.field &&
        (h.child && resourceKey(h.child)) === (handler.child && resourceKey(handler.child)),
    );
    // Two callbacks for one id and cause would race for the same status.<id> and progress record.
    if (clash)
      throw new Error(
        `handler ${handler.id} (${handler.cause}) is already registered for ${resourceKey(handler.resource)}`,
      );
    this.handlers.push(handler);
  }

  registerWebhook(webhook: RegisteredWebhook): void {
    const same = (w: RegisteredWebhook) =>
      resourceKey(w.resource) === resourceKey(webhook.resource) &&
      w.id === webhook.id &&
      w.kind === webhook.kind &&
      w.options.subresource === webhook.options.subresource;
    // One webhook per id and kind: its name and path in the webhook configuration are made of them.
    if (this.webhooks.some(same))
      throw new Error(
        `${webhook.kind} handler ${webhook.id} is already registered for ${resourceKey(webhook.resource)}`,
      );
    this.webhooks.push(webhook);
  }

  /** Adds the spokes of `conversion` to its CRD's (one spoke at a time, as the conversion stubs register them). */
  registerConversion(conversion: RegisteredConversion): void {
    const name = `${conversion.plural}.${conversion.group}`;
    const known = this.conversions.get(name);
    const spokes = new Map(known?.spokes);
    for (const [version, functions] of conversion.spokes) {
      // The API server asks one webhook per CRD; two sets of functions would disagree on the answer.
      if (spokes.has(version)) throw new Error(`conversion functions for ${name} ${version} are already registered`);
      spokes.set(version, functions);
    }
    this.conversions.set(name, { ...conversion, spokes });
  }

  /** Whether anything at all is registered (handlers, admission callbacks, conversions). */
  isEmpty(): boolean {
    return this.handlers.length === 0 && this.webhooks.length === 0 && this.conversions.size === 0;
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
