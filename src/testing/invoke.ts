/**
 * Handler unit tests without a cluster (kopf documents calling handlers directly; controller-runtime's
 * fake client): `invoke` runs a handler definition's callbacks on an object exactly as one reconcile
 * of the runtime would, and returns what the runtime would have written, as data. It is the
 * reconciler's own loop over an in-memory object: `decide` picks the step on the object as the
 * reconciler views it (records where the resource keeps them, `records.ts`), `runHandler` runs the
 * attempt (context, `retry`, `diff`, `old`/`new`, filters, `signal`, timeout, error classification,
 * limits), `withCompletion` adds the completing write, and the patch is applied as the API server
 * applies a merge patch; the outcome's log line and Event go through `logOutcome` and `outcomeEvent`.
 * Nothing of kopf's semantics is decided here: only which object state stands for the cause asked.
 */
import type { ChildEvent, Logger } from '../runtime/api/context.js';
import { accessKind, apiVersionOf } from '../runtime/api/access.js';
import { childContext, childHandlersFor } from '../runtime/children.js';
import type { HandlerDefinition, StatusPatch, Exact } from '../runtime/api/define.js';
import type { KubernetesObject } from '../runtime/api/kube-types.js';
import type { Client } from '../runtime/api/client-api.js';
import {
  defaultRegistry,
  readinessMode,
  sensitiveFields,
  type Cause,
  type RegisteredHandler,
  type Registry,
} from '../runtime/api/registry.js';
import { eventWorthy, outcomeEvent } from '../runtime/effects/events.js';
import { callSpawned, failWithoutRunning, runHandler, type Result } from '../runtime/effects/handler-call.js';
import { createLogger, logOutcome } from '../runtime/effects/log.js';
import type { ResourceEnv } from '../runtime/env.js';
import { DEFAULT_BACKOFF } from '../runtime/error-policy.js';
import { applyMergePatch, clone, deepEqual, isKubernetesObject } from '../runtime/json.js';
import { describe, KubeClient } from '../runtime/kube/client.js';
import type { EventInput } from '../runtime/observe/event-correlator.js';
import { decide, essenceOf, withCompletion, type DecideInput } from '../runtime/reconcile/decide.js';
import { conditionSettings, conditionsOf, withConditions } from '../runtime/reconcile/conditions.js';
import type { Condition } from '../runtime/api/conditions-api.js';
import { encodeEssence } from '../runtime/reconcile/essence.js';
import { matchesFilters } from '../runtime/reconcile/filter-match.js';
import { fakeClient, type FakeClient } from './fake-client.js';
import { resolveMarks, type Marks, type MarksOptions } from '../runtime/reconcile/marks.js';
import type { OutcomeKind } from '../runtime/reconcile/outcome.js';
import type { ObjectPatch } from '../runtime/reconcile/patches.js';
import { isRecordKey, placeRecords, recordsPlace, recordsView } from '../runtime/reconcile/records.js';
import type { Memo } from '../runtime/api/memo.js';
import { Memos } from '../runtime/memos.js';

/** The causes `invoke` can stand for: kopf's changing causes, a timer's tick, a daemon's run, and an owned object's news. */
export type InvokeCause = Extract<
  Cause,
  'create' | 'update' | 'resume' | 'delete' | 'field' | 'timer' | 'daemon' | 'child'
>;

/**
 * An owned object as `invoke(…, 'child', …)` takes it: any typed object (a `Deployment`), no index
 * signature needed; its `apiVersion` and `kind` pick the `onChild` handlers of that kind.
 */
export interface ChildObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; uid?: string };
}

export interface InvokeOptions<Res, C extends Client = FakeClient> {
  /** Where the handlers were registered (default: `defaultRegistry`, where generated definitions register). */
  registry?: Registry;
  /**
   * `update` and `field`: the object as the operator last handled it (its last-handled state). Not needed
   * when `object` already carries a last-handled record (an earlier `invoke`'s `object`).
   */
  old?: Res;
  /** The clock at the start (default: now). A handler waiting for its retry runs at its retry time: the clock jumps there. */
  now?: Date;
  /** The operator's marks (default `kopfgen.dev`), as `OperatorOptions.marks`. */
  marks?: MarksOptions;
  /**
   * Daemons: aborting it is the object's deletion (the daemon's `signal` aborts); the call returns when
   * the daemon's code ends. Timers and changing handlers: the operator's shutdown.
   */
  signal?: AbortSignal;
  /** Where the handlers' and the runtime's log lines go (default: kept in `logs`, nowhere else). */
  logger?: Logger;
  /**
   * The key sensitive fields are digested with in `diff`, `old` and `new` and the stored essence (as
   * `OperatorOptions.digestKey`; default: a fixed test key), when the resource has sensitive fields.
   */
  digestKey?: Uint8Array;
  /**
   * The handler's `ctx.client` (default: an empty `fakeClient()`): a `fakeClient` seeded with the
   * objects the handler reads, or any other `Client`.
   */
  client?: C;
  /**
   * `child`: the owned object whose news wakes the handlers (`ctx.child`, or, when `childEvent` is
   * `DELETED`, the object as it was: the handler gets `child` undefined and its name as `childName`).
   */
  child?: ChildObject;
  /** `child`: what happened to it (default `MODIFIED`). */
  childEvent?: ChildEvent;
  /**
   * The object's memo (`ctx.memo`, kopf's `memo`): the handlers get this very object, so the test reads
   * what they stored, and passes it to the next `invoke` to carry it on, as the runtime keeps an object's
   * memo from one handler to the next (default: an empty one per invoke). For a memo a startup hook fills,
   * give its shallow copy, `{ ...operatorMemo }`, as the runtime does.
   */
  memo?: Memo;
}

/** One handler attempt of an `invoke`, typed by the handler's status type `S`. */
export interface Attempted<S> {
  /** The handler id and the callback's cause (`field` for `onField`). */
  handler: string;
  cause: Cause;
  /** `success`, `temporary` (retried after `delay`), `permanent`, or `ignored` (the `errors: 'ignored'` mode). */
  kind: OutcomeKind;
  /** What is merged into `status.<id>`: the return value, or the thrown error's `status`. */
  status: StatusPatch<S> | undefined;
  /** Seconds until the retry (temporary only). */
  delay: number | undefined;
  /** The error's message, with the limit that ended it (`gave up after 3 attempt(s)`). */
  message: string | undefined;
  /** What the handler threw. */
  error: unknown;
  /** The attempt's `retry` (0 on the first attempt). */
  retry: number;
  /** The handler's own edits (its `patch` argument), as the runtime writes them: no status of its own, no records. */
  patch: ObjectPatch;
  /** Everything the runtime writes for this attempt: the handler's patch, `status.<id>`, its progress record, the completion. */
  written: ObjectPatch;
  /**
   * `status.conditions` as this attempt's write sets them (the runtime's Ready, Reconciling, Stalled and the
   * handler's own `ctx.conditions`), where the resource's status schema has them; undefined when the write
   * leaves them as they were.
   */
  conditions: Condition[] | undefined;
}

export interface Invoked<Res, S, C extends Client = FakeClient> extends Attempted<S> {
  /** Every attempt this reconcile made (several when more callbacks of the definition were due, e.g. field handlers). */
  attempts: Attempted<S>[];
  /** The object after the writes, as the API server would hold it (status merged, records placed). */
  object: Res;
  /** `status.conditions` of `object`: where the object stands after the reconcile (empty without any). */
  conditions: Condition[];
  /** The Warning Events the runtime posted (failures). */
  events: EventInput[];
  /** The log lines of the reconcile (the handler's `logger` included), without timestamps. */
  logs: string[];
  /** The client the handler had as `ctx.client` (`options.client`, or the fake made for the call): inspect what it wrote. */
  client: C;
}

/** The causes decide chooses among (kopf's changing handlers); the others are spawned or raw. */
const CHANGING: ReadonlySet<Cause> = new Set<Cause>(['create', 'update', 'delete', 'resume', 'field']);

/** The digest key of sensitive fields unless a test gives one: fixed, so digests are the same in every run. */
const TEST_DIGEST_KEY = new TextEncoder().encode('kopfgen/testing digest key, 32 bytes or more');

/** Why `invoke` ran nothing: thrown, as an expectation a test states is then wrong. */
export class NotDue extends Error {
  override readonly name = 'NotDue';
}

/** A client that refuses every request: `runHandler` needs none, and `invoke` must make none. */
function offlineClient(): KubeClient {
  return new KubeClient({
    server: new URL('https://kopfgen-testing.invalid'),
    tls: {},
    credentials: { get: () => Promise.reject(new Error('kopfgen/testing: invoke makes no request')) },
    namespace: 'default',
    source: 'kopfgen/testing',
    context: 'kopfgen/testing',
  });
}

/** The object an invoke starts from: named, with a uid and resourceVersion as a server sends them. */
function served(object: KubernetesObject, namespaced: boolean): KubernetesObject {
  const body = clone(object);
  const meta = { ...body.metadata };
  meta.name ??= 'test';
  if (namespaced) meta.namespace ??= 'default';
  meta.uid ??= '00000000-0000-4000-8000-000000000001';
  meta.resourceVersion ??= '1';
  meta.generation ??= 1;
  meta.creationTimestamp ??= new Date(0).toISOString();
  return { ...body, metadata: meta };
}

function withAnnotation(body: KubernetesObject, key: string, value: string | undefined): KubernetesObject {
  const annotations = { ...body.metadata?.annotations };
  if (value === undefined) delete annotations[key];
  else annotations[key] = value;
  return { ...body, metadata: { ...body.metadata, annotations } };
}

/**
 * The state of `body` that stands for `cause` to `decide`: create (no last-handled state), update and
 * field (the last-handled state of `old`), resume (handled as it is, first seen by this process),
 * delete (marked for deletion, the finalizer on). Records the object carries (an earlier invoke's)
 * are kept: a retry is the next attempt.
 */
function stateFor(
  cause: InvokeCause,
  body: KubernetesObject,
  old: KubernetesObject | undefined,
  keys: Pick<DecideInput, 'marks' | 'secrecy'>,
  at: Date,
) {
  const { marks } = keys;
  // The essence as the runtime stores it: sensitive fields concealed under the object's uid.
  const essence = (o: KubernetesObject) =>
    encodeEssence(essenceOf(keys, { ...o, metadata: { ...o.metadata, uid: body.metadata?.uid } }));
  const lastHandled = body.metadata?.annotations?.[marks.lastHandled];
  switch (cause) {
    case 'create':
      return withAnnotation(body, marks.lastHandled, undefined);
    case 'update':
    case 'field': {
      if (old) return withAnnotation(body, marks.lastHandled, essence(old));
      if (lastHandled === undefined)
        throw new NotDue(`invoke(${cause}) needs options.old: the object as the operator last handled it`);
      return body;
    }
    case 'resume':
      return lastHandled === undefined ? withAnnotation(body, marks.lastHandled, essence(body)) : body;
    case 'delete': {
      const finalizers = body.metadata?.finalizers ?? [];
      return {
        ...body,
        metadata: {
          ...body.metadata,
          deletionTimestamp: body.metadata?.deletionTimestamp ?? at.toISOString(),
          finalizers: finalizers.includes(marks.finalizer) ? finalizers : [...finalizers, marks.finalizer],
        },
      };
    }
    default:
      return body;
  }
}

/** A merge patch applied as the API server applies one: preconditions checked by the caller, a new resourceVersion. */
function applyWrite(body: KubernetesObject, patch: ObjectPatch): KubernetesObject {
  const { resourceVersion: _precondition, ...metadata } = patch.metadata ?? {};
  const applied = applyMergePatch(body, patch.metadata ? { ...patch, metadata } : patch);
  if (!isKubernetesObject(applied)) throw new Error('a patch turned the object into a non-object');
  const version = Number(body.metadata?.resourceVersion ?? '0');
  return { ...applied, metadata: { ...applied.metadata, resourceVersion: String(version + 1) } };
}

/** The handler's own edits out of the patch recording its attempt: without `status.<id>` and the records. */
function ownPatch(id: string, written: ObjectPatch, marks: Marks): ObjectPatch {
  const { metadata, status, ...rest } = written;
  const out: ObjectPatch = { ...rest };
  const annotations = Object.entries(metadata?.annotations ?? {}).filter(([key]) => !isRecordKey(key, marks));
  const { annotations: _records, ...others } = metadata ?? {};
  const meta: NonNullable<ObjectPatch['metadata']> =
    annotations.length > 0 ? { ...others, annotations: Object.fromEntries(annotations) } : others;
  if (Object.keys(meta).length > 0) out.metadata = meta;
  const ownStatus = Object.fromEntries(Object.entries(status ?? {}).filter(([key]) => key !== id));
  if (Object.keys(ownStatus).length > 0) out.status = ownStatus;
  return out;
}

interface Run {
  env: ResourceEnv;
  memos: Memos;
  marks: Marks;
  logs: string[];
  events: EventInput[];
}

function environment<Res, S, W, C extends Client>(
  definition: HandlerDefinition<Res, S, W>,
  registry: Registry,
  options: InvokeOptions<Res, C>,
  now: () => Date,
): Run {
  const marks = resolveMarks(options.marks);
  if (typeof marks === 'string') throw new Error(marks);
  const logs: string[] = [];
  const events: EventInput[] = [];
  const kept = createLogger({ level: 'debug', write: (line) => void logs.push(line.slice(line.indexOf(' ') + 1)) });
  const logger: Logger = options.logger
    ? {
        debug: (m, f) => (kept.debug(m, f), options.logger?.debug(m, f)),
        info: (m, f) => (kept.info(m, f), options.logger?.info(m, f)),
        warn: (m, f) => (kept.warn(m, f), options.logger?.warn(m, f)),
        error: (m, f) => (kept.error(m, f), options.logger?.error(m, f)),
      }
    : kept;
  const env: ResourceEnv = {
    client: offlineClient(),
    resource: definition.resource,
    logger,
    signal: options.signal ?? new AbortController().signal,
    now,
    marks,
    events: { record: (input) => void events.push(input) },
    backoff: DEFAULT_BACKOFF,
    readiness: readinessMode(registry.handlersFor(definition.resource)),
  };
  const memos = new Memos({});
  env.memos = memos;
  // The resource's sensitive fields (its descriptor's and every registration's), as the operator conceals them.
  const paths = sensitiveFields(definition.resource, registry.handlers);
  if (paths.length > 0) env.secrecy = { paths, key: options.digestKey ?? TEST_DIGEST_KEY };
  return { env, memos, marks, logs, events };
}

function attempted<S>(
  id: string,
  cause: Cause,
  retry: number,
  result: Pick<Result, 'outcome' | 'patch'>,
  written: ObjectPatch,
  marks: Marks,
): Attempted<S> {
  const { outcome } = result;
  return {
    handler: id,
    cause,
    kind: outcome.kind,
    status: outcome.status as StatusPatch<S> | undefined,
    delay: outcome.delay,
    message: outcome.message,
    error: outcome.error,
    retry,
    patch: ownPatch(id, result.patch, marks),
    written,
    conditions: Array.isArray(written.status?.conditions) ? conditionsOf({ status: written.status }) : undefined,
  };
}

/**
 * Runs the callbacks `definition` registered for `cause` on `object`, as one reconcile of the runtime
 * would (see the file's comment), and returns the outcome as data, typed by the handler's status type.
 * `create`, `update`, `resume`, `delete`, `field`: every callback of the definition due for the cause
 * runs once (one attempt each); a callback waiting for its retry (the object carries its record, e.g.
 * an earlier invoke's `object`) runs at its retry time, its `retry` counted on. `timer`: one tick.
 * `daemon`: one run, until its code ends (abort `options.signal` to stop it). `child`: the `onChild`
 * handlers of `options.child`'s kind, once each with `options.childEvent`. Throws `NotDue` when the
 * runtime would run none (filters, a finished handler, no callback for the cause).
 */
export async function invoke<Res, S, W, C extends Client = FakeClient>(
  definition: HandlerDefinition<Res, S, W>,
  cause: InvokeCause,
  object: Res,
  options: InvokeOptions<Res, C> = {},
): Promise<Invoked<Res, S, C>> {
  const registry = options.registry ?? defaultRegistry;
  const client = options.client ?? (fakeClient() as Client as C);
  // The callbacks as registered, given the test's client as `ctx.client`; nothing else of the context changes.
  const handlers = registry
    .handlersFor(definition.resource)
    .filter((h) => h.id === definition.id)
    .map((h): RegisteredHandler => ({
      ...h,
      fn: (context) => {
        const withClient = { ...context, client };
        return h.fn(withClient);
      },
    }));
  if (!isKubernetesObject(object)) throw new TypeError('invoke: the object must be a Kubernetes object');
  const start = options.now ?? new Date();
  let offset = start.getTime() - Date.now();
  const run = environment(definition, registry, options, () => new Date(Date.now() + offset));
  const { env, marks } = run;
  const settings = conditionSettings(env.resource, env.readiness);
  const old = options.old === undefined ? undefined : options.old;
  if (old !== undefined && !isKubernetesObject(old))
    throw new TypeError('invoke: options.old must be a Kubernetes object');
  let body = served(object, definition.resource.scope === 'Namespaced');
  if (options.memo) run.memos.place(String(body.metadata?.uid), options.memo);
  const attempts: Attempted<S>[] = [];
  const finish = (): Invoked<Res, S, C> => {
    const first = attempts[0];
    const conditions = conditionsOf(body);
    return { ...first, attempts, object: body as Res, conditions, events: run.events, logs: run.logs, client };
  };

  // A spawned call's result (timer, daemon, child) written like a timer's: its patch, then its log line and Event.
  const record = (handler: RegisteredHandler, result: Awaited<ReturnType<typeof callSpawned>>) => {
    const written = withConditions(body, result.patch, settings, env.now());
    body = applyWrite(body, placeRecords(written, body, marks, recordsPlace(env.resource)));
    if (!result.cancelled) {
      logOutcome(env, body, handler.id, cause, result.outcome);
      if (eventWorthy(result.outcome, env.successEvents)) outcomeEvent(env, body, handler.id, result.outcome);
    }
    attempts.push(attempted(handler.id, cause, 0, result, written, marks));
  };

  if (cause === 'child') {
    // The runtime's child run (children.ts): the handlers of the owned kind whose filters match the owner,
    // none for an owner marked for deletion, each called as a spawned handler, its result written like a timer's.
    const child = options.child;
    if (child === undefined) throw new TypeError('invoke(child) needs options.child: the owned object');
    const event = options.childEvent ?? 'MODIFIED';
    const kind = handlers.find(
      (h) => h.child && apiVersionOf(accessKind(h.child)) === child.apiVersion && h.child.kind === child.kind,
    )?.child;
    if (!kind) throw new NotDue(`${definition.id} has no child handler for ${child.apiVersion} ${child.kind}`);
    if (body.metadata?.deletionTimestamp) throw new NotDue(`the owner is marked for deletion: no child handler runs`);
    const due = childHandlersFor(handlers, describe(kind), body);
    if (due.length === 0) throw new NotDue(`${definition.id}'s child handler filters do not match the object`);
    const news = {
      object: event === 'DELETED' || !isKubernetesObject(child) ? undefined : clone(child),
      event,
      name: child.metadata?.name ?? '',
      namespace: child.metadata?.namespace,
    };
    for (const handler of due) {
      record(handler, await callSpawned(env, handler, body, new AbortController().signal, childContext(news)));
    }
    return finish();
  }

  if (cause === 'timer' || cause === 'daemon') {
    const handler = handlers.find((h) => h.cause === cause);
    if (!handler) throw new NotDue(`${definition.id} has no ${cause} registered in this registry`);
    if (!matchesFilters(handler.options, body))
      throw new NotDue(`${definition.id}'s ${cause} filters do not match the object`);
    const stop = cause === 'daemon' && options.signal ? options.signal : new AbortController().signal;
    const result = await callSpawned(
      cause === 'daemon' ? { ...env, signal: new AbortController().signal } : env,
      handler,
      body,
      stop,
    );
    record(handler, result);
    return finish();
  }

  const place = recordsPlace(env.resource);
  body = stateFor(cause, body, old, env, start);
  const ran = new Set<string>();
  const changing = handlers.filter((h) => CHANGING.has(h.cause));
  for (let steps = 0; steps < 100; steps++) {
    const view = recordsView(body, marks, place);
    const input: DecideInput = {
      body: view,
      handlers: changing,
      now: env.now(),
      initial: cause === 'resume',
      marks,
      secrecy: env.secrecy,
    };
    const step = decide(input);
    if (step.kind === 'none') break;
    if (step.kind === 'sleep') {
      if (attempts.length > 0) break;
      // The retry a test asks for is the next attempt, whenever it is due: the clock moves, nothing waits.
      offset += step.until.getTime() - env.now().getTime();
      continue;
    }
    if (step.kind === 'patch') {
      const patch = step.completes
        ? withConditions(view, step.patch, settings, env.now(), {
            cause: step.completes,
            handlers: changing,
            marks,
            completes: true,
            seen: view,
          })
        : step.patch;
      body = applyWrite(body, placeRecords(patch, body, marks, place));
      if (step.completes) break;
      continue;
    }
    if (ran.has(step.key)) break;
    ran.add(step.key);
    // A field handler runs within an update (kopf's cause is the update; the callback is the field's).
    const fits = step.cause === cause || (step.handler.cause === 'field' && (cause === 'field' || cause === 'update'));
    if (!fits) throw new NotDue(`the object's state is a ${step.cause}, not a ${cause}, for handler ${definition.id}`);
    let result: Result;
    if (step.kind === 'fail') result = failWithoutRunning(step, input.now, marks);
    else {
      const r = await runHandler(env, step, body, undefined, view);
      if (r.ended) await r.ended;
      result = r;
    }
    const completion = withCompletion({ ...input, now: env.now() }, result.patch, view);
    // Conditions and observedGeneration in the outcome's write, as the reconciler lays them (conditions.ts).
    const written = withConditions(view, completion.patch, settings, env.now(), {
      cause: step.cause,
      handlers: changing,
      marks,
      outcome: result.patch,
      current: step.handler.id,
      next: completion.next,
      completes: completion.completes,
      seen: view,
    });
    body = applyWrite(body, placeRecords(written, body, marks, place));
    logOutcome(env, view, step.handler.id, step.cause, result.outcome);
    if (eventWorthy(result.outcome, env.successEvents)) outcomeEvent(env, view, step.handler.id, result.outcome);
    attempts.push(attempted(step.handler.id, step.cause, step.record?.retries ?? 0, result, written, marks));
  }
  if (attempts.length === 0) {
    const causes = changing.map((h) => h.cause).join(', ') || 'none';
    throw new NotDue(
      `no callback of handler ${definition.id} is due for ${cause} on this object (registered: ${causes}; ` +
        `its filters may not match, or the object records it as done)`,
    );
  }
  return finish();
}

/** What a test expects of an attempt: any of its fields, `status` checked exactly against the handler's status type. */
export interface Expected<S> {
  kind?: OutcomeKind;
  status?: StatusPatch<S> | undefined;
  delay?: number | undefined;
  message?: string | RegExp;
  retry?: number;
  patch?: ObjectPatch;
}

/**
 * Asserts that an attempt came to `expected` (each field given compared deeply; `message` may be a
 * RegExp). Typed by the handler's status type: a status key the handler does not have, or a value of the
 * wrong type, is a compile error, also where the expectation is built from a variable.
 */
export function expectOutcome<S, E extends Expected<S>>(
  actual: Attempted<S>,
  expected: E & Exact<E, Expected<S>>,
): void {
  const problems: string[] = [];
  for (const [key, want] of Object.entries(expected)) {
    const got: unknown = Reflect.get(actual, key);
    if (key === 'message' && want instanceof RegExp) {
      if (typeof got !== 'string' || !want.test(got))
        problems.push(`message ${JSON.stringify(got)} does not match ${String(want)}`);
    } else if (!deepEqual(got, want)) problems.push(`${key}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
  if (problems.length > 0)
    throw new Error(`handler ${actual.handler} (${actual.cause}, retry ${actual.retry}): ${problems.join('; ')}`);
}
