/**
 * The operator's decision for one object state, pure (kopf's causation.py + processing.py):
 * which cause applies, whether the finalizer must be added or removed, which handler runs
 * next, or which patch completes the cause. The engine calls `decide` again on the state its
 * patch produced, until nothing is left to do or every pending handler waits for a retry.
 */
import type { DiffItem } from '../api/field-paths.js';
import {
  buildEssence,
  conceal,
  diff,
  encodeEssence,
  lastHandledEssence,
  parseField,
  reduceDiff,
  type Essence,
  type Secrecy,
} from './essence.js';
import type { Marks } from './marks.js';
import { applyMergePatch, deepEqual, getPath, isKubernetesObject } from '../json.js';
import { exhausted } from './outcome.js';
import {
  currentProgress,
  handlerKey,
  isFinished,
  purgeProgress,
  readProgress,
  type ProgressRecord,
} from './progress.js';
import type { Cause, RegisteredHandler } from '../api/registry.js';
import type { KubernetesObject } from '../api/kube-types.js';
import { combinePatches, type ObjectPatch } from './patches.js';
import { matchesChange, matchesFilters } from './filter-match.js';

export interface RunStep {
  kind: 'run';
  handler: RegisteredHandler;
  key: string;
  cause: Cause;
  record: ProgressRecord | undefined;
  diff: DiffItem[];
  old: unknown;
  new: unknown;
}

export type Step =
  | { kind: 'none' }
  | { kind: 'patch'; patch: ObjectPatch; reason: string; completes?: Cause }
  | { kind: 'fail'; handler: RegisteredHandler; key: string; cause: Cause; record: ProgressRecord; message: string }
  | RunStep
  | { kind: 'sleep'; until: Date };

/**
 * Whether `due` (decided on a newer state) is the very handler step `ran` was: the same handler key and
 * cause with the same progress record. Then nothing recorded an attempt of it meanwhile, and the outcome
 * of `ran` is still the one to record on the newer state.
 */
export function sameStep(due: Step, ran: Extract<Step, { kind: 'run' | 'fail' }>): boolean {
  if (due.kind !== 'run' && due.kind !== 'fail') return false;
  return due.key === ran.key && due.cause === ran.cause && deepEqual(due.record, ran.record);
}

export interface DecideInput {
  body: KubernetesObject;
  handlers: readonly RegisteredHandler[];
  now: Date;
  /** The object is seen for the first time by this operator process (kopf's `initial`): resume handlers are due. */
  initial: boolean;
  /** The finalizer and annotation keys this operator owns. */
  marks: Marks;
  /**
   * Daemons of this object that have not ended or been abandoned yet (daemons.ts): the finalizer
   * stays until they have, as kopf stops an object's daemons before it releases the object.
   */
  daemonsRunning?: boolean;
  /** The resource's sensitive fields: kept (and compared) in the essence as keyed digests only. */
  secrecy?: Secrecy;
}

/** The essence of `body` as the operator stores and compares it: sensitive values concealed. */
export function essenceOf(input: Pick<DecideInput, 'marks' | 'secrecy'>, body: KubernetesObject): Essence {
  const essence = buildEssence(body, input.marks);
  return input.secrecy ? conceal(essence, input.secrecy, String(body.metadata?.uid)) : essence;
}

/** The causes progress records and the last-handled essence are kept for (kopf's changing handlers). */
const CHANGING_CAUSES: ReadonlySet<Cause> = new Set<Cause>(['create', 'update', 'delete', 'resume', 'field']);

export function finalizersOf(body: KubernetesObject): string[] {
  const list = body.metadata?.finalizers;
  return Array.isArray(list) ? list : [];
}

export function resourceVersionOf(body: KubernetesObject | undefined): string | undefined {
  const rv = body?.metadata?.resourceVersion;
  return typeof rv === 'string' ? rv : undefined;
}

/** Finalizer list changes carry the resourceVersion: a concurrent change makes them fail (409) instead of being lost. */
function finalizerPatch(body: KubernetesObject, finalizers: string[]): ObjectPatch {
  return { metadata: { finalizers, resourceVersion: resourceVersionOf(body) } };
}

interface Candidate {
  handler: RegisteredHandler;
  key: string;
  diff: DiffItem[];
  old: unknown;
  new: unknown;
}

/** The cause for a live (not deleting) object and the handlers it selects. */
interface Changing {
  cause: Cause;
  candidates: Candidate[];
  essence: Essence;
}

function changingCause(input: DecideInput): Changing | undefined {
  const { body, handlers, initial, marks } = input;
  const essence = essenceOf(input, body);
  const old = lastHandledEssence(body, marks);
  const changes = diff(old, essence);
  const cause: Cause | undefined =
    old === undefined ? 'create' : changes.length > 0 ? 'update' : initial ? 'resume' : undefined;
  if (!cause) return undefined;
  const whole = (handler: RegisteredHandler): Candidate => ({
    handler,
    key: handlerKey(handler),
    diff: changes,
    old,
    new: essence,
  });
  const candidates: Candidate[] = [];
  for (const handler of handlers) {
    if (handler.cause === cause) candidates.push(whole(handler));
    // Resume handlers mix into an update seen on the first sight ("cuckoo-style" in kopf), never into a creation.
    else if (handler.cause === 'resume' && initial && cause === 'update') candidates.push(whole(handler));
    else if (handler.cause === 'field' && cause !== 'resume' && handler.field) {
      const path = parseField(handler.field);
      const fieldDiff = reduceDiff(changes, path);
      const before = getPath(old, path);
      const after = getPath(essence, path);
      if (fieldDiff.length > 0 && matchesChange(handler.options, before, after))
        candidates.push({ handler, key: handlerKey(handler), diff: fieldDiff, old: before, new: after });
    }
  }
  return { cause, candidates, essence };
}

/** Picks the next handler among the unfinished ones: awake first, fewest attempts first (kopf's `asap`). */
function next(input: DecideInput, cause: Cause, candidates: Candidate[]): Step | undefined {
  let earliest: Date | undefined;
  let best: { candidate: Candidate; record: ProgressRecord | undefined } | undefined;
  for (const candidate of candidates) {
    const record = currentProgress(readProgress(input.body, candidate.key, input.marks), cause);
    if (isFinished(record)) continue;
    const reason = exhausted(candidate.handler.options, record, input.now);
    if (record && reason)
      return { kind: 'fail', handler: candidate.handler, key: candidate.key, cause, record, message: reason };
    const delayed = record?.delayed ? new Date(record.delayed) : undefined;
    if (delayed && delayed > input.now) {
      if (!earliest || delayed < earliest) earliest = delayed;
      continue;
    }
    if (!best || (record?.retries ?? 0) < (best.record?.retries ?? 0)) best = { candidate, record };
  }
  if (best) return { kind: 'run', cause, record: best.record, ...best.candidate };
  if (earliest) return { kind: 'sleep', until: earliest };
  return undefined;
}

/**
 * Deletion: the matching delete handlers (and, at first sight, resume handlers with `deleted`), then
 * the finalizer goes (once the daemons have ended). Without our finalizer only optional delete
 * handlers (kopf's `optional=True`) and those resume handlers run, and only while something else
 * still holds the object back.
 */
function deleting(input: DecideInput, deleteHandlers: Candidate[]): Step {
  const finalizers = finalizersOf(input.body);
  const own = input.marks.finalizer;
  if (!finalizers.includes(own)) {
    // Resume handlers never ask for the finalizer, so they run without it too.
    const optional = deleteHandlers.filter(
      (candidate) => candidate.handler.options.optional === true || candidate.handler.cause === 'resume',
    );
    return next(input, 'delete', optional) ?? { kind: 'none' };
  }
  const step = next(input, 'delete', deleteHandlers);
  if (step) return step;
  if (input.daemonsRunning) return { kind: 'none' }; // the daemons' end requeues the object
  const patch = finalizerPatch(
    input.body,
    finalizers.filter((f) => f !== own),
  );
  return { kind: 'patch', patch, reason: 'delete handlers done: removing the finalizer', completes: 'delete' };
}

/**
 * kopf's `requires_finalizer`: a matching delete handler that is not optional, or a matching
 * daemon (it must be stopped before the object goes).
 */
function requiresFinalizer(matching: readonly RegisteredHandler[]): boolean {
  return matching.some((h) => (h.cause === 'delete' && h.options.optional !== true) || h.cause === 'daemon');
}

export function decide(input: DecideInput): Step {
  const { body } = input;
  const finalizer = input.marks.finalizer;
  // Handlers whose filters do not match this state of the object are not due (kopf's filtering).
  const handlers = input.handlers.filter((h) => matchesFilters(h.options, body));
  // A resume handler with `deleted` mixes into a deletion seen at first sight (kopf's registry yields
  // initial handlers for a deletion only when `deleted=True`).
  const deleteHandlers = handlers
    .filter((h) => h.cause === 'delete' || (input.initial && h.cause === 'resume' && h.options.deleted === true))
    .map((handler) => ({ handler, key: handlerKey(handler), diff: [], old: undefined, new: undefined }));
  if (body.metadata?.deletionTimestamp) return deleting(input, deleteHandlers);
  const finalizers = finalizersOf(body);
  const hasFinalizer = finalizers.includes(finalizer);
  const needed = requiresFinalizer(handlers);
  if (needed && !hasFinalizer) {
    return {
      kind: 'patch',
      patch: finalizerPatch(body, [...finalizers, finalizer]),
      reason: 'adding the finalizer for delete handlers or daemons',
    };
  }
  if (!needed && hasFinalizer) {
    return {
      kind: 'patch',
      patch: finalizerPatch(
        body,
        finalizers.filter((f) => f !== finalizer),
      ),
      reason: 'no delete handlers or daemons: removing the finalizer',
    };
  }
  // kopf's prematch: when no changing handler matches this state of the object (filters), the operator
  // is blind to it: no cause, no essence, no progress; nothing is written to an object nobody handles.
  if (!handlers.some((h) => CHANGING_CAUSES.has(h.cause))) return { kind: 'none' };
  const changing = changingCause({ ...input, handlers });
  if (!changing) return { kind: 'none' };
  const step = next(input, changing.cause, changing.candidates);
  if (step) return step;
  // Every handler of the cause finished: remember the essence and purge the progress, as kopf does.
  const annotations: Record<string, string | null> = {
    ...purgeProgress(body, input.marks),
    [input.marks.lastHandled]: encodeEssence(changing.essence),
  };
  const current = body.metadata?.annotations;
  const changes = Object.entries(annotations).some(([key, value]) => (current?.[key] ?? null) !== value);
  if (!changes) return { kind: 'none' }; // e.g. a resume without resume handlers: nothing to write
  return {
    kind: 'patch',
    patch: { metadata: { annotations } },
    reason: `${changing.cause} handled`,
    completes: changing.cause,
  };
}

/**
 * When an outcome's patch finishes the cause, the completing write (last-handled configuration,
 * progress purge) rides along in the same patch, as kopf writes one patch per cycle: `decide`
 * runs on the state the patch will produce. Not for finalizer removal, which carries a
 * resourceVersion precondition of its own.
 *
 * The essence stored is the one of the state the handler saw, not of the state its patch
 * produces, as kopf stores the body of the cycle before its patch: a handler's own edits to
 * spec, labels, annotations (or any other key of the essence) are a change, and the next decision
 * sees an update (and field handlers of those fields) for them. A handler that edits the object
 * on every update therefore runs again until its edit changes nothing (at the pace the runtime's
 * per-object limit on self-caused updates allows, see self-updates.ts).
 *
 * `seen` is the state the handler saw, when the patch is laid over a newer one (`input.body`, read
 * again after a conflict): the completion is judged on the newer state, the essence stored is still
 * the one the handler saw.
 */
export function withCompletion(
  input: DecideInput,
  patch: ObjectPatch,
  seen: KubernetesObject = input.body,
): { patch: ObjectPatch; completes: boolean; next?: string } {
  const projected = applyMergePatch(input.body, patch);
  if (!isKubernetesObject(projected)) return { patch, completes: false };
  const following = decide({ ...input, body: projected });
  if (following.kind === 'run' || following.kind === 'fail')
    return { patch, completes: false, next: following.handler.id };
  if (following.kind !== 'patch' || !following.completes || following.patch.metadata?.resourceVersion !== undefined) {
    return { patch, completes: false };
  }
  const metadata = following.patch.metadata ?? {};
  const essence = encodeEssence(essenceOf(input, seen));
  const completion = {
    ...following.patch,
    metadata: { ...metadata, annotations: { ...metadata.annotations, [input.marks.lastHandled]: essence } },
  };
  return { patch: combinePatches(patch, completion), completes: true };
}
