/**
 * Progress records the operator could not write (the write that would carry them failed),
 * held in memory per object and laid over the object's annotations before each decision, so
 * an attempt counts even when the API server refuses to record it — like kopf's in-memory
 * throttler, they do not survive a restart. A record is let go once a patch carrying its
 * annotation has been written, or when the object is forgotten.
 */
import type { KubernetesObject } from '../api/kube-types.js';
import type { ObjectPatch } from './patches.js';

export class HeldRecords {
  private readonly held = new Map<string, Map<string, string>>();

  hold(uid: string, annotation: string, value: string): void {
    const records = this.held.get(uid) ?? new Map<string, string>();
    records.set(annotation, value);
    this.held.set(uid, records);
  }

  holding(uid: string): boolean {
    return this.held.has(uid);
  }

  /** `body` with the held records in its annotations (the same object when none are held). */
  overlay(uid: string, body: KubernetesObject): KubernetesObject {
    const records = this.held.get(uid);
    if (!records) return body;
    const metadata = body.metadata ?? {};
    const annotations = { ...metadata.annotations, ...Object.fromEntries(records) };
    return { ...body, metadata: { ...metadata, annotations } };
  }

  /** A patch was written: the records it carried are on the object now. */
  written(uid: string, patch: ObjectPatch): void {
    const records = this.held.get(uid);
    const annotations = patch.metadata?.annotations;
    if (!records || !annotations) return;
    for (const key of Object.keys(annotations)) records.delete(key);
    if (records.size === 0) this.held.delete(uid);
  }

  forget(uid: string): void {
    this.held.delete(uid);
  }
}
