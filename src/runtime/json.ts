/** Small JSON helpers: plain-object checks, deep equality, RFC 7386 merge patches, field paths. */
import type { KubernetesObject } from './api/kube-types.js';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON object whose `metadata`, if any, is an object: what the API server sends for any resource. */
export function isKubernetesObject(value: unknown): value is KubernetesObject {
  return isPlainObject(value) && (value.metadata === undefined || isPlainObject(value.metadata));
}

export function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    // Own keys only: `b[k]` of a key b lacks would find Object.prototype's member (`constructor`, `__proto__`).
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** Applies an RFC 7386 merge patch to `target` and returns the result (inputs are not modified). */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  return mergeInto(clone(target), patch);
}

/** Merges `patch` into `target`, which the caller owns (a fresh copy): each level is copied once, not again per depth. */
function mergeInto(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return clone(patch);
  const result: Record<string, unknown> = isPlainObject(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete result[key];
    else result[key] = mergeInto(result[key], value);
  }
  return result;
}

/** Merges merge patch `b` into merge patch `a` so that applying the result equals applying a then b. */
export function combineMergePatches(a: unknown, b: unknown): unknown {
  return combineInto(clone(a), b);
}

function combineInto(a: unknown, b: unknown): unknown {
  if (!isPlainObject(a) || !isPlainObject(b)) return clone(b);
  for (const [key, value] of Object.entries(b)) {
    if (value === undefined) continue;
    a[key] = key in a && isPlainObject(value) && isPlainObject(a[key]) ? combineInto(a[key], value) : clone(value);
  }
  return a;
}

export function getPath(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const segment of path) {
    if (!isPlainObject(current)) return undefined;
    current = current[segment];
  }
  return current;
}

/** Removes empty objects left behind, so essences compare equal regardless of empty stanzas. */
export function pruneEmpty(value: Record<string, unknown>): Record<string, unknown> {
  for (const [key, child] of Object.entries(value)) {
    if (isPlainObject(child)) {
      pruneEmpty(child);
      if (Object.keys(child).length === 0) delete value[key];
    }
  }
  return value;
}

/**
 * Paths (dotted) of the leaves a merge patch `written` sets (not deletions) that the server's
 * `answer` does not hold: what the API server dropped from a write.
 */
export function prunedFields(written: unknown, answer: unknown): string[] {
  return writtenLeaves(written, [])
    .filter((path) => getPath(answer, path) === undefined)
    .map((path) => path.join('.'));
}

function writtenLeaves(patch: unknown, prefix: string[]): string[][] {
  if (!isPlainObject(patch)) return [prefix];
  const leaves: string[][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || value === undefined) continue;
    if (isPlainObject(value) && Object.keys(value).length > 0) leaves.push(...writtenLeaves(value, [...prefix, key]));
    else leaves.push([...prefix, key]);
  }
  return leaves;
}
