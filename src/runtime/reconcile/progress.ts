/**
 * Per-handler progress records, stored as JSON in annotations `<marks prefix>/<key>` as kopf's
 * AnnotationsProgressStorage does (field names as in kopf's progress records). They let a
 * restarted operator continue where the last one stopped: a finished handler is not run
 * again, a delayed one waits for its time. Keys keep the name part within Kubernetes' 63
 * characters: longer or unsafe handler keys are cut and suffixed with a hash (kopf-style).
 */
import { createHash } from 'node:crypto';
import type { KubernetesObject } from '../api/kube-types.js';
import { isPlainObject } from '../json.js';
import type { Cause } from '../api/registry.js';
import { DEFAULT_MARKS, type Marks } from './marks.js';

export interface ProgressRecord {
  /** ISO time of the first attempt for this cause. */
  started: string;
  /** ISO time the handler finished (success or failure). */
  stopped?: string;
  /** ISO time before which the handler is not retried. */
  delayed?: string;
  /** The cause the record belongs to. */
  purpose: Cause;
  /** Attempts made so far. */
  retries: number;
  success?: boolean;
  failure?: boolean;
  /** The last error's message (kept after a permanent failure, unlike kopf). */
  message?: string;
  /**
   * Set when the cause completed: a failure record is kept for people to read, but it belongs to
   * a finished cause and does not stop the handler from running for the next one.
   */
  done?: boolean;
}

const NAME_LIMIT = 63;
const SAFE_NAME = /^[A-Za-z0-9]([-._A-Za-z0-9]*[A-Za-z0-9])?$/;

/** `<prefix>/<name>` for a handler key, the name within 63 characters and Kubernetes' charset, never one of the other marks. */
export function progressAnnotation(handlerKey: string, marks: Marks = DEFAULT_MARKS): string {
  const plain = `${marks.prefix}/${handlerKey}`;
  if (
    handlerKey.length <= NAME_LIMIT &&
    SAFE_NAME.test(handlerKey) &&
    plain !== marks.lastHandled &&
    plain !== marks.finalizer
  ) {
    return plain;
  }
  const digest = createHash('sha256').update(handlerKey).digest('hex').slice(0, 10);
  const readable = handlerKey.replace(/[^-._A-Za-z0-9]/g, '.').slice(0, NAME_LIMIT - digest.length - 1);
  const head = readable.replace(/^[^A-Za-z0-9]+/, '');
  return `${marks.prefix}/${head}${head ? '-' : ''}${digest}`;
}

/** The identity of a registered handler within its resource: id, plus the cause/field where ids may repeat. */
export function handlerKey(handler: { id: string; cause: Cause; field?: string }): string {
  if (handler.cause === 'field') return `${handler.id}.field.${handler.field ?? ''}`;
  if (handler.cause === 'resume') return `${handler.id}.resume`;
  return handler.id; // create, update and delete never share a cause, so they share the plain id
}

export function readProgress(
  body: KubernetesObject,
  key: string,
  marks: Marks = DEFAULT_MARKS,
): ProgressRecord | undefined {
  return parseProgress(body.metadata?.annotations?.[progressAnnotation(key, marks)]);
}

/** A record from its annotation value; undefined when absent or not a record (hand-edited, broken). */
function parseProgress(raw: unknown): ProgressRecord | undefined {
  if (typeof raw !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isProgressRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The fields every record has; the others are optional and read defensively where used. */
function isProgressRecord(value: unknown): value is ProgressRecord {
  return isPlainObject(value) && typeof value.started === 'string' && typeof value.retries === 'number';
}

export function encodeProgress(record: ProgressRecord): string {
  return JSON.stringify(record);
}

/** The record if it belongs to the running cause; records of a finished or other cause count as absent. */
export function currentProgress(record: ProgressRecord | undefined, cause: Cause): ProgressRecord | undefined {
  if (!record || record.done) return undefined;
  const sameBucket = record.purpose === cause || (record.purpose !== 'delete' && cause !== 'delete');
  return sameBucket ? record : undefined;
}

export function isFinished(record: ProgressRecord | undefined): boolean {
  return !!record && (record.success === true || record.failure === true);
}

/** All progress annotations on the object (ours, except the last-handled configuration). */
export function progressAnnotations(body: KubernetesObject, marks: Marks = DEFAULT_MARKS): string[] {
  return Object.keys(body.metadata?.annotations ?? {}).filter(
    (key) => key.startsWith(`${marks.prefix}/`) && key !== marks.lastHandled,
  );
}

/**
 * Annotation changes when a cause completes: records are purged as in kopf, except failures,
 * which stay (marked done) so the reason remains visible on the object.
 */
export function purgeProgress(body: KubernetesObject, marks: Marks = DEFAULT_MARKS): Record<string, string | null> {
  const annotations = body.metadata?.annotations ?? {};
  const changes: Record<string, string | null> = {};
  for (const key of progressAnnotations(body, marks)) {
    const record = parseProgress(annotations[key]);
    if (record && record.failure && !record.done) changes[key] = encodeProgress({ ...record, done: true });
    else if (!record || !record.failure) changes[key] = null;
  }
  return changes;
}
