/**
 * `status.conditions` and `status.observedGeneration` from the handlers' outcomes, pure, so the
 * rest of the cluster can tell whether an object is done: kstatus
 * (sigs.k8s.io/cli-utils/pkg/kstatus/status) reads an object as InProgress while
 * `observedGeneration` lags `metadata.generation` or `Reconciling` is True, as Failed when `Stalled`
 * is True, and as Current otherwise; `kubectl wait --for=condition=Ready`, Helm's and Flux's waits
 * and Argo CD's health read the same fields. The rules, from the progress records of the running
 * cause on the state a write produces:
 *
 * | records of the cause                           | Reconciling | Stalled | Ready (auto) | observedGeneration |
 * |------------------------------------------------|-------------|---------|--------------|--------------------|
 * | a handler failed for good (PermanentError, …)  | removed     | True    | False        | the generation     |
 * | a handler retries or is still due              | True        | removed | Unknown      | unchanged          |
 * | every due handler succeeded: the cause is done | removed     | removed | True         | the generation     |
 *
 * `Stalled` comes with the generation observed, as kstatus checks the generation first and would
 * read a stalled object whose generation it has not observed as InProgress. The conditions follow
 * metav1.Condition and apimachinery's `meta.SetStatusCondition`: `lastTransitionTime` changes only
 * when a condition's status does; reason is CamelCase-ish (`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`,
 * at most 1024 characters), message at most 32768. Abnormal-true conditions (Reconciling, Stalled)
 * are removed rather than set False, as Flux's controllers do, so a finished object carries only
 * `Ready`. With `readiness: 'manual'` the runtime leaves `Ready` to the handlers (`ctx.conditions`).
 */
import type { Condition, ConditionStatus } from '../api/conditions-api.js';
import type { Cause, RegisteredHandler } from '../api/registry.js';
import type { KubernetesObject } from '../api/kube-types.js';
import type { ResourceInfo } from '../api/resource.js';
import { applyMergePatch, deepEqual, isKubernetesObject, isPlainObject } from '../json.js';
import type { Marks } from './marks.js';
import type { ObjectPatch } from './patches.js';
import { currentProgress, handlerKey, readProgress, type ProgressRecord } from './progress.js';

export type { Condition } from '../api/conditions-api.js';

/** A condition as a handler (or the rules) sets it: the runtime fills in the transition time. */
export interface ConditionUpdate {
  type: string;
  status: ConditionStatus;
  reason: string;
  message?: string;
}

/** What a resource's status schema holds (descriptor) and who owns `Ready` (registrations). */
export interface ConditionSettings {
  conditions: boolean;
  observedGeneration: boolean;
  readiness: 'auto' | 'manual';
}

export const READY = 'Ready';
export const RECONCILING = 'Reconciling';
export const STALLED = 'Stalled';

/** Where the object stands after a write, by the rules above; the generation is the one handled. */
export type Readiness =
  | { kind: 'reconciling'; reason: string; message: string }
  | { kind: 'stalled'; reason: string; message: string; generation: number | undefined }
  | { kind: 'ready'; reason: string; message: string; generation: number | undefined };

/** One handler of the running cause and its record on the state the write produces. */
export interface HandlerProgress {
  id: string;
  record: ProgressRecord | undefined;
}

export interface ReadinessInput {
  cause: Cause;
  /** The handlers due for this cause, in registration order, with their records (undefined: not run yet). */
  handlers: readonly HandlerProgress[];
  /** The handler whose outcome this write records, if any: its retry is the one to report. */
  current?: string;
  /** The write completes the cause (every handler finished). */
  completes: boolean;
  /** `metadata.generation` of the state the handlers saw. */
  generation: number | undefined;
}

const REASON_LIMIT = 1024;
const MESSAGE_LIMIT = 32768;

function pascal(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** `<Cause>:<handler id>` within metav1.Condition's reason pattern: other characters become `_`. */
export function handlerReason(cause: Cause, id: string): string {
  const reason = `${pascal(cause)}:${id.replace(/[^A-Za-z0-9_,:]/g, '_')}`.slice(0, REASON_LIMIT);
  return /[A-Za-z0-9_]$/.test(reason) ? reason : `${reason.slice(0, REASON_LIMIT - 1)}_`;
}

function truncated(message: string): string {
  return message.length <= MESSAGE_LIMIT ? message : `${message.slice(0, MESSAGE_LIMIT - 1)}…`;
}

function failed(record: ProgressRecord | undefined): boolean {
  return record?.failure === true && record.done !== true;
}

function finished(record: ProgressRecord | undefined): boolean {
  return record !== undefined && (record.success === true || record.failure === true);
}

/** The rules' row for the running cause (see the table above); undefined for a deletion (kstatus: Terminating). */
export function readinessOf(input: ReadinessInput): Readiness | undefined {
  const { cause, handlers, generation } = input;
  if (cause === 'delete') return undefined;
  const failure = handlers.find((h) => failed(h.record));
  if (failure) {
    const message = failure.record?.message ?? 'failed';
    return {
      kind: 'stalled',
      reason: handlerReason(cause, failure.id),
      message: truncated(`handler ${failure.id}: ${message}`),
      generation,
    };
  }
  if (!input.completes) {
    const retrying = [
      ...handlers.filter((h) => h.id === input.current),
      ...handlers.filter((h) => h.id !== input.current),
    ].find((h) => !finished(h.record) && h.record?.delayed !== undefined);
    if (retrying)
      return {
        kind: 'reconciling',
        reason: handlerReason(cause, retrying.id),
        message: truncated(retrying.record?.message ?? `handler ${retrying.id} retries`),
      };
    const due = handlers.filter((h) => !finished(h.record)).map((h) => h.id);
    const next = due[0];
    if (next !== undefined)
      return {
        kind: 'reconciling',
        reason: handlerReason(cause, next),
        message: truncated(`waiting for handler${due.length > 1 ? 's' : ''} ${due.join(', ')}`),
      };
  }
  return {
    kind: 'ready',
    reason: `${pascal(cause)}Handled`,
    message: `every handler of the ${cause} succeeded`,
    generation,
  };
}

/** `status.conditions` of `body` as metav1.Condition entries; anything else in the list is dropped. */
export function conditionsOf(body: KubernetesObject): Condition[] {
  const status = body.status;
  const list = isPlainObject(status) ? status.conditions : undefined;
  if (!Array.isArray(list)) return [];
  return list.filter(isCondition);
}

function isCondition(value: unknown): value is Condition {
  return (
    isPlainObject(value) &&
    typeof value.type === 'string' &&
    (value.status === 'True' || value.status === 'False' || value.status === 'Unknown')
  );
}

/**
 * `list` with `update` set, as apimachinery's `meta.SetStatusCondition`: a new type is appended with
 * `now` as its transition time; an existing one keeps its transition time unless its status changes,
 * its reason, message and observedGeneration are replaced.
 */
export function setCondition(
  list: readonly Condition[],
  update: ConditionUpdate,
  now: Date,
  observedGeneration?: number,
): Condition[] {
  const existing = list.find((c) => c.type === update.type);
  const lastTransitionTime =
    existing && existing.status === update.status && typeof existing.lastTransitionTime === 'string'
      ? existing.lastTransitionTime
      : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const next: Condition = {
    type: update.type,
    status: update.status,
    reason: update.reason,
    message: truncated(update.message ?? ''),
    lastTransitionTime,
  };
  if (observedGeneration !== undefined) next.observedGeneration = observedGeneration;
  return existing ? list.map((c) => (c === existing ? next : c)) : [...list, next];
}

/** `list` without the condition of `type` (meta.RemoveStatusCondition). */
export function removeCondition(list: readonly Condition[], type: string): Condition[] {
  return list.filter((c) => c.type !== type);
}

/** The automatic conditions a readiness row sets, in the order they are applied. */
function automatic(readiness: Readiness, settings: ConditionSettings): (ConditionUpdate | { remove: string })[] {
  const ready = (status: ConditionStatus): ConditionUpdate[] =>
    settings.readiness === 'auto'
      ? [{ type: READY, status, reason: readiness.reason, message: readiness.message }]
      : [];
  switch (readiness.kind) {
    case 'reconciling':
      return [
        { type: RECONCILING, status: 'True', reason: readiness.reason, message: readiness.message },
        { remove: STALLED },
        ...ready('Unknown'),
      ];
    case 'stalled':
      return [
        { type: STALLED, status: 'True', reason: readiness.reason, message: readiness.message },
        { remove: RECONCILING },
        ...ready('False'),
      ];
    case 'ready':
      return [{ remove: RECONCILING }, { remove: STALLED }, ...ready('True')];
  }
}

/** The types the runtime keeps to itself under the settings: a handler's update of them is not applied. */
function ownedTypes(settings: ConditionSettings): ReadonlySet<string> {
  return new Set(settings.readiness === 'auto' ? [READY, RECONCILING, STALLED] : [RECONCILING, STALLED]);
}

/**
 * The status fields (`conditions`, `observedGeneration`) a write carries so that the object reads as
 * `readiness` says, with the handlers' own `updates` merged in: only the fields that change, or
 * undefined when neither does (nothing to add to the write). The whole list is written, as a merge
 * patch replaces lists whole; the write carries the resourceVersion decided on, so no concurrent
 * change of the list is lost.
 */
export function conditionsPatch(
  body: KubernetesObject,
  readiness: Readiness | undefined,
  updates: readonly ConditionUpdate[],
  settings: ConditionSettings,
  now: Date,
): { conditions?: Condition[]; observedGeneration?: number } | undefined {
  const patch: { conditions?: Condition[]; observedGeneration?: number } = {};
  const generation = readiness && readiness.kind !== 'reconciling' ? readiness.generation : undefined;
  if (settings.conditions) {
    const current = conditionsOf(body);
    const owned = ownedTypes(settings);
    let list = current;
    for (const update of updates)
      if (!owned.has(update.type)) list = setCondition(list, update, now, generationOf(body));
    const conditionGeneration = readiness?.kind === 'reconciling' ? generationOf(body) : generation;
    for (const step of readiness ? automatic(readiness, settings) : []) {
      list = 'remove' in step ? removeCondition(list, step.remove) : setCondition(list, step, now, conditionGeneration);
    }
    if (!deepEqual(list, current)) patch.conditions = list;
  }
  if (settings.observedGeneration && generation !== undefined) {
    const status = body.status;
    const observed = isPlainObject(status) ? status.observedGeneration : undefined;
    if (observed !== generation) patch.observedGeneration = generation;
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}

/** The entries a handler set through `ctx.conditions` (its patch's `status.conditions`), well-formed ones only. */
export function conditionUpdates(list: unknown): ConditionUpdate[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((item: unknown) => {
    if (!isPlainObject(item) || typeof item.type !== 'string' || typeof item.reason !== 'string') return [];
    const { type, status, reason, message } = item;
    if (status !== 'True' && status !== 'False' && status !== 'Unknown') return [];
    return [{ type, status, reason, message: typeof message === 'string' ? message : '' }];
  });
}

/** `metadata.generation`, when the server set one (custom resources always have it). */
export function generationOf(body: KubernetesObject): number | undefined {
  const generation = body.metadata?.generation;
  return typeof generation === 'number' ? generation : undefined;
}

/** The settings of a resource: what its descriptor says its status schema holds, who owns `Ready`. */
export function conditionSettings(
  resource: Pick<ResourceInfo, 'statusConditions' | 'statusObservedGeneration'>,
  readiness: 'auto' | 'manual' = 'auto',
): ConditionSettings {
  return {
    conditions: resource.statusConditions === true,
    observedGeneration: resource.statusObservedGeneration === true,
    readiness,
  };
}

/** A write of a changing cause: what the rules read to place the object (see `readinessOf`). */
export interface CauseWrite {
  cause: Cause;
  handlers: readonly RegisteredHandler[];
  marks: Marks;
  /** The outcome's own patch, before the completing write: its records show where each handler stands. */
  outcome?: ObjectPatch;
  /** The handler whose outcome is written. */
  current?: string;
  /** The handler `decide` has due next on the state the write produces, if any. */
  next?: string;
  completes: boolean;
  /** The state the handlers saw: its generation is the one handled. */
  seen: KubernetesObject;
}

/** The causes whose handlers keep progress records (decide.ts's changing causes). */
const PROGRESS_CAUSES: ReadonlySet<Cause> = new Set<Cause>(['create', 'update', 'delete', 'resume', 'field']);

/** The handlers of `write`'s cause with their records on `body` after the outcome, and the one due next. */
function causeProgress(body: KubernetesObject, write: CauseWrite): HandlerProgress[] {
  const projected = write.outcome ? applyMergePatch(body, write.outcome) : body;
  const state = isKubernetesObject(projected) ? projected : body;
  const out: HandlerProgress[] = [];
  const seen = new Set<string>();
  for (const handler of write.handlers) {
    // One record per key (a create and a delete handler of one id share theirs); spawned handlers keep none.
    const key = handlerKey(handler);
    if (seen.has(key) || !PROGRESS_CAUSES.has(handler.cause)) continue;
    seen.add(key);
    const record = currentProgress(readProgress(state, key, write.marks), write.cause);
    if (record || handler.id === write.next) out.push({ id: handler.id, record });
  }
  return out;
}

/**
 * `patch` (a write decided on `body`, its records as annotations) with the conditions and the
 * observed generation the rules give, in the same write: the entries a handler set
 * (`patch.status.conditions`) merged in, the whole list written when it changes. Without `write`
 * (a timer's, daemon's or child handler's result) only the handler's entries are merged. The
 * patch as it is when the resource's status schema has neither field.
 */
export function withConditions(
  body: KubernetesObject,
  patch: ObjectPatch,
  settings: ConditionSettings,
  now: Date,
  write?: CauseWrite,
): ObjectPatch {
  if (!settings.conditions && !settings.observedGeneration) return patch;
  const { conditions: set, ...status } = patch.status ?? {};
  const updates = conditionUpdates(set);
  const readiness = write
    ? readinessOf({
        cause: write.cause,
        handlers: causeProgress(body, write),
        current: write.current,
        completes: write.completes,
        generation: generationOf(write.seen),
      })
    : undefined;
  const fields = conditionsPatch(body, readiness, updates, settings, now);
  if (!fields && set === undefined) return patch;
  const next = settings.conditions ? { ...status, ...fields } : { ...patch.status, ...fields };
  const { status: _dropped, ...rest } = patch;
  return Object.keys(next).length > 0 ? { ...rest, status: next } : rest;
}
