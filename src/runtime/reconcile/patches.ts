/**
 * From a handler's outcome to the merge patch that records it: the return value, or the
 * error's `status`, merged into `status.<id>`; the handler's own edits to its `patch`
 * argument (also when it failed); its progress record. Then split between the object and
 * its `/status` subresource.
 */
import type { Patch } from '../api/context.js';
import { clone, combineMergePatches, isPlainObject } from '../json.js';
import type { Outcome } from './outcome.js';
import type { Marks } from './marks.js';
import { encodeProgress, progressAnnotation, type ProgressRecord } from './progress.js';

/**
 * A merge patch of the object, split so status can go through the `/status` subresource. Any
 * top-level key and any metadata key a handler patched is carried (kopf's `patch` takes any key).
 */
export interface ObjectPatch {
  metadata?: {
    annotations?: Record<string, string | null>;
    labels?: Record<string, string | null>;
    finalizers?: string[] | null;
    resourceVersion?: string;
    [key: string]: unknown;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Whether a combination of object patches is one (always, for plain objects: the guard keeps the types honest). */
function isObjectPatch(value: unknown): value is ObjectPatch {
  if (!isPlainObject(value)) return false;
  const { metadata, spec, status } = value;
  return [metadata, spec, status].every((section) => section === undefined || isPlainObject(section));
}

/** Merge patch `b` after `a`, as one patch (applying it equals applying `a`, then `b`, RFC 7386). */
export function combinePatches(a: ObjectPatch, b: ObjectPatch): ObjectPatch {
  const combined = combineMergePatches(a, b);
  if (!isObjectPatch(combined)) throw new TypeError('two object patches combined into a non-object');
  return combined;
}

export function emptyPatch(): Patch {
  return { metadata: {}, spec: {}, status: {} };
}

/**
 * The finalizers a handler's `finalizers` patch writes. A merge patch replaces the list whole, so
 * the operator's own finalizer is kept in it exactly when the object has it now: a handler can
 * neither drop the finalizer its delete handlers need nor add it where it has no business. `null`
 * (delete the list) keeps the operator's own, if the object has it.
 */
export function handlerFinalizers(
  requested: readonly string[] | null,
  current: readonly string[],
  own: string,
): string[] | null {
  const theirs = (requested ?? []).filter((f) => f !== own);
  const list = current.includes(own) ? [...theirs, own] : theirs;
  return requested === null && list.length === 0 ? null : list;
}

/** `patch` without the keys whose value is an empty object: they would change nothing. */
function withoutEmpty(patch: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(patch).filter(([, v]) => v !== undefined && !(isPlainObject(v) && Object.keys(v).length === 0)),
  );
}

/**
 * The patch that replaces `previous` (the value at `status.<id>` now) with `next` under a merge
 * patch: every key of `previous` that `next` lacks is nulled, at every depth of objects both hold.
 */
export function replacingPatch(previous: unknown, next: unknown): unknown {
  if (!isPlainObject(previous) || !isPlainObject(next)) return next;
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(previous)) if (next[key] === undefined) patch[key] = null;
  for (const [key, value] of Object.entries(next)) {
    if (value !== undefined) patch[key] = replacingPatch(previous[key], value);
  }
  return patch;
}

/**
 * The patch recording an outcome: the handler's own patch (every key, its finalizers reconciled
 * with the operator's, see `handlerFinalizers`), the outcome's status merged into `status.<id>`,
 * the progress record. `finalizers`: the object's finalizers now.
 */
export function outcomePatch(
  id: string,
  key: string,
  outcome: Outcome,
  handlerPatch: Patch,
  record: ProgressRecord,
  marks: Marks,
  finalizers: readonly string[] = [],
): ObjectPatch {
  const patch = resultPatch(id, outcome, handlerPatch, marks, finalizers);
  const annotations = { ...patch.metadata?.annotations, [progressAnnotation(key, marks)]: encodeProgress(record) };
  return { ...patch, metadata: { ...patch.metadata, annotations } };
}

/** `status` goes to the `/status` subresource when the resource has one (the main endpoint ignores it then). */
export function splitPatch(
  patch: ObjectPatch,
  statusSubresource: boolean,
): { main?: ObjectPatch; status?: ObjectPatch } {
  const { status, ...rest } = patch;
  const hasRest = Object.keys(rest).length > 0;
  if (!statusSubresource || !status) return { main: hasRest || status ? patch : undefined };
  return { main: hasRest ? rest : undefined, status: { status } };
}

/**
 * The patch of an outcome without a progress record (a timer's or daemon's: kopf keeps none for
 * spawning handlers; a changing handler's adds its record in `outcomePatch`): the handler's own
 * patch, every key of it, its finalizers reconciled with the operator's, and the outcome's status
 * merged into `status.<id>`.
 */
export function resultPatch(
  id: string,
  outcome: Outcome,
  handlerPatch: Patch,
  marks: Marks,
  finalizers: readonly string[] = [],
): ObjectPatch {
  const { metadata = {}, status: handlerStatus = {}, ...rest } = clone(handlerPatch);
  const status: Record<string, unknown> = { ...handlerStatus };
  // A handler's status is its own object: merged key by key like kopf merges the result into status.<id>.
  if (outcome.status !== undefined) status[id] = combineMergePatches(status[id], outcome.status);
  const annotations: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(metadata.annotations ?? {}))
    if (value !== undefined) annotations[name] = value;
  const meta: NonNullable<ObjectPatch['metadata']> = withoutEmpty({ ...metadata });
  if (Object.keys(annotations).length > 0) meta.annotations = annotations;
  else delete meta.annotations;
  if (metadata.finalizers !== undefined)
    meta.finalizers = handlerFinalizers(metadata.finalizers, finalizers, marks.finalizer);
  const patch: ObjectPatch = withoutEmpty(rest);
  if (Object.keys(meta).length > 0) patch.metadata = meta;
  if (Object.keys(status).length > 0) patch.status = status;
  return patch;
}
