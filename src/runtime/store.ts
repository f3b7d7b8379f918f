/**
 * The newest known state of each object of one resource, by uid (kube-rs `reflector` store).
 * Guarantees: a state older than the one known — an intermediate event of the operator's own
 * patch, a relist — is dropped, so nothing is handled twice; a state the operator produced
 * itself (a patch's answer) is adopted only while the object is still known, so a DELETED
 * event that overtook the answer is not undone.
 */
import type { KubernetesObject } from './api/kube-types.js';
import { resourceVersionOf } from './reconcile/decide.js';

export function uidOf(body: KubernetesObject): string {
  return String(body.metadata?.uid);
}

/**
 * Whether `a` is a newer state than `b`. resourceVersions are etcd revisions (numbers) in
 * practice; else any difference counts.
 */
export function isNewer(a: KubernetesObject, b: KubernetesObject): boolean {
  return newerVersion(resourceVersionOf(a), resourceVersionOf(b));
}

/** Whether resourceVersion `ra` is newer than `rb` (see isNewer). */
export function newerVersion(ra: string | undefined, rb: string | undefined): boolean {
  if (ra && rb && /^\d+$/.test(ra) && /^\d+$/.test(rb)) return BigInt(ra) > BigInt(rb);
  return ra !== rb;
}

/**
 * managedFields are the bulk of a small object's metadata and no handler decision needs them:
 * the kept states drop them (a third of the operator's memory with 10,000 objects watched).
 */
function slim(body: KubernetesObject): void {
  if (body.metadata?.managedFields) delete body.metadata.managedFields;
}

export class Store {
  private readonly objects = new Map<string, KubernetesObject>();
  /** Objects seen for the first time by this process and not yet at rest (kopf's `initial`: resume is due). */
  private readonly initial = new Set<string>();

  get size(): number {
    return this.objects.size;
  }

  get(uid: string): KubernetesObject | undefined {
    return this.objects.get(uid);
  }

  uids(): string[] {
    return [...this.objects.keys()];
  }

  /** Keeps `body` if it is newer than the state known; returns its uid then, else undefined. */
  apply(body: KubernetesObject): string | undefined {
    slim(body);
    const uid = uidOf(body);
    const known = this.objects.get(uid);
    if (known && !isNewer(body, known)) return undefined;
    if (!known) this.initial.add(uid);
    this.objects.set(uid, body);
    return uid;
  }

  delete(uid: string): void {
    this.objects.delete(uid);
    this.initial.delete(uid);
  }

  /** After a relist: forgets every object not among `uids`; returns the uids forgotten. */
  retain(uids: Set<string>): string[] {
    const gone = this.uids().filter((uid) => !uids.has(uid));
    for (const uid of gone) this.delete(uid);
    return gone;
  }

  /**
   * Records a state the operator produced itself (a patch's answer) unless a newer one is known.
   * An object no longer known was deleted meanwhile (its DELETED event overtook the answer): it stays forgotten.
   */
  adopt(uid: string, answer: KubernetesObject): void {
    const known = this.objects.get(uid);
    if (!known) return;
    slim(answer);
    if (isNewer(answer, known) || resourceVersionOf(answer) === resourceVersionOf(known)) {
      this.objects.set(uid, { apiVersion: known.apiVersion, kind: known.kind, ...answer });
    }
  }

  isInitial(uid: string): boolean {
    return this.initial.has(uid);
  }

  /** The object came to rest (or completed a cause): later sights are not its first. */
  settle(uid: string): void {
    this.initial.delete(uid);
  }
}
