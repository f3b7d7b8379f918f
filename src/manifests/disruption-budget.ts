/**
 * The operator's PodDisruptionBudget: voluntary disruptions (a node drain, a cluster upgrade) evict at
 * most one of its pods at a time, so a drain never takes the leader and its stand-by together, nor every
 * replica sharing the ranges (`--shards`): the ranges of the evicted pod move to the others once it has
 * drained and released them, and the rest keep handling theirs. `maxUnavailable` rather than
 * `minAvailable`, so `--replicas` can change without the budget blocking every eviction (a budget of
 * minAvailable N with N pods would). None for one replica: a budget of one pod only blocks drains.
 */
import { podSelector } from './deployment-manifest.js';
import type { ManifestTarget } from './manifest-target.js';
import type { KubeObject } from './rbac-manifest.js';

/** policy/v1 (Kubernetes 1.21+; v1beta1 was removed in 1.25); undefined for a single replica. */
export function disruptionBudgetObject(target: ManifestTarget): KubeObject | undefined {
  if (target.replicas < 2) return undefined;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: target.name, namespace: target.operatorNamespace, labels: target.labels },
    spec: { maxUnavailable: 1, selector: { matchLabels: podSelector(target) } },
  };
}
