/**
 * An in-memory `Client` (the typed client handlers get as `ctx.client`; controller-runtime's
 * `fake.NewClientBuilder().WithObjects(…)`): objects kept by resource, namespace and name, each write
 * giving a new resourceVersion (one counter, as etcd's revision), uids and creation timestamps set,
 * `generation` bumped when anything but metadata and status changes, label and field selectors,
 * `resourceVersion` and delete preconditions (409 Conflict), `AlreadyExists` and `NotFound`, the status
 * subresource (a write to the object ignores `status`, a `/status` patch changes nothing else),
 * deletion held back by finalizers (`deletionTimestamp` set), and the garbage collector's cascade
 * (deleting an owner deletes the objects whose ownerReferences name its uid, unless `Orphan`).
 *
 * A custom resource whose schema data it was given (`<Kind>SchemaText`) is admitted as the API server
 * admits it (`runtime/admission/schema-admission.ts`: pruned, defaulted, validated, its CEL rules
 * evaluated; a refusal is the server's 422 `Invalid` ApiError). Every object's metadata is validated as
 * the server validates it (`runtime/admission/metadata-check.ts`); a built-in kind is checked against
 * Kubernetes' own schema for it (`builtin-check.ts`); another operator's kind without schema data is
 * checked for its apiVersion and kind only.
 *
 * Server-side apply is kept simple: the applied object is merged over the stored one, and fields the
 * same field manager applied before and no longer lists are removed; conflicts with other managers
 * are not detected (`force` has nothing to do).
 */
import { randomUUID } from 'node:crypto';
import {
  ApiError,
  type ApplyOptions,
  type Client,
  type ClientKind,
  type ClientVerb,
  type CreateOptions,
  type DeleteOptions,
  type GetOptions,
  type ListOptions,
  type PatchOptions,
  type Selector,
} from '../runtime/api/client-api.js';
import { accessKind, apiVersionOf, resourceName } from '../runtime/api/access.js';
import type { KubernetesObject, ObjectMeta } from '../runtime/api/kube-types.js';
import { applyMergePatch, clone, deepEqual, isKubernetesObject, isPlainObject } from '../runtime/json.js';
import { builtinErrors } from './builtin-check.js';
import { metadataErrors } from '../runtime/admission/metadata-check.js';
import { admitObject, type FieldError } from '../runtime/admission/schema-admission.js';
import { parseSchemaData, type SchemaData } from './sample-objects.js';

/** A resource as the fake addresses it: from a descriptor or a ResourceRef. */
interface Resource {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  statusSubresource: boolean;
}

/** One call the client answered (or refused), in order: what a test inspects after a run. */
export interface FakeRequest {
  verb: ClientVerb;
  /** `deployments.apps`, `configmaps`, `myresources.example.com`. */
  resource: string;
  namespace?: string;
  name?: string;
  /** The refusal's status code, when the call was refused. */
  refused?: number;
}

export interface FakeClientOptions {
  /** Schema data of the custom resources whose objects are validated (`<Kind>SchemaText`). */
  schemas?: readonly (SchemaData | string)[];
}

export interface FakeClient extends Client {
  /** Stores `objects` as they are (after the same admission as `create`), as a test's starting state; returns the client. */
  seed<R = KubernetesObject, W = R>(kind: ClientKind<R, W>, ...objects: R[]): FakeClient;
  /** The objects stored of `kind` (in one namespace, when given), ordered by namespace and name. */
  objects<R = KubernetesObject, W = R>(kind: ClientKind<R, W>, namespace?: string): R[];
  /** The objects, of any kind, whose ownerReferences name `owner`'s uid (any typed object: only its uid is read). */
  ownedBy(owner: { metadata?: { uid?: string } }): KubernetesObject[];
  /** Every call, in order. */
  readonly requests: FakeRequest[];
}

/** The kind's coordinates as the typed client reads them (`accessKind`), and whether it has a status subresource. */
function resourceOf(kind: ClientKind<unknown, unknown>): Resource {
  const { group, version, plural, kind: name, scope } = accessKind(kind);
  const statusSubresource = 'apiVersion' in kind ? false : kind.statusSubresource;
  return { group, version, plural, kind: name, namespaced: scope === 'Namespaced', statusSubresource };
}

/** The label selector's string syntax (`a=b,c!=d,e in (x,y),f notin (z),g,!h`) or equalities, as a predicate. */
export function labelMatcher(selector: Selector | undefined): (labels: Record<string, string>) => boolean {
  if (selector === undefined) return () => true;
  if (typeof selector !== 'string') return (labels) => Object.entries(selector).every(([k, v]) => labels[k] === v);
  const terms = selector
    .split(/,(?![^(]*\))/)
    .map((t) => t.trim())
    .filter(Boolean)
    .map((term): ((labels: Record<string, string>) => boolean) => {
      const set = /^([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
      if (set) {
        const values = set[3].split(',').map((v) => v.trim());
        const [, key, op] = set;
        return op === 'in'
          ? (l) => l[key] !== undefined && values.includes(l[key])
          : (l) => l[key] === undefined || !values.includes(l[key]);
      }
      const eq = /^([^\s!=]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
      if (eq) {
        const [, key, op, value] = eq;
        return op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value;
      }
      if (term.startsWith('!')) return (l) => l[term.slice(1)] === undefined;
      if (/^[^\s!=(),]+$/.test(term)) return (l) => l[term] !== undefined;
      throw new TypeError(`unable to parse requirement: ${JSON.stringify(term)}`);
    });
  return (labels) => terms.every((t) => t(labels));
}

/** The field selectors every resource supports: `metadata.name` and `metadata.namespace`. */
function fieldMatcher(selector: Selector | undefined): (object: KubernetesObject) => boolean {
  const match = labelMatcher(selector);
  return (object) =>
    match({
      'metadata.name': String(object.metadata?.name),
      'metadata.namespace': String(object.metadata?.namespace ?? ''),
    });
}

/**
 * A `Client` holding objects in memory (see the file's comment). `schemas`: the custom resources whose
 * objects are validated against their schema.
 */
export function fakeClient(options: FakeClientOptions = {}): FakeClient {
  const schemas = new Map<string, SchemaData>();
  for (const text of options.schemas ?? []) {
    const data = parseSchemaData(text);
    schemas.set(`${data.plural}.${data.group}`, data);
  }
  /** By `resourceName`, then `namespace/name`. */
  const store = new Map<string, Map<string, KubernetesObject>>();
  /** The last object each field manager applied, by `resourceName namespace/name manager`. */
  const applied = new Map<string, unknown>();
  const requests: FakeRequest[] = [];
  let revision = 0;

  const bucket = (r: Resource) => {
    let map = store.get(resourceName(r));
    if (!map) store.set(resourceName(r), (map = new Map()));
    return map;
  };

  function call<T>(
    verb: ClientVerb,
    r: Resource,
    namespace: string | undefined,
    name: string | undefined,
    run: () => T,
  ): T {
    const request: FakeRequest = { verb, resource: resourceName(r), namespace, name };
    requests.push(request);
    try {
      return run();
    } catch (error) {
      if (error instanceof ApiError) request.refused = error.status;
      throw error;
    }
  }

  function refuse(
    verb: ClientVerb,
    r: Resource,
    namespace: string | undefined,
    name: string | undefined,
    status: number,
    reason: string,
    message: string,
  ): never {
    const body = { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code: status };
    throw new ApiError({ verb, resource: resourceName(r), namespace, name }, { status, reason, message, body });
  }

  function namespaceFor(
    verb: ClientVerb,
    r: Resource,
    given: string | undefined,
    object?: KubernetesObject,
  ): string | undefined {
    if (!r.namespaced) return undefined;
    const namespace = given ?? object?.metadata?.namespace;
    if (namespace === undefined) throw new TypeError(`${verb} ${resourceName(r)}: a namespaced kind needs a namespace`);
    return namespace;
  }

  /**
   * The object as the server would store it, or its 422; apiVersion, kind and metadata checked for
   * every kind. `old`: the stored object an update replaces (the transition rules' `oldSelf`).
   */
  function admit(
    verb: ClientVerb,
    r: Resource,
    object: KubernetesObject,
    namespace: string | undefined,
    old?: KubernetesObject,
  ): KubernetesObject {
    const name = object.metadata?.name;
    const full: KubernetesObject = {
      ...object,
      apiVersion: object.apiVersion ?? apiVersionOf(r),
      kind: object.kind ?? r.kind,
    };
    const data = schemas.get(resourceName(r));
    let errors: FieldError[];
    let stored: KubernetesObject;
    if (data) {
      if (!(r.version in data.versions))
        refuse(
          verb,
          r,
          namespace,
          name,
          404,
          'NotFound',
          `the server could not find the requested resource (${apiVersionOf(r)} ${r.plural})`,
        );
      ({ object: stored, errors } = admitObject(data, full, r.version, { old }));
    } else {
      stored = full;
      errors = [];
      if (full.apiVersion !== apiVersionOf(r))
        errors.push({ path: 'apiVersion', message: `must be ${apiVersionOf(r)}` });
      if (full.kind !== r.kind) errors.push({ path: 'kind', message: `must be ${r.kind}` });
      errors.push(...metadataErrors(full.metadata));
      // A built-in kind (no schema data: Kubernetes' own) is checked against Kubernetes' schema for it.
      if (full.apiVersion === apiVersionOf(r) && full.kind === r.kind)
        errors.push(...(builtinErrors(r.group, r.version, r.kind, full) ?? []));
    }
    if (errors.length > 0) {
      const what = `${r.kind}.${r.group || 'core'} ${JSON.stringify(name ?? '')}`;
      refuse(
        verb,
        r,
        namespace,
        name,
        422,
        'Invalid',
        `${what} is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join(', ')}`,
      );
    }
    return stored;
  }

  const key = (namespace: string | undefined, name: string) => `${namespace ?? ''}/${name}`;

  function nextVersion(): string {
    revision += 1;
    return String(revision);
  }

  /** What changes `generation`: anything but metadata and status. */
  function specChanged(a: KubernetesObject, b: KubernetesObject): boolean {
    const strip = ({ metadata: _m, status: _s, ...rest }: KubernetesObject) => rest;
    return !deepEqual(strip(a), strip(b));
  }

  function store1(
    r: Resource,
    namespace: string | undefined,
    object: KubernetesObject,
    before?: KubernetesObject,
  ): KubernetesObject {
    const meta: ObjectMeta = { ...object.metadata, resourceVersion: nextVersion() };
    if (before) {
      meta.uid = before.metadata?.uid;
      meta.creationTimestamp = before.metadata?.creationTimestamp;
      meta.generation = (before.metadata?.generation ?? 1) + (specChanged(before, object) ? 1 : 0);
      if (before.metadata?.deletionTimestamp) meta.deletionTimestamp = before.metadata.deletionTimestamp;
    }
    if (namespace !== undefined) meta.namespace = namespace;
    const saved = { ...object, metadata: meta };
    const name = String(meta.name);
    if (before?.metadata?.deletionTimestamp && (meta.finalizers ?? []).length === 0) {
      remove(r, namespace, name, 'Background');
      return saved;
    }
    bucket(r).set(key(namespace, name), saved);
    return clone(saved);
  }

  function remove(
    r: Resource,
    namespace: string | undefined,
    name: string,
    policy: DeleteOptions['propagationPolicy'],
  ): void {
    const gone = bucket(r).get(key(namespace, name));
    bucket(r).delete(key(namespace, name));
    if (gone && policy !== 'Orphan') cascadeFrom(gone);
  }

  /** The garbage collector: every dependent of `owner` goes, and theirs. */
  function cascadeFrom(owner: KubernetesObject): void {
    const uid = owner.metadata?.uid;
    for (const objects of store.values())
      for (const [k, o] of objects)
        if ((o.metadata?.ownerReferences ?? []).some((ref) => ref.uid === uid)) {
          objects.delete(k);
          cascadeFrom(o);
        }
  }

  function createIn(
    verb: 'create' | 'apply',
    r: Resource,
    object: KubernetesObject,
    namespace: string | undefined,
    dryRun: boolean | undefined,
  ): KubernetesObject {
    let name = object.metadata?.name;
    if (name === undefined && object.metadata?.generateName)
      name = `${object.metadata.generateName}${randomUUID().slice(0, 5)}`;
    const body: KubernetesObject = { ...object, metadata: { ...object.metadata, name } };
    if (r.statusSubresource) delete body.status; // a create through the main endpoint ignores status
    const admitted = admit(verb, r, body, namespace);
    if (name !== undefined && bucket(r).has(key(namespace, name)))
      refuse(
        verb,
        r,
        namespace,
        name,
        409,
        'AlreadyExists',
        `${resourceName(r)} ${JSON.stringify(name)} already exists`,
      );
    const meta: ObjectMeta = {
      ...admitted.metadata,
      uid: randomUUID(),
      creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      generation: 1,
    };
    delete meta.deletionTimestamp;
    const created = { ...admitted, metadata: meta };
    if (dryRun) return { ...created, metadata: { ...meta, resourceVersion: String(revision) } };
    return store1(r, namespace, created);
  }

  function existing(verb: ClientVerb, r: Resource, namespace: string | undefined, name: string): KubernetesObject {
    const found = bucket(r).get(key(namespace, name));
    if (!found)
      refuse(verb, r, namespace, name, 404, 'NotFound', `${resourceName(r)} ${JSON.stringify(name)} not found`);
    return found;
  }

  /** A merge patch that turns the last applied object into `next`: removed fields nulled. */
  function removals(previous: unknown, next: unknown): unknown {
    if (!isPlainObject(previous) || !isPlainObject(next)) return next;
    const out: Record<string, unknown> = { ...next };
    for (const k of Object.keys(previous)) out[k] = next[k] === undefined ? null : removals(previous[k], next[k]);
    return out;
  }

  function viewed(r: Resource, object: KubernetesObject): KubernetesObject {
    return clone({ ...object, apiVersion: apiVersionOf(r) });
  }

  const client: FakeClient = {
    requests,
    async get(kind, name, opts: GetOptions = {}) {
      const r = resourceOf(kind);
      const namespace = namespaceFor('get', r, opts.namespace);
      return call('get', r, namespace, name, () => {
        const found = bucket(r).get(key(namespace, name));
        return found && (viewed(r, found) as never);
      });
    },
    async list(kind, opts: ListOptions = {}) {
      const r = resourceOf(kind);
      const labels = labelMatcher(opts.labelSelector);
      const fields = fieldMatcher(opts.fieldSelector);
      return call('list', r, opts.namespace, undefined, () =>
        [...bucket(r).values()]
          .filter((o) => !r.namespaced || opts.namespace === undefined || o.metadata?.namespace === opts.namespace)
          .filter((o) => labels(o.metadata?.labels ?? {}) && fields(o))
          .sort((a, b) =>
            key(a.metadata?.namespace, String(a.metadata?.name)).localeCompare(
              key(b.metadata?.namespace, String(b.metadata?.name)),
            ),
          )
          .map((o) => viewed(r, o) as never),
      );
    },
    async create(kind, object, opts: CreateOptions = {}) {
      const r = resourceOf(kind);
      const body = clone(object) as KubernetesObject;
      const namespace = namespaceFor('create', r, opts.namespace, body);
      return call(
        'create',
        r,
        namespace,
        body.metadata?.name,
        () => viewed(r, createIn('create', r, body, namespace, opts.dryRun)) as never,
      );
    },
    async apply(kind, object, opts: ApplyOptions = {}) {
      const r = resourceOf(kind);
      const body = clone(object) as KubernetesObject;
      const namespace = namespaceFor('apply', r, opts.namespace, body);
      const name = body.metadata?.name;
      return call('apply', r, namespace, name, () => {
        if (name === undefined) refuse('apply', r, namespace, name, 422, 'Invalid', 'metadata.name: Required value');
        const managerKey = `${resourceName(r)} ${key(namespace, name)} ${opts.fieldManager ?? 'kopfgen'}`;
        const before = bucket(r).get(key(namespace, name));
        if (!before) {
          const created = createIn('apply', r, body, namespace, opts.dryRun);
          if (!opts.dryRun) applied.set(managerKey, body);
          return viewed(r, created) as never;
        }
        const { status: _s, ...main } = body;
        const patch = removals(applied.get(managerKey), r.statusSubresource ? main : body);
        const merged = applyMergePatch(before, patch);
        if (!isKubernetesObject(merged)) throw new TypeError('apply made a non-object');
        const admitted = admit('apply', r, merged, namespace, before);
        if (opts.dryRun) return viewed(r, admitted) as never;
        applied.set(managerKey, body);
        return viewed(r, store1(r, namespace, admitted, before)) as never;
      });
    },
    async patch(kind, name, patch, opts: PatchOptions = {}) {
      const r = resourceOf(kind);
      const namespace = namespaceFor('patch', r, opts.namespace);
      return call('patch', r, namespace, name, () => {
        const before = existing('patch', r, namespace, name);
        if (opts.resourceVersion !== undefined && opts.resourceVersion !== before.metadata?.resourceVersion)
          refuse(
            'patch',
            r,
            namespace,
            name,
            409,
            'Conflict',
            `Operation cannot be fulfilled on ${resourceName(r)} ${JSON.stringify(name)}: the object has been modified; please apply your changes to the latest version and try again`,
          );
        const given = clone(patch) as Record<string, unknown>;
        // The status subresource takes status only; the main endpoint of a resource that has one ignores status.
        const effective =
          opts.subresource === 'status'
            ? { status: given.status }
            : r.statusSubresource
              ? { ...given, status: undefined }
              : given;
        const merged = applyMergePatch(before, effective);
        if (!isKubernetesObject(merged)) throw new TypeError('the patch made a non-object');
        const admitted = admit('patch', r, merged, namespace, before);
        if (opts.dryRun) return viewed(r, admitted) as never;
        return viewed(r, store1(r, namespace, admitted, before)) as never;
      });
    },
    async delete(kind, name, opts: DeleteOptions = {}) {
      const r = resourceOf(kind);
      const namespace = namespaceFor('delete', r, opts.namespace);
      return call('delete', r, namespace, name, () => {
        const found = bucket(r).get(key(namespace, name));
        if (!found) return false;
        const pre = opts.preconditions ?? {};
        if (
          (pre.uid !== undefined && pre.uid !== found.metadata?.uid) ||
          (pre.resourceVersion !== undefined && pre.resourceVersion !== found.metadata?.resourceVersion)
        )
          refuse(
            'delete',
            r,
            namespace,
            name,
            409,
            'Conflict',
            `Precondition failed for ${resourceName(r)} ${JSON.stringify(name)}`,
          );
        if (opts.dryRun) return true;
        if ((found.metadata?.finalizers ?? []).length > 0) {
          if (!found.metadata?.deletionTimestamp)
            store1(
              r,
              namespace,
              {
                ...found,
                metadata: { ...found.metadata, deletionTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') },
              },
              found,
            );
          return true;
        }
        remove(r, namespace, name, opts.propagationPolicy);
        return true;
      });
    },
    seed(kind, ...objects) {
      const r = resourceOf(kind);
      for (const object of objects) {
        const body = clone(object) as KubernetesObject;
        const namespace = namespaceFor('create', r, undefined, body);
        const admitted = admit('create', r, body, namespace);
        const name = String(admitted.metadata?.name);
        const before = bucket(r).get(key(namespace, name));
        const meta: ObjectMeta = {
          uid: randomUUID(),
          creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          generation: 1,
          ...admitted.metadata,
        };
        store1(r, namespace, { ...admitted, metadata: meta }, before);
      }
      return client;
    },
    objects(kind, namespace) {
      const r = resourceOf(kind);
      return [...bucket(r).values()]
        .filter((o) => namespace === undefined || o.metadata?.namespace === namespace)
        .sort((a, b) =>
          key(a.metadata?.namespace, String(a.metadata?.name)).localeCompare(
            key(b.metadata?.namespace, String(b.metadata?.name)),
          ),
        )
        .map((o) => viewed(r, o) as never);
    },
    ownedBy(owner) {
      const uid = owner.metadata?.uid;
      return [...store.values()].flatMap((objects) =>
        [...objects.values()]
          .filter((o) => (o.metadata?.ownerReferences ?? []).some((ref) => ref.uid === uid))
          .map(clone),
      );
    },
  };
  return client;
}
