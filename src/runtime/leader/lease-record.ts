/**
 * The `coordination.k8s.io/v1` Lease as leader election reads and writes it: the record in its spec
 * (client-go's `LeaderElectionRecord`), the MicroTime format the API server requires, and the paths.
 */

/** The spec fields leader election uses (client-go `resourcelock.LeaderElectionRecord` as a LeaseSpec). */
export interface LeaseRecord {
  /** '' when nobody holds the lease (released, as client-go's ReleaseOnCancel leaves it). */
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** Epoch milliseconds, written as MicroTime. */
  acquireTime: number;
  renewTime: number;
  leaseTransitions: number;
}

/** A Lease object as the API server returns it; spec fields we do not know are kept on update. */
export interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
    [key: string]: unknown;
  };
}

/** Where the lease lives: namespace and name. */
export interface LeaseRef {
  namespace: string;
  name: string;
}

const GROUP_VERSION = '/apis/coordination.k8s.io/v1';

export function leasesPath(ref: LeaseRef): string {
  return `${GROUP_VERSION}/namespaces/${encodeURIComponent(ref.namespace)}/leases`;
}

export function leasePath(ref: LeaseRef): string {
  return `${leasesPath(ref)}/${encodeURIComponent(ref.name)}`;
}

export function describeLease(ref: LeaseRef): string {
  return `lease ${ref.namespace}/${ref.name}`;
}

/**
 * metav1.MicroTime's wire format, `2006-01-02T15:04:05.000000Z07:00`: the API server rejects a Lease
 * whose times lack the six fractional digits. JS dates have milliseconds, so the last three are 0.
 */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** A MicroTime (or RFC3339 Time) as epoch milliseconds; undefined when absent or unreadable. */
export function parseMicroTime(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The record in a Lease's spec; missing fields read as client-go reads them (zero values). */
export function recordOf(lease: Lease): LeaseRecord {
  const spec = lease.spec ?? {};
  return {
    holderIdentity: spec.holderIdentity ?? '',
    leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
    acquireTime: parseMicroTime(spec.acquireTime) ?? 0,
    renewTime: parseMicroTime(spec.renewTime) ?? 0,
    leaseTransitions: spec.leaseTransitions ?? 0,
  };
}

/**
 * Whether two records are the same. client-go compares the raw record bytes to decide whether the
 * lease changed since it last looked (and so whether to restart its expiry clock); the fields are the bytes.
 */
export function sameRecord(a: LeaseRecord, b: LeaseRecord): boolean {
  return (
    a.holderIdentity === b.holderIdentity &&
    a.leaseDurationSeconds === b.leaseDurationSeconds &&
    a.acquireTime === b.acquireTime &&
    a.renewTime === b.renewTime &&
    a.leaseTransitions === b.leaseTransitions
  );
}

function specOf(record: LeaseRecord): NonNullable<Lease['spec']> {
  return {
    // an empty holder is left out, as client-go's LeaderElectionRecordToLeaseSpec leaves a nil pointer
    holderIdentity: record.holderIdentity || undefined,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: formatMicroTime(record.acquireTime),
    renewTime: formatMicroTime(record.renewTime),
    leaseTransitions: record.leaseTransitions,
  };
}

/** Annotations to set on the Lease; undefined removes one. */
export type LeaseAnnotations = Record<string, string | undefined>;

function annotated(current: unknown, changes: LeaseAnnotations): Record<string, string> | undefined {
  const merged: Record<string, unknown> = { ...(typeof current === 'object' && current !== null ? current : {}) };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete merged[key];
    else merged[key] = value;
  }
  const kept = Object.entries(merged).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return kept.length ? Object.fromEntries(kept) : undefined;
}

/** A new Lease holding `record`, for POST. */
export function newLease(ref: LeaseRef, record: LeaseRecord, annotations: LeaseAnnotations = {}): Lease {
  const metadata: Lease['metadata'] = { name: ref.name, namespace: ref.namespace };
  const set = annotated(undefined, annotations);
  if (set) metadata.annotations = set;
  return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata, spec: specOf(record) };
}

/**
 * The observed Lease with its record replaced, for PUT. It keeps metadata.resourceVersion, so the
 * server applies it only if nobody wrote the lease since we read it (409 Conflict otherwise), as
 * client-go's LeaseLock.Update does with the lease it last got.
 */
export function updatedLease(observed: Lease, record: LeaseRecord, annotations: LeaseAnnotations = {}): Lease {
  const spec: Record<string, unknown> = { ...observed.spec, ...specOf(record) };
  if (!record.holderIdentity) delete spec.holderIdentity;
  const metadata = { ...observed.metadata };
  const set = annotated(observed.metadata.annotations, annotations);
  if (set) metadata.annotations = set;
  else delete metadata.annotations;
  return { ...observed, apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata, spec };
}
