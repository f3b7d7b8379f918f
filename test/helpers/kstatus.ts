/**
 * kstatus's reading of an object (sigs.k8s.io/cli-utils/pkg/kstatus/status, `checkGenericProperties`),
 * written from its documentation rather than from the runtime's rules, so the e2e can check every status
 * it observes against what Helm, Flux and `kubectl wait`'s users will read:
 *  - a deletionTimestamp: Terminating;
 *  - `status.observedGeneration` present and not `metadata.generation`: InProgress (the latest spec is
 *    not observed yet);
 *  - the first condition, in list order, that is `Reconciling` True: InProgress, `Stalled` True: Failed;
 *  - otherwise Current, where for a custom resource with a `Ready` condition that condition must be True
 *    too (kstatus leaves Ready to the resource; the runtime promises it).
 */
export type KStatus = 'InProgress' | 'Failed' | 'Current' | 'Terminating';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

export function kstatus(object: Json): KStatus {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  if (metadata.deletionTimestamp !== undefined) return 'Terminating';
  const status = isObject(object.status) ? object.status : {};
  const observed = status.observedGeneration;
  if (observed !== undefined && observed !== metadata.generation) return 'InProgress';
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
  for (const condition of conditions) {
    if (condition.type === 'Reconciling' && condition.status === 'True') return 'InProgress';
    if (condition.type === 'Stalled' && condition.status === 'True') return 'Failed';
  }
  const ready = conditions.find((c) => c.type === 'Ready');
  if (ready && ready.status !== 'True') return 'InProgress';
  return 'Current';
}
