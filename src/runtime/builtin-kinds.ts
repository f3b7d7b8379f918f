/**
 * `kopfgen/runtime/builtins`: descriptors of Kubernetes' own kinds as handler targets
 * (`defineHandler(builtins.configMaps, 'audit').onCreate(…)`) and their object types.
 *
 * An entry point of its own, not part of `kopfgen/runtime`: a type-checker loads every file a
 * declaration imports, so types reachable from `kopfgen/runtime` would be parsed by every project,
 * also by one that never names a built-in kind. Here only a project that imports this module pays
 * for them (the four group/version files below, about 4,000 lines of declarations).
 *
 * The types are the `kubernetes-types` package's (type-only: nothing of it exists at run time), one
 * declaration file per API group/version, generated from Kubernetes' OpenAPI and versioned with it:
 * they are the objects as JSON carries them (timestamps and quantities are strings; a field the
 * schema requires is required), with no index signature, so an unknown key is an error wherever
 * TypeScript checks excess properties (and under `Exact`, everywhere).
 */
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type {
  ConfigMap,
  Namespace,
  PersistentVolumeClaim,
  Pod,
  Secret,
  Service,
  ServiceAccount,
} from 'kubernetes-types/core/v1.js';
import type { Ingress } from 'kubernetes-types/networking/v1.js';
import type { BuiltinDescriptor } from './api/builtins.js';

export type {
  ConfigMap,
  CronJob,
  DaemonSet,
  Deployment,
  Ingress,
  Job,
  Namespace,
  PersistentVolumeClaim,
  Pod,
  ReplicaSet,
  Secret,
  Service,
  ServiceAccount,
  StatefulSet,
};
export type { BuiltinDescriptor };

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
