/**
 * The typed client a handler writes other objects with (`ctx.client`, also in timers, daemons and
 * startup hooks, and `operatorClient()` at module level): its interface, options and errors, and
 * nothing of its implementation, so that `kopfgen/testing`'s in-memory client implements the same
 * interface (controller-runtime's `client.Client`, which its fake client implements too).
 *
 * Typed by the descriptors: a generated descriptor or a `kopfgen/runtime/builtins` kind types what
 * is read (`R`) and what is written (`W`, the write view: server-defaulted fields optional), and what
 * is written is checked exactly (`Exact`): an unknown key, a wrong type, a missing required field is
 * a compile error, also when the object is built in a variable first. Anything else is named by a
 * plain `ResourceRef` (`{ apiVersion, kind, plural }`), typed as `KubernetesObject` unless given types.
 *
 * Answers: `get` of a missing object resolves `undefined` (kube-rs `get_opt`), the one place a 404 is
 * an answer; `delete` resolves `false` when there was nothing to delete; anything else the API server
 * refuses is an `ApiError` (status code, Kubernetes reason, the verb and resource in the message). A
 * call made after the operator's term ended (a lost lease, a stop) is refused before it is sent with a
 * `FencedWriteError`, which is no `ApiError`: it is not an answer of the API server, and the handler
 * cannot mistake it for one (e.g. treat it as "not found" and create again).
 */
import type { KubernetesObject } from './kube-types.js';
import type { Exact, MergePatch, ResourceDescriptor } from './resource.js';

/**
 * A resource no descriptor describes (another operator's custom resource, a kind `builtins` lacks):
 * its API version (`group/version`, or `v1` for the core group), kind and plural; cluster-scoped
 * resources say `scope: 'Cluster'`. The objects are `KubernetesObject` unless `R`/`W` are given.
 */
export interface ResourceRef<R = KubernetesObject, W = R> {
  apiVersion: string;
  kind: string;
  plural: string;
  /** Default `Namespaced`. */
  scope?: 'Namespaced' | 'Cluster';
  /** Phantom: the object as read; never set at run time. */
  readonly __resource?: R;
  /** Phantom: the object as written; never set at run time. */
  readonly __input?: W;
}

/** What the client addresses: a generated or built-in descriptor, or a `ResourceRef`. */
export type ClientKind<R = KubernetesObject, W = R> = ResourceDescriptor<R, W> | ResourceRef<R, W>;

/**
 * An object as `create` and `apply` take it: the write view, with `apiVersion` and `kind` optional
 * (the client fills them in from the descriptor; given, they must be the descriptor's).
 */
export type WriteBody<W> = W extends object
  ? Omit<W, 'apiVersion' | 'kind'> & Partial<Pick<W, Extract<keyof W, 'apiVersion' | 'kind'>>>
  : W;

/** A label or field selector: the API's string syntax, or equalities (`{ app: 'web' }` is `app=web`). */
export type Selector = string | Readonly<Record<string, string>>;

export interface NamespaceOption {
  /** The namespace of a namespaced kind; required for it (create/apply: else the object's `metadata.namespace`). */
  namespace?: string;
}

export type GetOptions = NamespaceOption;

export interface ListOptions {
  /** One namespace; all namespaces when left out. */
  namespace?: string;
  labelSelector?: Selector;
  fieldSelector?: Selector;
}

export interface CreateOptions extends NamespaceOption {
  /** Validate and answer without persisting (`dryRun=All`). */
  dryRun?: boolean;
}

/**
 * Server-side apply. A precondition is `metadata.resourceVersion` in the applied object: the API server then
 * refuses (409) an apply that meets another version, so an apply held in the network cannot land on a
 * state it did not see. A field the operator itself set by create, update or patch is not a conflict: the
 * apply takes it over (the same field manager's own write, see the client's `apply`).
 */
export interface ApplyOptions extends NamespaceOption {
  /**
   * Take over fields another field manager owns instead of failing with a 409 conflict (server-side
   * apply's `force`). Default false.
   */
  force?: boolean;
  /** The field manager (default: the operator's name, `kopfgen` unless configured). */
  fieldManager?: string;
  dryRun?: boolean;
}

export interface PatchOptions extends NamespaceOption {
  /** Only if the object is still at this resourceVersion (else an ApiError with status 409). */
  resourceVersion?: string;
  /** `status` patches through the `/status` subresource. */
  subresource?: 'status';
  dryRun?: boolean;
}

export interface DeleteOptions extends NamespaceOption {
  /** What happens to the object's dependents (default: the kind's, `Background` for most). */
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  gracePeriodSeconds?: number;
  /** Only if the object still has this uid / resourceVersion (else an ApiError with status 409). */
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

/**
 * The typed client. Every write goes through the operator's one write retry policy (network errors,
 * 429 and 5xx retried with backoff and Retry-After; a 409 is an answer, never retried), counts in
 * `kopfgen_api_requests_total`, waits at most until the handler's `signal` aborts, and is refused with
 * `FencedWriteError` once the operator's term has ended.
 */
export interface Client {
  /** The object, or `undefined` when there is none (404). */
  get<R = KubernetesObject, W = R>(kind: ClientKind<R, W>, name: string, options?: GetOptions): Promise<R | undefined>;
  /** Every object that matches (all pages). */
  list<R = KubernetesObject, W = R>(kind: ClientKind<R, W>, options?: ListOptions): Promise<R[]>;
  /** Creates the object; an ApiError with reason `AlreadyExists` (409) when its name is taken. */
  create<R = KubernetesObject, W = R, O extends WriteBody<W> = WriteBody<W>>(
    kind: ClientKind<R, W>,
    object: O & Exact<O, WriteBody<W>>,
    options?: CreateOptions,
  ): Promise<R>;
  /**
   * Server-side apply (`application/apply-patch+yaml`): the object as this operator wants it; fields
   * it no longer lists are removed if only it owned them. Creates the object when it is absent.
   */
  apply<R = KubernetesObject, W = R, O extends WriteBody<W> = WriteBody<W>>(
    kind: ClientKind<R, W>,
    object: O & Exact<O, WriteBody<W>>,
    options?: ApplyOptions,
  ): Promise<R>;
  /** JSON merge patch (RFC 7386) typed by the write view: `null` deletes an optional key. */
  patch<R = KubernetesObject, W = R, P extends MergePatch<W> = MergePatch<W>>(
    kind: ClientKind<R, W>,
    name: string,
    patch: P & Exact<P, MergePatch<W>>,
    options?: PatchOptions,
  ): Promise<R>;
  /** Deletes the object: `true` when it was deleted (or its deletion began), `false` when there was none. */
  delete<R = KubernetesObject, W = R>(kind: ClientKind<R, W>, name: string, options?: DeleteOptions): Promise<boolean>;
}

/** The verbs of the client, as RBAC and the API server's errors name them. */
export type ClientVerb = 'get' | 'list' | 'create' | 'apply' | 'patch' | 'delete';

/**
 * A request the API server answered with a refusal: `status` the HTTP code, `reason` the Kubernetes
 * `Status.reason` (`AlreadyExists`, `Conflict`, `Forbidden`, `Invalid`, `NotFound`, …; undefined when
 * the answer carried none), `verb` and `resource` (`deployments.apps`, `configmaps`) as RBAC names them.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly reason: string | undefined;
  readonly verb: ClientVerb;
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly objectName: string | undefined;
  /** The answer's body (a Kubernetes `Status` as a rule). */
  readonly body: unknown;

  constructor(
    request: { verb: ClientVerb; resource: string; namespace?: string; name?: string },
    answer: { status: number; reason?: string; message: string; body?: unknown },
    options?: { cause?: unknown },
  ) {
    const where = [request.namespace, request.name].filter((part) => part !== undefined).join('/');
    const reason = answer.reason ? ` ${answer.reason}` : '';
    super(
      `${request.verb} ${request.resource}${where ? ` ${where}` : ''}: ${answer.status}${reason}: ${answer.message}`,
      options,
    );
    this.name = 'ApiError';
    this.status = answer.status;
    this.reason = answer.reason;
    this.verb = request.verb;
    this.resource = request.resource;
    this.namespace = request.namespace;
    this.objectName = request.name;
    this.body = answer.body;
  }
}

/**
 * A call refused because the operator's term has ended (this replica lost its lease, or the operator
 * stopped and its drain timeout passed). With `sent` false nothing reached the API server. With `sent`
 * true an attempt had already left the process when the term ended and was aborted unanswered: it may
 * have reached the API server, may still (bytes held in the network), or not at all; only a precondition
 * it carries (a resourceVersion) keeps it from landing on a state it did not see. Not an `ApiError`: no
 * answer of the API server says anything about the object. Thrown in a handler, it is retried by the next
 * leader (the attempt's outcome is not written by this replica either).
 */
export class FencedWriteError extends Error {
  constructor(
    readonly verb: ClientVerb,
    readonly resource: string,
    /** Why the term ended. */
    readonly reason: string,
    /** Whether an attempt had been sent (and was aborted unanswered) before the refusal. */
    readonly sent = false,
  ) {
    super(
      sent
        ? `${verb} ${resource} aborted unanswered after it was sent: this replica's term has ended (${reason}); it may have reached the API server`
        : `${verb} ${resource} not sent: this replica's term has ended (${reason})`,
    );
    this.name = 'FencedWriteError';
  }
}

/**
 * A create or apply of an object whose controller owner reference names the handled object, refused before
 * it was sent because another object already controls one of that name (controller-runtime's
 * `AlreadyOwnedError` from `SetControllerReference`): server-side apply would otherwise move the reference
 * silently, and two owners would take the child from each other forever. The operator also posts a
 * Warning Event `AlreadyOwned` on the handled object naming the other owner. Status 409 like the
 * conflict the API server answers, reason `AlreadyOwned`.
 */
export class AlreadyOwnedError extends ApiError {
  constructor(
    request: { verb: ClientVerb; resource: string; namespace?: string; name?: string },
    /** The controller the object has. */
    readonly owner: { apiVersion: string; kind: string; name: string; uid: string },
  ) {
    const message = `${request.name ?? 'the object'} is already controlled by ${owner.kind} ${owner.name} (uid ${owner.uid})`;
    super(request, { status: 409, reason: 'AlreadyOwned', message });
    this.name = 'AlreadyOwnedError';
  }
}

/**
 * A call for a kind the operator did not declare: RBAC (`kopfgen manifests`) and the startup checks
 * follow the declarations, so an undeclared kind would be a 403 in the cluster. The message names the
 * declaration to add.
 */
export class UndeclaredKindError extends Error {
  constructor(
    readonly verb: ClientVerb,
    readonly resource: string,
    /** The declaration that would allow the call, as code (e.g. `uses(builtins.secrets, ['get'])`). */
    readonly declaration: string,
  ) {
    super(`${verb} ${resource}: the operator declares no access to ${resource}; add ${declaration}`);
    this.name = 'UndeclaredKindError';
  }
}
