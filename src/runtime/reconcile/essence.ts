/**
 * The "essence" of an object, as kopf's diffbase.py builds it: what the user controls. No
 * apiVersion/kind, no status, no metadata other than labels and annotations, and among those no
 * annotation of ours (progress, last-handled configuration) and no
 * `kubectl.kubernetes.io/last-applied-configuration`. The operator's own writes (status,
 * progress, finalizers) therefore never change the essence and never trigger handlers again.
 */
import type { DiffItem } from '../api/context.js';
import type { KubernetesObject } from '../api/kube-types.js';
import { clone, deepEqual, getPath, isPlainObject, pruneEmpty } from '../json.js';

export const ANNOTATION_PREFIX = 'kopfgen.dev';
export const LAST_HANDLED_ANNOTATION = `${ANNOTATION_PREFIX}/last-handled-configuration`;
export const FINALIZER = `${ANNOTATION_PREFIX}/finalizer`;

const IGNORED_ANNOTATIONS = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

export type Essence = Record<string, unknown>;

export function buildEssence(body: KubernetesObject): Essence {
  const essence: Essence = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === 'apiVersion' || key === 'kind' || key === 'metadata' || key === 'status') continue;
    essence[key] = clone(value);
  }
  const meta = body.metadata ?? {};
  const metadata: Record<string, unknown> = {};
  if (isPlainObject(meta.labels)) metadata.labels = clone(meta.labels);
  const annotations: Record<string, unknown> = {};
  if (isPlainObject(meta.annotations)) {
    for (const [key, value] of Object.entries(meta.annotations)) {
      if (key.startsWith(`${ANNOTATION_PREFIX}/`) || IGNORED_ANNOTATIONS.has(key)) continue;
      annotations[key] = value;
    }
  }
  metadata.annotations = annotations;
  essence.metadata = metadata;
  return pruneEmpty(essence);
}

/** The essence stored by the last completed cause, or undefined when the object was never handled. */
export function lastHandledEssence(body: KubernetesObject): Essence | undefined {
  const raw = body.metadata?.annotations?.[LAST_HANDLED_ANNOTATION];
  if (typeof raw !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined; // a hand-edited, broken annotation: handle the object as new, as kopf would
  }
}

export function encodeEssence(essence: Essence): string {
  return `${JSON.stringify(essence)}\n`; // trailing newline as kubectl's own annotation, for readable `kubectl get -o yaml`
}

/** kopf's `diffs.diff`: a recursive diff of two JSON values, `[op, path, old, new]` per changed field. */
export function diff(a: unknown, b: unknown, path: readonly string[] = []): DiffItem[] {
  if (deepEqual(a, b)) return [];
  if (isPlainObject(a) && isPlainObject(b)) {
    const items: DiffItem[] = [];
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) items.push(...diff(a[key], b[key], [...path, key]));
    return items;
  }
  if (a === undefined || a === null) return [['add', path, undefined, b]];
  if (b === undefined || b === null) return [['remove', path, a, undefined]];
  return [['change', path, a, b]];
}

/** The part of `items` at or below `field` (dotted), with paths relative to it, like kopf's `diff.reduce`. */
export function reduceDiff(items: readonly DiffItem[], field: readonly string[]): DiffItem[] {
  const reduced: DiffItem[] = [];
  for (const [op, path, oldValue, newValue] of items) {
    const common = Math.min(path.length, field.length);
    if (!path.slice(0, common).every((segment, i) => segment === field[i])) continue;
    if (path.length >= field.length) {
      reduced.push([op, path.slice(field.length), oldValue, newValue]);
    } else {
      // The change is above the field (e.g. the whole spec added): narrow the values down to it.
      const rest = field.slice(path.length);
      reduced.push(...diff(getPath(oldValue, rest), getPath(newValue, rest)));
    }
  }
  return reduced;
}

export function parseField(field: string): string[] {
  return field.split('.').filter((segment) => segment.length > 0);
}
