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

/** A merge patch of the object, split so status can go through the `/status` subresource. */
export interface ObjectPatch {
  metadata?: {
    annotations?: Record<string, string | null>;
    labels?: Record<string, string | null>;
    finalizers?: string[] | null;
    resourceVersion?: string;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** Merge patch `b` after `a`, as one patch (each section merged as RFC 7386 would apply them in turn). */
export function combinePatches(a: ObjectPatch, b: ObjectPatch): ObjectPatch {
  const section = (x: unknown, y: unknown): Record<string, unknown> | undefined => {
    if (y === undefined) return isPlainObject(x) ? x : undefined;
    const combined = combineMergePatches(x, y);
    return isPlainObject(combined) ? combined : undefined;
  };
  const combined: ObjectPatch = {};
  if (a.metadata || b.metadata) {
    combined.metadata = { ...a.metadata, ...b.metadata, ...metadataMaps(a.metadata, b.metadata) };
  }
  const spec = section(a.spec, b.spec);
  const status = section(a.status, b.status);
  if (spec) combined.spec = spec;
  if (status) combined.status = status;
  return combined;
}

type PatchMetadata = NonNullable<ObjectPatch['metadata']>;

/** Annotations and labels merge key by key; finalizers and the resourceVersion are replaced as a whole. */
function metadataMaps(a: PatchMetadata = {}, b: PatchMetadata = {}): Pick<PatchMetadata, 'annotations' | 'labels'> {
  const maps: Pick<PatchMetadata, 'annotations' | 'labels'> = {};
  if (a.annotations || b.annotations) maps.annotations = { ...a.annotations, ...b.annotations };
  if (a.labels || b.labels) maps.labels = { ...a.labels, ...b.labels };
  return maps;
}

export function emptyPatch(): Patch {
  return { metadata: {}, spec: {}, status: {} };
}

export function outcomePatch(
  id: string,
  key: string,
  outcome: Outcome,
  handlerPatch: Patch,
  record: ProgressRecord,
  marks: Marks,
): ObjectPatch {
  const status = clone(handlerPatch.status ?? {});
  // A handler's status is its own object: merged key by key like kopf merges the result into status.<id>.
  if (outcome.status !== undefined) status[id] = combineMergePatches(status[id], outcome.status);
  const annotations = {
    ...clone(handlerPatch.metadata?.annotations ?? {}),
    [progressAnnotation(key, marks)]: encodeProgress(record),
  };
  const labels = handlerPatch.metadata?.labels;
  const withLabels = labels && Object.keys(labels).length > 0;
  const patch: ObjectPatch = { metadata: withLabels ? { annotations, labels: clone(labels) } : { annotations } };
  if (handlerPatch.spec && Object.keys(handlerPatch.spec).length > 0) patch.spec = clone(handlerPatch.spec);
  if (Object.keys(status).length > 0) patch.status = status;
  return patch;
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
 * The patch of a timer's or daemon's outcome: its status merged into `status.<id>` and the
 * handler's own patch, without a progress record (kopf keeps none for spawning handlers).
 */
export function resultPatch(id: string, outcome: Outcome, handlerPatch: Patch): ObjectPatch {
  const status = clone(handlerPatch.status ?? {});
  if (outcome.status !== undefined) status[id] = combineMergePatches(status[id], outcome.status);
  const patch: ObjectPatch = {};
  const { annotations, labels } = handlerPatch.metadata ?? {};
  if (annotations && Object.keys(annotations).length > 0) patch.metadata = { annotations: clone(annotations) };
  if (labels && Object.keys(labels).length > 0) patch.metadata = { ...patch.metadata, labels: clone(labels) };
  if (handlerPatch.spec && Object.keys(handlerPatch.spec).length > 0) patch.spec = clone(handlerPatch.spec);
  if (Object.keys(status).length > 0) patch.status = status;
  return patch;
}
