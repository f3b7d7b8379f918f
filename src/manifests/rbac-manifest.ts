/**
 * Least-privilege RBAC for an operator, from the resources it registered handlers for: exactly
 * the verbs the runtime uses, no wildcards (as kubebuilder's `config/rbac` from `+kubebuilder:rbac`
 * markers, and kopf's documented minimal rules). `options.sensitive`: some handled resource has
 * sensitive fields (runtime/api/registry.ts `sensitiveFields`). What each rule is for:
 *
 * - `get`, `list`, `watch`, `patch` on each resource: the initial list and the watch; `get` to
 *   tell a 404 from `/status` apart from a gone object; `patch` for finalizers, progress and
 *   last-handled annotations (merge patches; the runtime never updates, creates or deletes them).
 * - `patch` on `<plural>/status` where the status subresource exists: handler results.
 * - `create`, `patch` on core `events`: Warning Events, and their aggregation into one series
 *   (client-go's EventRecorder patches the count of a repeated Event).
 * - `get` on `customresourcedefinitions`, by name (`<plural>.<group>`) only: at startup the
 *   runtime trusts the cluster's CRD (status subresource, served versions) over its descriptor.
 * - `get`, `create`, `update` on `coordination.k8s.io` `leases`, in the operator's own namespace
 *   only: leader election (client-go's resourcelock updates the Lease it holds). With `--shards`, `list`
 *   too: each replica lists the namespace's Leases every retry period to see the members and who holds
 *   each range (runtime/shard/shard-member.ts); it never watches or deletes them (a release is an update).
 * - `get` on the Secret `kopfgen-digest-key` and `create` on secrets, in the operator's own namespace,
 *   when a resource has sensitive fields (a Secret's data): the key their digests are made with
 *   (RBAC cannot limit `create` to one name; `get` is limited to that Secret).
 * - On each kind the operator's code declares (runtime/api/access.ts: owned kinds of `onChild`, indexed
 *   kinds of `defineIndex`, `uses`): exactly the verbs declared, in the role of the kind's scope.
 * - `update` on `<plural>/finalizers` of a resource whose handlers own children: an owner reference with
 *   blockOwnerDeletion needs it where the OwnerReferencesPermissionEnforcement admission plugin is on
 *   (controller-runtime's scaffolds grant the same).
 */
import { isBuiltin } from '../runtime/api/builtins.js';
import type { ResourceDescriptor } from '../runtime/api/define.js';
import type { AccessVerb, DeclaredAccess } from '../runtime/api/registry.js';
import type { ManifestTarget } from './manifest-target.js';
import { webhookRules, type WebhookSet } from './webhook-manifest.js';
import { DIGEST_KEY_SECRET } from '../runtime/kube/digest-key.js';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
  verbs: string[];
}

/** A Kubernetes object as rendered: keys in the order `kubectl get -o yaml` shows them. */
export type KubeObject = Record<string, unknown>;

/** One resource as RBAC sees it: versions do not matter, the status subresource does if any version has it. */
export interface GrantedResource {
  group: string;
  plural: string;
  scope: 'Namespaced' | 'Cluster';
  status: boolean;
}

/** A custom resource has a CRD to grant `get` on; Kubernetes' own kinds (builtins.ts) have none. */
export function isCustomResource(r: { group: string }): boolean {
  return !isBuiltin(r);
}

/** One entry per group and plural, sorted, so registration order and versions never change the output. */
export function grantedResources(resources: readonly ResourceDescriptor[]): GrantedResource[] {
  const byKey = new Map<string, GrantedResource>();
  for (const r of resources) {
    const key = `${r.plural}.${r.group}`;
    const seen = byKey.get(key);
    byKey.set(key, {
      group: r.group,
      plural: r.plural,
      scope: r.scope,
      status: (seen?.status ?? false) || r.statusSubresource,
    });
  }
  return [...byKey.values()].sort((a, b) => (a.group + '/' + a.plural < b.group + '/' + b.plural ? -1 : 1));
}

export function resourceRules(resources: readonly GrantedResource[]): PolicyRule[] {
  const rules: PolicyRule[] = [];
  for (const r of resources) {
    rules.push({ apiGroups: [r.group], resources: [r.plural], verbs: ['get', 'list', 'watch', 'patch'] });
    if (r.status) rules.push({ apiGroups: [r.group], resources: [`${r.plural}/status`], verbs: ['patch'] });
  }
  return rules;
}

/** The order verbs are listed in a rule (kubectl's, for the verbs the runtime uses). */
const VERB_ORDER: readonly AccessVerb[] = ['get', 'list', 'watch', 'create', 'patch', 'delete'];

export interface RbacOptions {
  /** Some handled resource has sensitive fields: the digest key's Secret. */
  sensitive?: boolean;
  /** Kinds the operator's code uses, with their verbs. */
  declared?: readonly DeclaredAccess[];
  /** Handled resources whose handlers own children (blockOwnerDeletion). */
  owners?: readonly ResourceDescriptor[];
}

/** One rule per declared kind (group and plural), the verbs of all its declarations, in `scope`. */
export function declaredRules(declared: readonly DeclaredAccess[], scope: 'Namespaced' | 'Cluster'): PolicyRule[] {
  const verbs = new Map<string, { group: string; plural: string; verbs: Set<AccessVerb> }>();
  for (const access of declared) {
    if (access.resource.scope !== scope) continue;
    const key = `${access.resource.group}/${access.resource.plural}`;
    const entry = verbs.get(key) ?? { group: access.resource.group, plural: access.resource.plural, verbs: new Set() };
    for (const verb of access.verbs) entry.verbs.add(verb);
    verbs.set(key, entry);
  }
  return [...verbs.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, entry]) => ({
      apiGroups: [entry.group],
      resources: [entry.plural],
      verbs: VERB_ORDER.filter((verb) => entry.verbs.has(verb)),
    }));
}

/** `update` on the finalizers of owners (see the header), one rule per resource, in `scope`. */
export function ownerRules(owners: readonly ResourceDescriptor[], scope: 'Namespaced' | 'Cluster'): PolicyRule[] {
  return grantedResources(owners.filter((r) => r.scope === scope)).map((r) => ({
    apiGroups: [r.group],
    resources: [`${r.plural}/finalizers`],
    verbs: ['update'],
  }));
}

export const EVENTS_RULE: PolicyRule = { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] };
export const LEASES_RULE: PolicyRule = {
  apiGroups: ['coordination.k8s.io'],
  resources: ['leases'],
  verbs: ['get', 'create', 'update'],
};

/** The Lease rule of an operator run with `--shards`: `list` added (see the header). */
export const SHARD_LEASES_RULE: PolicyRule = { ...LEASES_RULE, verbs: ['get', 'list', 'create', 'update'] };

/** The digest key Secret (runtime/kube/digest-key.ts): read it by name, create it when absent. */
export const DIGEST_KEY_RULES: PolicyRule[] = [
  { apiGroups: [''], resources: ['secrets'], resourceNames: [DIGEST_KEY_SECRET], verbs: ['get'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
];

/** `get` on the operator's own CRDs by name; undefined when it handles built-in resources only. */
export function crdRule(resources: readonly GrantedResource[]): PolicyRule | undefined {
  const names = resources.filter(isCustomResource).map((r) => `${r.plural}.${r.group}`);
  if (names.length === 0) return undefined;
  return {
    apiGroups: ['apiextensions.k8s.io'],
    resources: ['customresourcedefinitions'],
    resourceNames: names,
    verbs: ['get'],
  };
}

function meta(name: string, target: ManifestTarget, namespace?: string): KubeObject {
  return namespace === undefined ? { name, labels: target.labels } : { name, namespace, labels: target.labels };
}

function role(
  kind: 'Role' | 'ClusterRole',
  name: string,
  target: ManifestTarget,
  rules: PolicyRule[],
  namespace?: string,
): KubeObject {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: meta(name, target, namespace), rules };
}

function binding(
  kind: 'RoleBinding' | 'ClusterRoleBinding',
  name: string,
  target: ManifestTarget,
  namespace?: string,
): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata: meta(name, target, namespace),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: kind === 'RoleBinding' ? 'Role' : 'ClusterRole', name },
    subjects: [{ kind: 'ServiceAccount', name: target.name, namespace: target.operatorNamespace }],
  };
}

export function serviceAccount(target: ManifestTarget): KubeObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(target.name, target, target.operatorNamespace) };
}

/**
 * The roles and their bindings. Cluster-wide: one ClusterRole. With `-n`: a Role in that
 * namespace for its resources and Events, and a ClusterRole only for what no Role can grant
 * (CRDs and cluster-scoped resources), named after the namespace too so that installs in two
 * namespaces do not share it. Events about cluster-scoped objects go to `default` (as the
 * runtime posts them), so with `-n` they need a Role there.
 */
export function rbacObjects(
  resources: readonly ResourceDescriptor[],
  target: ManifestTarget,
  webhooks?: WebhookSet,
  options: RbacOptions = {},
): KubeObject[] {
  const granted = grantedResources(resources);
  const crd = crdRule(granted);
  const hooks = webhooks ? webhookRules(webhooks, target) : { cluster: [], namespaced: [] };
  const out: KubeObject[] = [];
  const pair = (kind: 'Role' | 'ClusterRole', name: string, rules: PolicyRule[], namespace?: string) => {
    if (rules.length === 0) return;
    out.push(role(kind, name, target, rules, namespace));
    out.push(binding(kind === 'Role' ? 'RoleBinding' : 'ClusterRoleBinding', name, target, namespace));
  };
  const ns = target.watchNamespace;
  const declared = options.declared ?? [];
  const owners = options.owners ?? [];
  const code = (scope: 'Namespaced' | 'Cluster') => [...ownerRules(owners, scope), ...declaredRules(declared, scope)];
  if (ns === undefined) {
    pair('ClusterRole', target.name, [
      ...resourceRules(granted),
      ...code('Namespaced'),
      ...code('Cluster'),
      EVENTS_RULE,
      ...(crd ? [crd] : []),
      ...hooks.cluster,
    ]);
  } else {
    const namespaced = granted.filter((r) => r.scope === 'Namespaced');
    const clusterScoped = granted.filter((r) => r.scope === 'Cluster');
    pair('Role', target.name, [...resourceRules(namespaced), ...code('Namespaced'), EVENTS_RULE], ns);
    pair('ClusterRole', `${target.name}-${ns}`, [
      ...resourceRules(clusterScoped),
      ...code('Cluster'),
      ...(crd ? [crd] : []),
      ...hooks.cluster,
    ]);
    if (clusterScoped.length > 0 && ns !== 'default') pair('Role', `${target.name}-events`, [EVENTS_RULE], 'default');
  }
  const own = [
    target.shards === undefined ? LEASES_RULE : SHARD_LEASES_RULE,
    ...(options.sensitive ? DIGEST_KEY_RULES : []),
  ];
  pair('Role', `${target.name}-leader-election`, own, target.operatorNamespace);
  // The self-signed CA Secret lives beside the Lease, in the operator's namespace.
  pair('Role', `${target.name}-webhook-certs`, hooks.namespaced, target.operatorNamespace);
  return out;
}
