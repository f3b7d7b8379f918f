/**
 * What the manifests are rendered for: the operator's identity and where it runs, resolved once
 * from the command line so the RBAC and the Deployment agree on every name. One role: the
 * decisions about names and namespaces; the renderers only read the result.
 */
import type { ResourceDescriptor } from '../runtime/api/define.js';
import { rangeCountProblem } from '../runtime/shard/ranges.js';

/** What the user chose (flags); everything optional has a default derived from the resources. */
export interface ManifestChoices {
  /** The operator's name: ServiceAccount, roles, bindings, Deployment and labels. */
  name?: string;
  /** Watch and grant in this namespace only (Roles instead of a ClusterRole); the operator runs there too. */
  namespace?: string;
  /** The container image (default `<name>:latest`). */
  image?: string;
  /** The module `kopfgen run` loads, as a path inside the image, relative to its working directory. */
  module: string;
  /** The port of `/healthz` and `/readyz` (default 8080). */
  healthPort?: number;
  /** The webhook server's port in the pod (default 9443). */
  webhookPort?: number;
  /** Who issues the webhook certificate: cert-manager (default), or the operator itself (self-signed, CA in a Secret). */
  webhookCerts?: 'cert-manager' | 'self-signed';
  /** Development: the configurations call this URL (a local API server) instead of a Service; implies self-signed. */
  webhookUrl?: string;
  /** Pods of the Deployment (default 2: one leads, or with `shards` they share the ranges; see DEFAULT_REPLICAS). */
  replicas?: number;
  /** `kopfgen run --shards K`: the replicas share the objects in K hash ranges instead of one leading. */
  shards?: number;
  /** Shown in each file's header: what the manifests were made from. */
  source: string;
}

/**
 * Two pods unless told: without `--shards` one leads and one stands by, so a node drain or a crash
 * hands the Lease over within a lease duration instead of waiting for a new pod to be scheduled and
 * pulled (controller-runtime's scaffold keeps 1 and pays that wait); with `--shards` the two share the
 * ranges. Either way two is the least a PodDisruptionBudget of maxUnavailable 1 can keep one of.
 */
export const DEFAULT_REPLICAS = 2;

export interface ManifestTarget {
  name: string;
  /** Where the ServiceAccount, the Deployment and the leader-election Lease live. */
  operatorNamespace: string;
  /** Set with `-n`: the only namespace watched; undefined when the operator watches all namespaces. */
  watchNamespace?: string;
  /** Whether the operator's namespace is ours to create (cluster-wide installs); never a user's `-n` namespace. */
  createNamespace: boolean;
  image: string;
  module: string;
  healthPort: number;
  /** How the API server reaches the webhooks (used only when the module registers any). */
  webhooks: { port: number; certs: 'cert-manager' | 'self-signed'; url?: string };
  replicas: number;
  /** Set with `--shards K`: the number of hash ranges the replicas share; undefined when one leads. */
  shards?: number;
  source: string;
  labels: Record<string, string>;
}

/** A DNS-1123 label (RFC 1123): what names of namespaces, Deployments and label values must be. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export type Resolved = { target: ManifestTarget; problems: [] } | { target?: undefined; problems: string[] };

/**
 * The default name follows the resources: one kind gives `<kind>-operator` (kubebuilder and
 * kopf examples name operators after what they manage); several give `<group>-operator`.
 */
export function defaultName(resources: readonly ResourceDescriptor[]): string {
  const kinds = [...new Set(resources.map((r) => r.kind.toLowerCase()))];
  const base = kinds.length === 1 ? kinds[0] : (resources[0]?.group || 'core').replace(/\./g, '-').toLowerCase();
  return `${base
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 54)}-operator`;
}

export function resolveTarget(resources: readonly ResourceDescriptor[], choices: ManifestChoices): Resolved {
  const problems: string[] = [];
  const name = choices.name ?? defaultName(resources);
  // `<name>-system` and `<name>-leader-election` must still be valid names: 63 minus the longest suffix.
  if (!DNS_LABEL.test(name) || name.length > 47) {
    problems.push(
      `--name "${name}" must be a DNS-1123 label of at most 47 characters (lower-case letters, digits, "-")`,
    );
  }
  if (choices.namespace !== undefined && (!DNS_LABEL.test(choices.namespace) || choices.namespace.length > 63)) {
    problems.push(
      `-n "${choices.namespace}" is not a valid namespace name (a DNS-1123 label: lower-case letters, digits, "-")`,
    );
  }
  const port = choices.healthPort ?? 8080;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    problems.push(`--health-port ${port} is not a port number (1-65535)`);
  const webhookPort = choices.webhookPort ?? 9443;
  if (!Number.isInteger(webhookPort) || webhookPort < 1 || webhookPort > 65535 || webhookPort === port)
    problems.push(`--webhook-port ${webhookPort} is not a port number (1-65535) other than the health port`);
  const url = choices.webhookUrl;
  if (url !== undefined && !/^https:\/\/[^/]+/.test(url))
    problems.push(`--webhook-url "${url}" must be an https:// URL (the API server calls webhooks over TLS only)`);
  if (url !== undefined && choices.webhookCerts === 'cert-manager')
    problems.push('--webhook-url needs --webhook-certs self-signed: a cert-manager Certificate names the Service');
  const replicas = choices.replicas ?? DEFAULT_REPLICAS;
  if (!Number.isInteger(replicas) || replicas < 1) problems.push(`--replicas ${replicas} is not a positive integer`);
  // The same bound `kopfgen run --shards` checks, so manifests never render a Deployment that cannot start.
  const shardsProblem = choices.shards === undefined ? undefined : rangeCountProblem(choices.shards);
  if (shardsProblem !== undefined) problems.push(`--shards: ${shardsProblem}`);
  if (choices.module === '' || choices.module.startsWith('/') || choices.module.split('/').includes('..')) {
    problems.push(
      `the module path in the image "${choices.module}" must be relative to the image's working directory ` +
        '(give it with --image-module)',
    );
  }
  if (problems.length > 0) return { problems };
  return {
    problems: [],
    target: {
      name,
      operatorNamespace: choices.namespace ?? `${name}-system`,
      watchNamespace: choices.namespace,
      createNamespace: choices.namespace === undefined,
      image: choices.image ?? `${name}:latest`,
      module: choices.module,
      healthPort: port,
      webhooks: {
        port: webhookPort,
        certs: url !== undefined ? 'self-signed' : (choices.webhookCerts ?? 'cert-manager'),
        ...(url === undefined ? {} : { url }),
      },
      replicas,
      ...(choices.shards === undefined ? {} : { shards: choices.shards }),
      source: choices.source,
      labels: {
        'app.kubernetes.io/name': name,
        'app.kubernetes.io/component': 'operator',
        'app.kubernetes.io/managed-by': 'kopfgen',
      },
    },
  };
}
