/**
 * Kubernetes' own kinds as handler targets (kopf's `@kopf.on.create('configmaps')`, controller-runtime's
 * `For(&corev1.ConfigMap{})`): `defineHandler(builtins.configMaps, 'audit').onCreate(…)`. The object
 * types are @kubernetes/client-node's models, imported as types only (nothing of client-node is loaded
 * at run time) and read as they travel on the wire (`Wire`: timestamps are strings, not Dates).
 *
 * Their status is not ours to write: Kubernetes' controllers own it (a Deployment's status is the
 * deployment controller's; a ConfigMap has none). So a built-in kind's handler has the status type
 * `never`: returning a value is a compile error (TS2322 at the callback), as a typed error's status
 * would be. Progress, the last-handled essence and the finalizer go to annotations and metadata as
 * for custom resources. At run time (JavaScript, or a cast) a returned value, an error's status or
 * `patch.status` is not written: the handler's log says so once per attempt.
 */
import type { V1ConfigMap } from '@kubernetes/client-node/dist/gen/models/V1ConfigMap.js';
import type { V1CronJob } from '@kubernetes/client-node/dist/gen/models/V1CronJob.js';
import type { V1DaemonSet } from '@kubernetes/client-node/dist/gen/models/V1DaemonSet.js';
import type { V1Deployment } from '@kubernetes/client-node/dist/gen/models/V1Deployment.js';
import type { V1Ingress } from '@kubernetes/client-node/dist/gen/models/V1Ingress.js';
import type { V1Job } from '@kubernetes/client-node/dist/gen/models/V1Job.js';
import type { V1Namespace } from '@kubernetes/client-node/dist/gen/models/V1Namespace.js';
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node/dist/gen/models/V1PersistentVolumeClaim.js';
import type { V1Pod } from '@kubernetes/client-node/dist/gen/models/V1Pod.js';
import type { V1ReplicaSet } from '@kubernetes/client-node/dist/gen/models/V1ReplicaSet.js';
import type { V1Secret } from '@kubernetes/client-node/dist/gen/models/V1Secret.js';
import type { V1Service } from '@kubernetes/client-node/dist/gen/models/V1Service.js';
import type { V1ServiceAccount } from '@kubernetes/client-node/dist/gen/models/V1ServiceAccount.js';
import type { V1StatefulSet } from '@kubernetes/client-node/dist/gen/models/V1StatefulSet.js';
import type { HandlerContext } from './context.js';
import type { ResourceDescriptor } from './resource.js';
import { isHandlerError, PermanentError, TemporaryError } from './errors.js';

/** A client-node model as JSON carries it: Date fields are RFC 3339 strings; the rest as it is. */
export type Wire<T> = T extends Date
  ? string
  : T extends readonly (infer E)[]
    ? Wire<E>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

/** The descriptor of a built-in kind: no CRD behind it, its status not the operator's to write. */
export interface BuiltinDescriptor<R> extends ResourceDescriptor<R> {
  readonly builtin: true;
}

/**
 * Groups kube-apiserver serves itself (and the core group, ""): their resources have no CRD to read.
 * A CRD's group always has a dot, so a group without one is built in too.
 */
const BUILT_IN_GROUPS = new Set([
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'metrics.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

/** Whether a resource is one of Kubernetes' own (no CRD to check), by its flag or its group. */
export function isBuiltin(resource: Pick<ResourceDescriptor, 'group'> & { builtin?: boolean }): boolean {
  return resource.builtin === true || !resource.group.includes('.') || BUILT_IN_GROUPS.has(resource.group);
}

function builtin<T>(
  group: string,
  version: string,
  plural: string,
  kind: string,
  scope: 'Namespaced' | 'Cluster' = 'Namespaced',
  sensitive?: readonly string[],
): BuiltinDescriptor<T> {
  return Object.freeze({
    group,
    version,
    plural,
    kind,
    scope,
    // never written by the operator, whether or not the kind has the subresource
    statusSubresource: false,
    printerColumns: Object.freeze([]),
    builtin: true as const,
    ...(sensitive ? { sensitive: Object.freeze([...sensitive]) } : {}),
  });
}

/** The built-in kinds' objects as handlers receive them (named, so declarations stay small). */
export type ConfigMap = Wire<V1ConfigMap>;
export type Secret = Wire<V1Secret>;
export type Pod = Wire<V1Pod>;
export type Service = Wire<V1Service>;
export type ServiceAccount = Wire<V1ServiceAccount>;
export type PersistentVolumeClaim = Wire<V1PersistentVolumeClaim>;
export type Namespace = Wire<V1Namespace>;
export type Deployment = Wire<V1Deployment>;
export type StatefulSet = Wire<V1StatefulSet>;
export type DaemonSet = Wire<V1DaemonSet>;
export type ReplicaSet = Wire<V1ReplicaSet>;
export type Job = Wire<V1Job>;
export type CronJob = Wire<V1CronJob>;
export type Ingress = Wire<V1Ingress>;

/** The built-in kinds handlers are most often written for; `defineResource` describes any other. */
export interface Builtins {
  readonly configMaps: BuiltinDescriptor<ConfigMap>;
  readonly secrets: BuiltinDescriptor<Secret>;
  readonly pods: BuiltinDescriptor<Pod>;
  readonly services: BuiltinDescriptor<Service>;
  readonly serviceAccounts: BuiltinDescriptor<ServiceAccount>;
  readonly persistentVolumeClaims: BuiltinDescriptor<PersistentVolumeClaim>;
  readonly namespaces: BuiltinDescriptor<Namespace>;
  readonly deployments: BuiltinDescriptor<Deployment>;
  readonly statefulSets: BuiltinDescriptor<StatefulSet>;
  readonly daemonSets: BuiltinDescriptor<DaemonSet>;
  readonly replicaSets: BuiltinDescriptor<ReplicaSet>;
  readonly jobs: BuiltinDescriptor<Job>;
  readonly cronJobs: BuiltinDescriptor<CronJob>;
  readonly ingresses: BuiltinDescriptor<Ingress>;
}

export const builtins: Builtins = Object.freeze({
  configMaps: builtin<ConfigMap>('', 'v1', 'configmaps', 'ConfigMap'),
  // a Secret's values never reach the last-handled state: keyed digests only (essence.ts `conceal`)
  secrets: builtin<Secret>('', 'v1', 'secrets', 'Secret', 'Namespaced', ['data', 'stringData']),
  pods: builtin<Pod>('', 'v1', 'pods', 'Pod'),
  services: builtin<Service>('', 'v1', 'services', 'Service'),
  serviceAccounts: builtin<ServiceAccount>('', 'v1', 'serviceaccounts', 'ServiceAccount'),
  persistentVolumeClaims: builtin<PersistentVolumeClaim>('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim'),
  namespaces: builtin<Namespace>('', 'v1', 'namespaces', 'Namespace', 'Cluster'),
  deployments: builtin<Deployment>('apps', 'v1', 'deployments', 'Deployment'),
  statefulSets: builtin<StatefulSet>('apps', 'v1', 'statefulsets', 'StatefulSet'),
  daemonSets: builtin<DaemonSet>('apps', 'v1', 'daemonsets', 'DaemonSet'),
  replicaSets: builtin<ReplicaSet>('apps', 'v1', 'replicasets', 'ReplicaSet'),
  jobs: builtin<Job>('batch', 'v1', 'jobs', 'Job'),
  cronJobs: builtin<CronJob>('batch', 'v1', 'cronjobs', 'CronJob'),
  ingresses: builtin<Ingress>('networking.k8s.io', 'v1', 'ingresses', 'Ingress'),
});

type Callback = (context: HandlerContext<unknown, unknown, unknown>) => unknown;

/**
 * A built-in kind's handler as the runtime runs it: whatever would land in `status` (a returned
 * value, an error's status, `patch.status`) is dropped with one warning, so nothing the cluster
 * owns is written and nothing is silently lost either.
 */
export function builtinHandler(id: string, fn: Callback): Callback {
  const dropped = (context: HandlerContext<unknown, unknown, unknown>, what: string) =>
    context.logger.warn(
      `handler ${id}: ${what} is not written: the status of a built-in kind belongs to Kubernetes (see README, built-in kinds)`,
    );
  const clearPatchStatus = (context: HandlerContext<unknown, unknown, unknown>) => {
    const status: unknown = Reflect.get(context.patch, 'status');
    if (typeof status === 'object' && status !== null && Object.keys(status).length > 0) {
      dropped(context, 'patch.status');
      for (const key of Object.keys(status)) Reflect.deleteProperty(status, key);
    }
  };
  return async (context) => {
    let result: unknown;
    try {
      result = await fn(context);
    } catch (error) {
      clearPatchStatus(context);
      const kind = isHandlerError(error);
      if (!kind || Reflect.get(Object(error), 'status') === undefined) throw error;
      dropped(context, 'the status its error carries');
      const message = error instanceof Error ? error.message : String(error);
      const cause: unknown = Reflect.get(Object(error), 'cause');
      if (kind === 'permanent') throw new PermanentError(message, { cause });
      const delay: unknown = Reflect.get(Object(error), 'delay');
      throw new TemporaryError(message, { cause, delay: typeof delay === 'number' ? delay : undefined });
    }
    clearPatchStatus(context);
    if (result !== undefined) dropped(context, 'its return value');
    return undefined;
  };
}
