/**
 * Warning Events about an object's handlers and failures, handed to the EventRecorder
 * (observe/event-recorder.ts), which aggregates repeats into one Event series and rate-limits
 * them per object as client-go's EventRecorder does: a handler failing in a loop (a
 * `TemporaryError` with `delay: 0`) bumps one Event's count instead of creating thousands.
 */
import type { EventObject, PostedEvent } from '../api/context.js';
import type { KubernetesObject } from '../api/kube-types.js';
import type { ResourceEnv } from '../env.js';
import type { EventInput } from '../observe/event-correlator.js';
import type { Outcome } from '../reconcile/outcome.js';
import { retryText } from './log.js';

/**
 * Whether an outcome deserves an Event: failures, except an attempt cut short by the shutdown; and, with
 * `successes` (the operator's `successEvents`), successes too, as kopf posts its "Handler … succeeded"
 * log line as a Normal Event (kopf's `settings.posting`, on by default there; off by default here, since
 * every success of a busy operator would be an Event write).
 */
export function eventWorthy(outcome: Outcome, successes = false): boolean {
  if (outcome.kind === 'success') return successes;
  return (outcome.kind === 'temporary' && !outcome.interrupted && !outcome.pending) || outcome.kind === 'permanent';
}

/** The involvedObject of an Event about `body`; the resource fills what a partial body lacks. */
function reference(env: ResourceEnv, body: KubernetesObject): EventInput['object'] {
  const meta = body.metadata ?? {};
  const { group, version, kind } = env.resource;
  return {
    apiVersion: body.apiVersion ?? (group ? `${group}/${version}` : version),
    kind: body.kind ?? kind,
    name: String(meta.name),
    namespace: meta.namespace,
    uid: String(meta.uid),
    resourceVersion: meta.resourceVersion,
  };
}

/** A Warning Event about `body`: written in the background, aggregated, never throws. */
export function warn(env: ResourceEnv, body: KubernetesObject, reason: string, message: string): void {
  env.events.record({ object: reference(env, body), type: 'Warning', reason, message });
}

/**
 * The Event for a handler's failed outcome: the same message for the same failure, so repeats aggregate.
 * `retry`: what follows a temporary failure (log.ts `retryText`).
 */
export function outcomeEvent(
  env: ResourceEnv,
  body: KubernetesObject,
  id: string,
  outcome: Outcome,
  retry = retryText(outcome),
): void {
  if (outcome.kind === 'success') {
    env.events.record({
      object: reference(env, body),
      type: 'Normal',
      reason: `${id}Succeeded`,
      message: `Handler ${id} succeeded`,
    });
    return;
  }
  const next = outcome.kind === 'temporary' ? `, ${retry}` : '';
  const how = outcome.kind === 'permanent' ? 'permanently' : 'temporarily';
  warn(env, body, `${id}Failed`, `Handler ${id} failed ${how}: ${outcome.message}${next}`);
}

/**
 * A handler's own Event (`ctx.event`, `ctx.info`, `ctx.warn`, `ctx.exception`; kopf's posting.py) about
 * each object given. An object without apiVersion or kind (kubernetes-types leaves them optional) is the
 * handled resource's kind when its uid is the handled object's; any other such object cannot be
 * referenced, and is logged instead of posted (an Event must name its object's kind).
 */
export function postEvent(
  env: ResourceEnv,
  handled: KubernetesObject,
  objects: EventObject | readonly EventObject[],
  event: PostedEvent,
): void {
  const list: readonly EventObject[] = Array.isArray(objects) ? objects : [objects];
  for (const object of list) {
    const meta = object.metadata ?? {};
    const own = meta.uid !== undefined && meta.uid === handled.metadata?.uid;
    if ((object.apiVersion === undefined || object.kind === undefined) && !own) {
      env.logger.warn(
        `an Event (${event.reason}) about ${String(meta.name)} not posted: the object has no apiVersion or kind`,
      );
      continue;
    }
    const body: KubernetesObject = own
      ? { ...handled, ...object, metadata: { ...handled.metadata, ...meta } }
      : { ...object, metadata: { ...meta } };
    env.events.record({
      object: reference(env, body),
      type: event.type,
      reason: event.reason,
      message: event.message ?? '',
    });
  }
}

/** kopf's `kopf.exception`: the reason defaults to the error's name; the message is followed by the error's. */
export function exceptionEvent(error: unknown, reason?: string, message?: string): PostedEvent {
  const name = error instanceof Error ? error.name : 'Error';
  const text = error instanceof Error ? error.message : String(error);
  return { type: 'Warning', reason: reason || name, message: message ? `${message} ${text}` : text };
}
