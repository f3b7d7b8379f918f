/**
 * What must hold before the operator watches anything, checked at once and reported together (one line
 * per problem), within a bound (controller-runtime's cache-sync timeout exits non-zero; so does this):
 *  - the namespace of `-n` is a DNS-1123 label (a bad one would silently watch nothing);
 *  - the API answers and its discovery serves each resource (discovery.ts);
 *  - the cluster's CRD says whether there is a status subresource and which versions are served: the
 *    cluster wins over the generated descriptor, with a warning to regenerate (403 on the CRD: a warning);
 *    a built-in kind (api/builtins.ts) has no CRD and is not looked up;
 *  - an initial list of each resource succeeds (a real call: what the watch does first);
 *  - the other verbs the runtime uses are allowed (SelfSubjectAccessReview, which every authenticated user
 *    may create): watch and patch on the resource, patch on its status, create/patch Events, and on Leases
 *    get/create/update when leader election is on, and every verb declared on a kind the operator's code
 *    uses (owned kinds, indexed kinds, `uses`: api/access.ts), so a missing grant is one line at startup
 *    rather than a 403 inside a handler.
 */
import { isBuiltin } from '../api/builtins.js';
import type { ResourceDescriptor } from '../api/define.js';
import type { DeclaredAccess } from '../api/registry.js';
import { isPlainObject } from '../json.js';
import { describe, KubeError, resourcePath, type KubeClient } from './client.js';
import { checkCluster, checkResource, StartupError } from './discovery.js';
import { messageOf } from '../error-message.js';

export const DEFAULT_CACHE_SYNC_SECONDS = 60;

/** The one warning or problem per line the checks produce; problems stop the start. */
export interface StartupReport {
  /** The descriptors as the cluster has them (status subresource corrected). */
  resources: ResourceDescriptor[];
  warnings: string[];
}

export interface StartupCheckOptions {
  namespace?: string;
  /** Where the leader election Lease lives, when leader election is on. */
  leaseNamespace?: string;
  /** Sharding (`--shards`): each replica lists the Leases of that namespace every retry period. */
  leaseList?: boolean;
  /** The bound on all checks together (default DEFAULT_CACHE_SYNC_SECONDS). */
  timeoutSeconds?: number;
  /** The CRDs (`<plural>.<group>`) whose conversion functions are registered. */
  conversions?: ReadonlySet<string>;
  /** Kinds the operator's code uses beyond its resources, with their verbs (api/access.ts). */
  declared?: readonly DeclaredAccess[];
}

/**
 * KG360: a CRD whose conversion is a webhook but that nobody converts here: every read or write in a
 * version other than the stored one fails until conversion functions are registered.
 */
export function conversionWarning(crd: string, kind: string): string {
  return (
    `KG360 the CRD ${crd} declares spec.conversion.strategy Webhook, but no conversion functions are registered ` +
    `for it: the API server cannot convert ${kind} between its versions; register them with ` +
    `${kind}Conversion.register(…) from the generated ${crd.slice(0, crd.indexOf('.'))}.conversion.ts`
  );
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Why `namespace` cannot name a namespace (Kubernetes' IsDNS1123Label), or undefined. */
export function namespaceProblem(namespace: string): string | undefined {
  if (namespace.length <= 63 && DNS1123_LABEL.test(namespace)) return undefined;
  return (
    `namespace ${JSON.stringify(namespace)} is not a valid namespace name: at most 63 characters, ` +
    'lower-case letters, digits and "-", starting and ending with a letter or digit (RFC 1123 label)'
  );
}

/** One access the runtime needs: verb on group/resource(/subresource) in a namespace ('' = all). */
export interface Access {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace: string;
}

function accessName(access: Access): string {
  const resource = `${access.resource}${access.subresource ? `/${access.subresource}` : ''}`;
  const where = access.namespace ? `namespace ${access.namespace}` : 'all namespaces';
  return `${access.verb} on ${resource}${access.group ? `.${access.group}` : ''} (${where})`;
}

/** The accesses of one resource, as the runtime uses them. */
export function resourceAccesses(resource: ResourceDescriptor, namespace: string | undefined): Access[] {
  const ns = resource.scope === 'Namespaced' ? (namespace ?? '') : '';
  const base = { group: resource.group, resource: resource.plural, namespace: ns };
  const accesses: Access[] = [
    { ...base, verb: 'watch' },
    { ...base, verb: 'patch' },
  ];
  if (resource.statusSubresource) accesses.push({ ...base, verb: 'patch', subresource: 'status' });
  return accesses;
}

/** The accesses the declarations ask for, once each (a kind declared twice asks once per verb). */
export function declaredAccesses(declared: readonly DeclaredAccess[], namespace: string | undefined): Access[] {
  const seen = new Map<string, Access>();
  for (const { resource, verbs } of declared) {
    const ns = resource.scope === 'Namespaced' ? (namespace ?? '') : '';
    for (const verb of verbs) {
      const access = { verb, group: resource.group, resource: resource.plural, namespace: ns };
      seen.set(accessName(access), access);
    }
  }
  return [...seen.values()];
}

export function sharedAccesses(
  namespace: string | undefined,
  leaseNamespace: string | undefined,
  leaseList = false,
): Access[] {
  const events = { group: '', resource: 'events', namespace: namespace ?? '' };
  const accesses: Access[] = [
    { ...events, verb: 'create' },
    { ...events, verb: 'patch' },
  ];
  if (leaseNamespace !== undefined) {
    const lease = { group: 'coordination.k8s.io', resource: 'leases', namespace: leaseNamespace };
    for (const verb of ['get', 'create', 'update', ...(leaseList ? ['list'] : [])]) accesses.push({ ...lease, verb });
  }
  return accesses;
}

/** The user a 403 names (`User "system:serviceaccount:ns:sa" cannot …`), if it does. */
export function userOf(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : '';
  return /User "([^"]+)"/.exec(message)?.[1];
}

/** `system:serviceaccount:…` from a bearer token that is a JWT (a service account token), if it is one. */
export function tokenSubject(authorization: string | undefined): string | undefined {
  const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined;
  const payload = token?.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return isPlainObject(claims) && typeof claims.sub === 'string' ? claims.sub : undefined;
  } catch {
    return undefined; // an opaque token: no name to tell
  }
}

interface ClusterCrd {
  statusSubresource: boolean;
  /** The version's status schema keeps unknown fields, so the runtime's records survive there. */
  statusKeepsUnknown: boolean;
  served: string[];
  /** `spec.conversion.strategy` (`None` when absent). */
  conversion: string;
}

/** `x-kubernetes-preserve-unknown-fields: true` on the status schema, or on a root that declares no status. */
function keepsUnknownStatus(version: Record<string, unknown>): boolean {
  const schema = isPlainObject(version.schema) ? version.schema.openAPIV3Schema : undefined;
  if (!isPlainObject(schema)) return false;
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const status = properties.status;
  if (status === undefined) return schema['x-kubernetes-preserve-unknown-fields'] === true;
  return isPlainObject(status) && status['x-kubernetes-preserve-unknown-fields'] === true;
}

function crdOf(answer: unknown, version: string): ClusterCrd {
  const spec = isPlainObject(answer) && isPlainObject(answer.spec) ? answer.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isPlainObject) : [];
  const served = versions.filter((v) => v.served === true).map((v) => String(v.name));
  const ours = versions.find((v) => v.name === version);
  const subresources = ours && isPlainObject(ours.subresources) ? ours.subresources : {};
  return {
    statusSubresource: isPlainObject(subresources.status),
    statusKeepsUnknown: ours !== undefined && keepsUnknownStatus(ours),
    served,
    conversion: isPlainObject(spec.conversion) ? String(spec.conversion.strategy ?? 'None') : 'None',
  };
}

/** The descriptor as the cluster's CRD has it; a warning for each disagreement, or when the CRD cannot be read. */
async function clusterView(
  client: KubeClient,
  resource: ResourceDescriptor,
  warnings: string[],
  conversions: ReadonlySet<string> | undefined,
) {
  const name = `${resource.plural}.${resource.group}`;
  let crd: ClusterCrd;
  try {
    const answer = await client.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, {
      timeoutMs: 10_000,
    });
    crd = crdOf(answer, resource.version);
  } catch (error) {
    if (error instanceof KubeError && (error.status === 403 || error.status === 404)) {
      const why = error.status === 403 ? 'reading it is forbidden' : 'not found (a built-in resource?)';
      warnings.push(
        `the CRD ${name} cannot be checked against the generated descriptor: ${why}; trusting the descriptor`,
      );
      return resource;
    }
    throw error;
  }
  if (
    crd.conversion === 'Webhook' &&
    !conversions?.has(name) &&
    !warnings.includes(conversionWarning(name, resource.kind))
  )
    warnings.push(conversionWarning(name, resource.kind));
  const regenerate = 'regenerate the types from the installed CRD (kopfgen generate)';
  if (crd.statusSubresource !== resource.statusSubresource) {
    const has = (yes: boolean) => (yes ? 'has' : 'has no');
    warnings.push(
      `${describe(resource)}: the cluster's CRD ${has(crd.statusSubresource)} status subresource, the ` +
        `generated descriptor says it ${has(resource.statusSubresource)}; following the cluster: ${regenerate}`,
    );
  }
  const others = crd.served.filter((v) => v !== resource.version);
  if (crd.served.includes(resource.version) && others.length) {
    const kinds = others.join(', ');
    warnings.push(`${describe(resource)}: the cluster also serves ${kinds}; handlers see version ${resource.version}`);
  }
  // Records in status only where the cluster keeps them: else its pruning would drop them on every write.
  const statusRecords = resource.statusRecords === true && crd.statusSubresource && crd.statusKeepsUnknown;
  if (resource.statusRecords === true && !statusRecords && crd.statusSubresource) {
    warnings.push(
      `${describe(resource)}: the cluster's CRD does not keep unknown fields in status, the generated descriptor ` +
        `says it does (statusRecords); keeping the operator's records in annotations: ${regenerate}`,
    );
  }
  return crd.statusSubresource === resource.statusSubresource && statusRecords === (resource.statusRecords === true)
    ? resource
    : { ...resource, statusSubresource: crd.statusSubresource, statusRecords };
}

/** A first page of the list the watch starts with: only a 403/401 is a problem line, other failures throw. */
async function listProblem(client: KubeClient, resource: ResourceDescriptor, namespace: string | undefined) {
  try {
    await client.request('GET', resourcePath(resource, namespace), { query: { limit: 1 }, timeoutMs: 10_000 });
    return undefined;
  } catch (error) {
    if (!(error instanceof KubeError && (error.status === 403 || error.status === 401))) throw error;
    const ns = resource.scope === 'Namespaced' ? (namespace ?? '') : '';
    const access = { verb: 'list', group: resource.group, resource: resource.plural, namespace: ns };
    return { access, user: userOf(error) };
  }
}

async function allowed(client: KubeClient, access: Access): Promise<boolean> {
  const { verb, group, resource, subresource, namespace } = access;
  const body = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes: { verb, group, resource, subresource, namespace: namespace || undefined } },
  };
  const answer = await client.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
    body,
    timeoutMs: 10_000,
  });
  return isPlainObject(answer) && isPlainObject(answer.status) && answer.status.allowed === true;
}

async function checks(client: KubeClient, resources: ResourceDescriptor[], options: StartupCheckOptions) {
  await checkCluster(client);
  const problems: string[] = [];
  const warnings: string[] = [];
  const checked: ResourceDescriptor[] = [];
  const denied: Access[] = [];
  let user: string | undefined;
  for (const resource of resources) {
    try {
      await checkResource(client, resource);
    } catch (error) {
      problems.push(messageOf(error));
      continue;
    }
    // Kubernetes' own kinds have no CRD to compare the descriptor with.
    checked.push(isBuiltin(resource) ? resource : await clusterView(client, resource, warnings, options.conversions));
  }
  for (const resource of checked) {
    const listing = await listProblem(client, resource, options.namespace);
    if (listing) denied.push(listing.access);
    user ??= listing?.user;
  }
  const accesses = [
    ...checked.flatMap((resource) => resourceAccesses(resource, options.namespace)),
    ...sharedAccesses(options.namespace, options.leaseNamespace, options.leaseList),
    ...declaredAccesses(options.declared ?? [], options.namespace),
  ];
  for (const access of accesses) if (!(await allowed(client, access))) denied.push(access);
  user ??= tokenSubject(await client.authorization()) ?? "the operator's user";
  for (const access of denied) problems.push(`${accessName(access)} is forbidden for ${user}`);
  if (problems.length) throw new StartupError(problems.join('\n'));
  return { resources: checked, warnings };
}

/**
 * Runs every check; resolves with the descriptors as the cluster has them, or rejects with a StartupError
 * whose message has one line per problem (all of them, not the first), also when the bound passes.
 */
export async function startupChecks(
  client: KubeClient,
  resources: ResourceDescriptor[],
  options: StartupCheckOptions = {},
): Promise<StartupReport> {
  if (options.namespace !== undefined) {
    const problem = namespaceProblem(options.namespace);
    if (problem) throw new StartupError(problem);
  }
  const seconds = options.timeoutSeconds ?? DEFAULT_CACHE_SYNC_SECONDS;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new StartupError(
          `the startup checks (discovery, CRDs, the first list, access) did not finish within ${
            seconds
          } s (--cache-sync-timeout): is the API server at ${client.server.origin} answering?`,
        ),
      );
    }, seconds * 1000);
  });
  try {
    return await Promise.race([checks(client, resources, options), bound]);
  } catch (error) {
    if (error instanceof StartupError) throw error;
    throw new StartupError(`startup checks failed: ${messageOf(error)}`);
  } finally {
    clearTimeout(timer);
  }
}
