/**
 * Where the operator keeps its records (progress records and the last-handled essence): in
 * annotations (kopf's AnnotationsProgressStorage / AnnotationsDiffBaseStorage), or, when the
 * resource's descriptor says its status schema keeps unknown fields (`statusRecords`), under
 * `status.kopfgen` (as kopf's StatusProgressStorage keeps them under `status.kopf`). With a status
 * subresource the records then travel in the same `/status` write as the handler's status: one
 * write per handled object instead of two, and no window between the status and the records
 * (a crash can no longer leave a written status with an unwritten record).
 *
 * `decide`, the outcome patches and the held records all speak of records as annotations; this
 * file is the one translation: `recordsView` lays the status records over the annotations before
 * a decision, `placeRecords` moves the records of a patch into status before the write. Records
 * left in annotations by an operator that kept them there (an older version) are read as well and
 * cleared when their key is next written, so switching storage loses nothing.
 */
import type { KubernetesObject } from '../api/kube-types.js';
import { isPlainObject } from '../json.js';
import type { Marks } from './marks.js';
import type { ObjectPatch } from './patches.js';

/** The status field holding the records; handler ids may not be `kopfgen` (status.<id> is a handler's). */
export const RECORDS_FIELD = 'kopfgen';

/** Whether an annotation key is one of this operator's records (not the finalizer, which lives elsewhere). */
export function isRecordKey(key: string, marks: Marks): boolean {
  return key === marks.lastHandled || key.startsWith(`${marks.prefix}/`);
}

/** The records this operator keeps in `status.kopfgen` of `body`, by annotation key. */
function statusRecords(body: KubernetesObject, marks: Marks): [string, string][] {
  const status = body.status;
  const field = isPlainObject(status) ? status[RECORDS_FIELD] : undefined;
  if (!isPlainObject(field)) return [];
  return Object.entries(field).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string' && isRecordKey(entry[0], marks),
  );
}

/** Where one resource's records are written. */
export type RecordsPlace = 'annotations' | 'status';

/** `status` when the resource has a status subresource whose schema keeps the records (the descriptor's `statusRecords`). */
export function recordsPlace(resource: { statusSubresource: boolean; statusRecords?: boolean }): RecordsPlace {
  return resource.statusSubresource && resource.statusRecords === true ? 'status' : 'annotations';
}

/**
 * `body` as `decide` reads it: the status records laid into the annotations. Where a key is in
 * both places (left by an operator that kept its records in the other place), the copy in the
 * place records are written to wins: it is the newer. The same object when there are none.
 */
export function recordsView(body: KubernetesObject, marks: Marks, place: RecordsPlace): KubernetesObject {
  const records = statusRecords(body, marks);
  if (records.length === 0) return body;
  const metadata = body.metadata ?? {};
  const annotations =
    place === 'status'
      ? { ...metadata.annotations, ...Object.fromEntries(records) }
      : { ...Object.fromEntries(records), ...metadata.annotations };
  return { ...body, metadata: { ...metadata, annotations } };
}

/**
 * `patch` with its records where the resource keeps them: moved from annotations to
 * `status.kopfgen` for `status`. A record key the object still holds in the other place is cleared
 * there, so the old copy cannot resurface.
 */
export function placeRecords(
  patch: ObjectPatch,
  current: KubernetesObject,
  marks: Marks,
  place: RecordsPlace,
): ObjectPatch {
  const annotations = patch.metadata?.annotations;
  if (!annotations) return patch;
  if (place === 'annotations') {
    const inStatus = new Set(statusRecords(current, marks).map(([key]) => key));
    const stale = Object.keys(annotations).filter((key) => inStatus.has(key) && isRecordKey(key, marks));
    if (stale.length === 0) return patch;
    const cleared = Object.fromEntries(stale.map((key) => [key, null]));
    const status = isPlainObject(patch.status?.[RECORDS_FIELD]) ? patch.status[RECORDS_FIELD] : {};
    return { ...patch, status: { ...patch.status, [RECORDS_FIELD]: { ...status, ...cleared } } };
  }
  const moved: Record<string, string | null> = {};
  const kept: Record<string, string | null> = {};
  const existing = current.metadata?.annotations ?? {};
  for (const [key, value] of Object.entries(annotations)) {
    if (!isRecordKey(key, marks)) kept[key] = value;
    else {
      moved[key] = value;
      if (existing[key] !== undefined) kept[key] = null;
    }
  }
  if (Object.keys(moved).length === 0) return patch;
  const placed: ObjectPatch = { ...patch, status: { ...patch.status, [RECORDS_FIELD]: moved } };
  const metadata = { ...patch.metadata };
  delete metadata.annotations;
  if (Object.keys(kept).length > 0) metadata.annotations = kept;
  if (Object.keys(metadata).length > 0) placed.metadata = metadata;
  else delete placed.metadata;
  return placed;
}

/** The record keys a written patch placed in status that the server's answer does not hold: pruned by its schema. */
export function prunedRecords(placed: ObjectPatch, answer: KubernetesObject, marks: Marks): string[] {
  const field = placed.status?.[RECORDS_FIELD];
  if (!isPlainObject(field)) return [];
  const kept = new Map(statusRecords(answer, marks));
  return Object.entries(field)
    .filter(([key, value]) => typeof value === 'string' && kept.get(key) !== value)
    .map(([key]) => key);
}
