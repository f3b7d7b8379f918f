/**
 * What the operator's code reads and writes beyond the resources it handles, declared where code
 * cannot be read for calls (kubebuilder's `+kubebuilder:rbac` markers, as declarations): `uses(kind,
 * verbs)`, and implied by `onChild` (an owned kind: watched, created, applied, deleted) and
 * `defineIndex` (an indexed kind: listed and watched). `kopfgen manifests` grants exactly these
 * verbs, the startup checks ask a SelfSubjectAccessReview for each, and the typed client refuses a
 * call the declarations do not cover with an `UndeclaredKindError` naming the declaration to add,
 * before the cluster would refuse it with a 403.
 */
import type { ClientKind, ClientVerb } from './client-api.js';
import { defaultRegistry, type AccessKind, type AccessVerb, type DeclaredAccess, type Registry } from './registry.js';
import { isBuiltin } from './builtins.js';
import type { ResourceDescriptor } from './resource.js';

export type { AccessKind, AccessVerb };

/** The RBAC verbs each client call needs. */
export const CLIENT_ACCESS: Readonly<Record<ClientVerb, readonly AccessVerb[]>> = {
  get: ['get'],
  list: ['list'],
  create: ['create'],
  apply: ['patch', 'create'],
  patch: ['patch'],
  delete: ['delete'],
};

/** Every client verb: what `uses(kind)` declares when no verbs are given. */
export const ALL_CLIENT_VERBS: readonly ClientVerb[] = ['get', 'list', 'create', 'apply', 'patch', 'delete'];

/** What an owned kind (`onChild`) needs: watched, read, and every write the client can make. */
export const OWNED_ACCESS: readonly AccessVerb[] = ['get', 'list', 'watch', 'create', 'patch', 'delete'];

/** What an indexed kind (`defineIndex`) needs: the watch's list and watch. */
export const INDEXED_ACCESS: readonly AccessVerb[] = ['list', 'watch'];

export function accessKind(kind: ClientKind<unknown, unknown>): AccessKind {
  if (!('apiVersion' in kind))
    return { group: kind.group, version: kind.version, plural: kind.plural, kind: kind.kind, scope: kind.scope };
  const slash = kind.apiVersion.lastIndexOf('/');
  return {
    group: slash < 0 ? '' : kind.apiVersion.slice(0, slash),
    version: kind.apiVersion.slice(slash + 1),
    plural: kind.plural,
    kind: kind.kind,
    scope: kind.scope ?? 'Namespaced',
  };
}

/** `deployments.apps`, `configmaps`: the resource as RBAC and the API server's messages name it. */
export function resourceName(kind: Pick<AccessKind, 'group' | 'plural'>): string {
  return kind.group ? `${kind.plural}.${kind.group}` : kind.plural;
}

/** `apps/v1`, or `v1` in the core group. */
export function apiVersionOf(kind: Pick<AccessKind, 'group' | 'version'>): string {
  return kind.group ? `${kind.group}/${kind.version}` : kind.version;
}

/**
 * The declaration a call needs, as code: `builtins.<name>` for Kubernetes' own kinds (the entry
 * point's key: the kind's name in camel case with the plural's ending), the generated descriptor's
 * name (`<Kind>Descriptor`) for a custom resource.
 */
export function declarationFor(kind: AccessKind, verbs: readonly ClientVerb[]): string {
  const name = isBuiltin(kind)
    ? `builtins.${kind.kind.charAt(0).toLowerCase()}${kind.kind.slice(1)}${kind.plural.slice(kind.kind.length)}`
    : `${kind.kind}Descriptor`;
  return `uses(${name}, [${verbs.map((verb) => `'${verb}'`).join(', ')}])`;
}

/**
 * Declares that the operator's code calls the typed client on `kind` with `verbs` (default: all of
 * them). Goes to the registry the handlers are in (`options.registry`, default `defaultRegistry`).
 */
export function uses(
  kind: ClientKind<unknown, unknown>,
  verbs: readonly ClientVerb[] = ALL_CLIENT_VERBS,
  options: { registry?: Registry } = {},
): void {
  const registry = options.registry ?? defaultRegistry;
  const granted = new Set(verbs.flatMap((verb) => CLIENT_ACCESS[verb]));
  registry.declare({ resource: accessKind(kind), verbs: [...granted], via: declarationFor(accessKind(kind), verbs) });
}

/**
 * The verbs the operator may use per kind: the declarations, and on the handled resources what the
 * runtime's own RBAC grants them (get, list, patch). Answers a call with the declaration it lacks.
 */
export class AccessTable {
  private readonly granted = new Map<string, Set<AccessVerb>>();

  constructor(declared: readonly DeclaredAccess[], handled: readonly ResourceDescriptor[]) {
    for (const resource of handled) this.grant(resource, ['get', 'list', 'watch', 'patch']);
    for (const access of declared) this.grant(access.resource, access.verbs);
  }

  private grant(kind: Pick<AccessKind, 'group' | 'plural'>, verbs: readonly AccessVerb[]): void {
    const set = this.granted.get(resourceName(kind)) ?? new Set<AccessVerb>();
    for (const verb of verbs) set.add(verb);
    this.granted.set(resourceName(kind), set);
  }

  /** Undefined when `verb` on `kind` is declared; else the declaration to add. */
  refuse(verb: ClientVerb, kind: AccessKind): string | undefined {
    const set = this.granted.get(resourceName(kind));
    if (CLIENT_ACCESS[verb].every((needed) => set?.has(needed))) return undefined;
    return declarationFor(kind, [verb]);
  }
}
