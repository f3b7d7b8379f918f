/**
 * From a handler's outcome to the merge patch that records it: the return value, or the
 * error's `status`, merged into `status.<id>`; the handler's own edits to its `patch`
 * argument (also when it failed); its progress record. Then split between the object and
 * its `/status` subresource.
 */
import type { Patch } from './context.js';
import { clone, combineMergePatches } from './json.js';
import type { Outcome } from './outcome.js';
import type { ObjectPatch } from './plan.js';
import { encodeProgress, progressAnnotation, type ProgressRecord } from './progress.js';

export function emptyPatch(): Patch {
  return { metadata: {}, spec: {}, status: {} };
}

export function outcomePatch(id: string, key: string, outcome: Outcome, handlerPatch: Patch, record: ProgressRecord): ObjectPatch {
  const status = clone(handlerPatch.status ?? {});
  // A handler's status is its own object: merged key by key like kopf merges the result into status.<id>.
  if (outcome.status !== undefined) status[id] = combineMergePatches(status[id], outcome.status);
  const annotations = { ...clone(handlerPatch.metadata?.annotations ?? {}), [progressAnnotation(key)]: encodeProgress(record) };
  const patch: ObjectPatch = { metadata: { annotations } };
  if (handlerPatch.metadata?.labels && Object.keys(handlerPatch.metadata.labels).length > 0) patch.metadata!.labels = clone(handlerPatch.metadata.labels);
  if (handlerPatch.spec && Object.keys(handlerPatch.spec).length > 0) patch.spec = clone(handlerPatch.spec);
  if (Object.keys(status).length > 0) patch.status = status;
  return patch;
}

/** `status` goes to the `/status` subresource when the resource has one (the main endpoint ignores it then). */
export function splitPatch(patch: ObjectPatch, statusSubresource: boolean): { main?: ObjectPatch; status?: ObjectPatch } {
  const { status, ...rest } = patch;
  const hasRest = Object.keys(rest).length > 0;
  if (!statusSubresource || !status) return { main: hasRest || status ? patch : undefined };
  return { main: hasRest ? rest : undefined, status: { status } };
}
