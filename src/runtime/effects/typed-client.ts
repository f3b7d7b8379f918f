/**
 * The typed client handlers write other objects with (`ctx.client`, api/client-api.ts): each call
 * one request of the runtime's own HTTP layer (kube/client.ts: the kubeconfig's credentials, the
 * keep-alive agent, `kopfgen_api_requests_total`), under the term's write fence when the client is a
 * term's (a call after the term ended is refused before it is sent, as `FencedWriteError`), retried
 * by the one write retry policy (`writeRetryDelay`) except for a 409, which is an answer (AlreadyExists,
 * a failed precondition, an apply conflict), and given up once the caller's `signal` aborts.
 * controller-runtime's `client.Client` and kube-rs's `Api<K>` are the models: the object's kind comes
 * from the descriptor, the namespace from the options or the object.
 */
import type {
  ApplyOptions,
  Client,
  ClientKind,
  ClientVerb,
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  PatchOptions,
  Selector,
} from '../api/client-api.js';
import { AlreadyOwnedError, ApiError, FencedWriteError, UndeclaredKindError } from '../api/client-api.js';
import type { KubernetesObject, OwnerReference } from '../api/kube-types.js';
import {
  accessKind as kindInfo,
  apiVersionOf,
  resourceName,
  type AccessKind as KindInfo,
  type AccessTable,
} from '../api/access.js';
import { isKubernetesObject, isPlainObject } from '../json.js';
import { FencedError, KubeError, type KubeClient, type RequestOptions } from '../kube/client.js';
import { writeRetryDelay } from './api-write.js';

function pathOf(info: KindInfo, namespace: string | undefined, name?: string, subresource?: string): string {
  const base = info.group ? `/apis/${info.group}/${info.version}` : `/api/${info.version}`;
  const ns = info.scope === 'Namespaced' && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const tail = name === undefined ? '' : `/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
  return `${base}${ns}/${info.plural}${tail}`;
}

/** `{ app: 'web', tier: 'front' }` → `app=web,tier=front`; a string is the API's syntax already. */
export function selectorText(selector: Selector | undefined): string | undefined {
  if (selector === undefined || typeof selector === 'string') return selector;
  return Object.entries(selector)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

/** The field manager of server-side applies when the operator is given no name. */
export const DEFAULT_FIELD_MANAGER = 'kopfgen';

export interface TypedClientOptions {
  /** The field manager of server-side applies (the operator's name). */
  fieldManager: string;
  /** Aborts waiting (a request in flight, a retry's backoff): the handler's signal. */
  signal?: AbortSignal;
  /** What the operator declared (api/access.ts); every kind is allowed when absent. */
  access?: AccessTable;
  /**
   * The handled object, when the client is a handler's: a cluster-scoped child it is made the
   * controller of would be deleted by the garbage collector at once (ownership.ts says why).
   */
  owner?: { uid: string; namespaced: boolean; describe: string };
  /** Called before each retry (the operator logs it). */
  onRetry?: (message: string) => void;
  /**
   * The controller of the object `name` of a kind (`kindKey`) from the operator's own watch of it, when it
   * watches that kind and has listed it: `undefined` when it does not (the client reads the object instead).
   */
  controllers?: (kindKey: string, namespace: string | undefined, name: string) => ControllerLookup | undefined;
  /** A write refused because another object controls the child (the operator posts a Warning Event). */
  onRefused?: (error: AlreadyOwnedError) => void;
}

/** What the operator's watch of a kind knows of an object's controller: none there, or its reference. */
export type ControllerLookup = { found: false } | { found: true; controller: OwnerReference | undefined };

/** `<plural>.<group>/<version>` (`describe()` of kube/client.ts), the key of a kind's watch. */
export function kindKey(info: KindInfo): string {
  return info.group ? `${info.plural}.${info.group}/${info.version}` : `${info.plural}/${info.version}`;
}

/** The managers a server-side apply's 409 names (`conflict with "kopfgen" using v1`), or undefined when it names none. */
function conflictManagers(error: unknown): string[] | undefined {
  if (!(error instanceof ApiError) || error.status !== 409 || !isPlainObject(error.body)) return undefined;
  const details = isPlainObject(error.body.details) ? error.body.details : {};
  const causes = Array.isArray(details.causes) ? details.causes : [];
  const managers = causes.map((cause) => {
    const message = isPlainObject(cause) && typeof cause.message === 'string' ? cause.message : '';
    return /conflict with "([^"]*)"/.exec(message)?.[1];
  });
  if (managers.length === 0 || managers.some((manager) => manager === undefined)) return undefined;
  return managers.filter((manager) => manager !== undefined);
}

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

interface Call {
  verb: ClientVerb;
  info: KindInfo;
  namespace?: string;
  name?: string;
  /** Set once an attempt that may have reached the API server was sent again. */
  resent?: boolean;
}

/** The namespace a call addresses: required for a namespaced kind except for a list (all namespaces). */
function namespaceFor(call: Pick<Call, 'verb' | 'info'>, given: string | undefined): string | undefined {
  if (call.info.scope === 'Cluster') return undefined;
  if (given === undefined && call.verb !== 'list')
    throw new Error(
      `${call.verb} ${resourceName(call.info)}: a namespaced kind needs a namespace (the namespace option, or metadata.namespace)`,
    );
  return given;
}

export class TypedClient implements Client {
  constructor(
    private readonly kube: KubeClient,
    private readonly options: TypedClientOptions,
  ) {}

  /** The same options over another connection (a term's fenced client). */
  over(kube: KubeClient): TypedClient {
    return new TypedClient(kube, this.options);
  }

  /** The same client for another caller (a handler's signal, the object it handles). */
  with(options: Partial<TypedClientOptions>): TypedClient {
    return new TypedClient(this.kube, { ...this.options, ...options });
  }

  async get<R = KubernetesObject, W = R>(
    kind: ClientKind<R, W>,
    name: string,
    options: GetOptions = {},
  ): Promise<R | undefined> {
    const info = kindInfo(kind);
    const call: Call = { verb: 'get', info, name, namespace: namespaceFor({ verb: 'get', info }, options.namespace) };
    try {
      return this.typed<R>(await this.send(call, 'GET', pathOf(info, call.namespace, name)));
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  async list<R = KubernetesObject, W = R>(kind: ClientKind<R, W>, options: ListOptions = {}): Promise<R[]> {
    const info = kindInfo(kind);
    const call: Call = { verb: 'list', info, namespace: namespaceFor({ verb: 'list', info }, options.namespace) };
    const items: R[] = [];
    let token: string | undefined;
    do {
      const query = {
        labelSelector: selectorText(options.labelSelector),
        fieldSelector: selectorText(options.fieldSelector),
        limit: 500,
        continue: token,
      };
      const page = await this.send(call, 'GET', pathOf(info, call.namespace), { query });
      const meta = isPlainObject(page) && isPlainObject(page.metadata) ? page.metadata : {};
      const found = isPlainObject(page) && Array.isArray(page.items) ? page.items.filter(isKubernetesObject) : [];
      // a list's items carry neither apiVersion nor kind: the list says them once
      for (const item of found) items.push(this.typed<R>({ apiVersion: apiVersionOf(info), kind: info.kind, ...item }));
      token = typeof meta.continue === 'string' && meta.continue ? meta.continue : undefined;
    } while (token);
    return items;
  }

  async create<R = KubernetesObject, W = R>(kind: ClientKind<R, W>, object: unknown, options: CreateOptions = {}) {
    const info = kindInfo(kind);
    const body = this.body(info, object, 'create');
    const namespace = namespaceFor({ verb: 'create', info }, options.namespace ?? body.metadata?.namespace);
    const call: Call = { verb: 'create', info, namespace, name: body.metadata?.name };
    await this.refuseOwned(call, body);
    const query = { dryRun: options.dryRun ? 'All' : undefined, fieldManager: this.options.fieldManager };
    return this.typed<R>(await this.send(call, 'POST', pathOf(info, namespace), { body, query }));
  }

  async apply<R = KubernetesObject, W = R>(kind: ClientKind<R, W>, object: unknown, options: ApplyOptions = {}) {
    const info = kindInfo(kind);
    const body = this.body(info, object, 'apply');
    const name = body.metadata?.name;
    if (typeof name !== 'string' || name === '')
      throw new Error(`apply ${resourceName(info)}: server-side apply needs metadata.name`);
    const namespace = namespaceFor({ verb: 'apply', info }, options.namespace ?? body.metadata?.namespace);
    const call: Call = { verb: 'apply', info, namespace, name };
    await this.refuseOwned(call, body);
    const fieldManager = options.fieldManager ?? this.options.fieldManager;
    const query = { fieldManager, force: options.force ? true : undefined, dryRun: options.dryRun ? 'All' : undefined };
    // JSON is YAML: the apply patch's content type takes either (the API server reads it as YAML)
    const request = { body, query, contentType: 'application/apply-patch+yaml' };
    try {
      return this.typed<R>(await this.send(call, 'PATCH', pathOf(info, namespace, name), request));
    } catch (error) {
      // A field this operator set by create, update or patch is owned by its manager's `Update` entry, which
      // server-side apply counts as another manager: taking over its own fields is no conflict (the issue
      // client-go users meet as "conflict with kubectl-create"). Any other manager's field stays a conflict.
      const managers = conflictManagers(error);
      if (options.force || !managers?.every((manager) => manager === fieldManager)) throw error;
      const forced = { ...request, query: { ...query, force: true } };
      return this.typed<R>(await this.send(call, 'PATCH', pathOf(info, namespace, name), forced));
    }
  }

  async patch<R = KubernetesObject, W = R>(
    kind: ClientKind<R, W>,
    name: string,
    patch: unknown,
    options: PatchOptions = {},
  ): Promise<R> {
    const info = kindInfo(kind);
    const namespace = namespaceFor({ verb: 'patch', info }, options.namespace);
    const call: Call = { verb: 'patch', info, namespace, name };
    let body: unknown = patch;
    if (options.resourceVersion !== undefined) {
      const given = isPlainObject(patch) ? patch : {};
      const metadata = isPlainObject(given.metadata) ? given.metadata : {};
      body = { ...given, metadata: { ...metadata, resourceVersion: options.resourceVersion } };
    }
    const request = {
      body,
      contentType: 'application/merge-patch+json',
      query: { dryRun: options.dryRun ? 'All' : undefined, fieldManager: this.options.fieldManager },
    };
    return this.typed<R>(await this.send(call, 'PATCH', pathOf(info, namespace, name, options.subresource), request));
  }

  async delete<R = KubernetesObject, W = R>(
    kind: ClientKind<R, W>,
    name: string,
    options: DeleteOptions = {},
  ): Promise<boolean> {
    const info = kindInfo(kind);
    const namespace = namespaceFor({ verb: 'delete', info }, options.namespace);
    const call: Call = { verb: 'delete', info, namespace, name };
    const body = {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      propagationPolicy: options.propagationPolicy,
      gracePeriodSeconds: options.gracePeriodSeconds,
      preconditions: options.preconditions,
      dryRun: options.dryRun ? ['All'] : undefined,
    };
    try {
      await this.send(call, 'DELETE', pathOf(info, namespace, name), { body });
      return true;
    } catch (error) {
      // gone: by this call when an attempt that may have reached the server was sent again
      if (error instanceof ApiError && error.status === 404) return call.resent === true;
      throw error;
    }
  }

  /**
   * Refuses a write that makes the handled object the controller of an object another one already controls
   * (`AlreadyOwnedError`, reported to `onRefused`): looked up in the operator's watch of the kind when it has
   * one, else read (one GET). Server-side apply would move the reference silently, the other owner's
   * child handler would apply it back, and so on: the cluster decides once, by who controls it now.
   */
  private async refuseOwned(call: Call, body: KubernetesObject): Promise<void> {
    const owner = this.options.owner;
    const name = body.metadata?.name;
    if (
      !owner ||
      name === undefined ||
      !body.metadata?.ownerReferences?.some((r) => r.controller && r.uid === owner.uid)
    )
      return;
    let controller: OwnerReference | undefined;
    const cached = this.options.controllers?.(kindKey(call.info), call.namespace, name);
    if (cached) controller = cached.found ? cached.controller : undefined;
    else if (this.options.access?.refuse('get', call.info))
      return; // not allowed to read it: the server decides
    else {
      const read = { ...call, verb: 'get' as const };
      const existing = await this.send(read, 'GET', pathOf(call.info, call.namespace, name)).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return undefined;
        throw error;
      });
      const refs = isKubernetesObject(existing) ? (existing.metadata?.ownerReferences ?? []) : [];
      controller = refs.find((r) => r.controller === true);
    }
    if (!controller || controller.uid === owner.uid) return;
    const refused = new AlreadyOwnedError(
      { verb: call.verb, resource: resourceName(call.info), namespace: call.namespace, name },
      controller,
    );
    this.options.onRefused?.(refused);
    throw refused;
  }

  /** An answer as the caller's type: the API server's object for the kind asked for. */
  private typed<R>(answer: unknown): R {
    return answer as R;
  }

  /**
   * The object to send: apiVersion and kind filled in from the descriptor (given ones must agree: a
   * Service body sent to the deployments' path would be refused less clearly by the server).
   */
  private body(info: KindInfo, object: unknown, verb: ClientVerb): KubernetesObject {
    if (!isKubernetesObject(object)) throw new Error(`${verb} ${resourceName(info)}: the object is not an object`);
    const apiVersion = apiVersionOf(info);
    for (const [key, want] of [
      ['apiVersion', apiVersion],
      ['kind', info.kind],
    ] as const) {
      const given = object[key];
      if (given !== undefined && given !== want)
        throw new Error(`${verb} ${resourceName(info)}: the object's ${key} is ${String(given)}, not ${want}`);
    }
    const owner = this.options.owner;
    if (
      owner?.namespaced &&
      info.scope === 'Cluster' &&
      object.metadata?.ownerReferences?.some((r) => r.uid === owner.uid)
    )
      throw new Error(
        `${verb} ${resourceName(info)}: a cluster-scoped object cannot be owned by the namespaced ${owner.describe} ` +
          '(the garbage collector would delete it at once)',
      );
    return { ...object, apiVersion, kind: info.kind };
  }

  /**
   * Refuses an undeclared kind, sends under the retry policy, translates refusals. A POST is sent again only
   * when the API server cannot have acted on it (429, a connection refused): a create that reached the
   * server and is sent again would answer an `AlreadyExists` the handler did not cause. Any other call that
   * may have reached the server and is sent again marks `call.resent`.
   */
  private async send(call: Call, method: string, path: string, request: RequestOptions = {}): Promise<unknown> {
    const refusal = this.options.access?.refuse(call.verb, call.info);
    if (refusal) throw new UndeclaredKindError(call.verb, resourceName(call.info), refusal);
    const signal = this.options.signal;
    /** Whether an attempt left the process (and may have reached the API server). */
    let sent = false;
    for (let attempt = 1; ; attempt++) {
      try {
        if (signal?.aborted) {
          // the term's end aborts its handlers' signals too: that refusal is the fence's
          const fenced = this.kube.refusal(method);
          if (fenced !== undefined) throw new FencedWriteError(call.verb, resourceName(call.info), fenced, sent);
          throw new Error(`${call.verb} ${resourceName(call.info)} not sent: ${reasonOf(signal)}`);
        }
        if (sent) call.resent = true;
        return await this.kube.request(method, path, { ...request, signal });
      } catch (error) {
        if (error instanceof FencedWriteError) throw error;
        sent ||= mayHaveArrived(error);
        // the fence's refusal, or an abort by the handler's signal when the term it belongs to has ended
        const fenced = fencedOf(error) ?? (signal?.aborted ? this.kube.refusal(method) : undefined);
        if (fenced !== undefined) throw new FencedWriteError(call.verb, resourceName(call.info), fenced, sent);
        // a 409 is an answer (AlreadyExists, a precondition, an apply conflict): sending again changes nothing
        const wait = error instanceof KubeError && error.status === 409 ? undefined : writeRetryDelay(error, attempt);
        const unsafe = method === 'POST' && mayHaveArrived(error);
        if (wait === undefined || unsafe || signal?.aborted) throw translate(call, error);
        this.options.onRetry?.(
          `${call.verb} ${resourceName(call.info)} failed (attempt ${attempt}), retrying in ${wait} ms: ${String(error)}`,
        );
        await sleep(wait, signal);
      }
    }
  }
}

/**
 * Whether the API server may have acted on a request that failed with `error`: not when it was refused
 * before sending (the fence), throttled (429: not processed), or the connection was refused; otherwise
 * (a timeout, a reset, a 5xx such as etcd's timeout) it may have.
 */
function mayHaveArrived(error: unknown): boolean {
  if (error instanceof FencedError) return error.sent;
  if (error instanceof KubeError) return error.status !== 429;
  return !(error instanceof Error && 'code' in error && error.code === 'ECONNREFUSED');
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : 'aborted';
}

/** The fence's reason when `error` is its refusal (before sending, or an abort at the term's end). */
function fencedOf(error: unknown): string | undefined {
  return error instanceof FencedError ? error.reason : undefined;
}

/** A refusal as ApiError (status, the Status object's reason and message); other failures as they are. */
function translate(call: Call, error: unknown): unknown {
  if (!(error instanceof KubeError)) return error;
  const status = isPlainObject(error.body) ? error.body : {};
  const message = typeof status.message === 'string' ? status.message : error.message;
  const reason = typeof status.reason === 'string' && status.reason ? status.reason : undefined;
  const request = { verb: call.verb, resource: resourceName(call.info), namespace: call.namespace, name: call.name };
  return new ApiError(request, { status: error.status, reason, message, body: error.body }, { cause: error });
}
