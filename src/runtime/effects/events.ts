/**
 * Warning Events about an object's handlers and failures, handed to the EventRecorder
 * (observe/event-recorder.ts), which aggregates repeats into one Event series and rate-limits
 * them per object as client-go's EventRecorder does: a handler failing in a loop (a
 * `TemporaryError` with `delay: 0`) bumps one Event's count instead of creating thousands.
 */
import type { KubernetesObject } from '../api/kube-types.js';
import type { ResourceEnv } from '../env.js';
import type { EventInput } from '../observe/event-correlator.js';
import type { Outcome } from '../reconcile/outcome.js';
import { retryText } from './log.js';

/** Whether an outcome deserves an Event: failures, except an attempt cut short by the shutdown. */
export function eventWorthy(outcome: Outcome): boolean {
  return (outcome.kind === 'temporary' && !outcome.interrupted) || outcome.kind === 'permanent';
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
  const next = outcome.kind === 'temporary' ? `, ${retry}` : '';
  const how = outcome.kind === 'permanent' ? 'permanently' : 'temporarily';
  warn(env, body, `${id}Failed`, `Handler ${id} failed ${how}: ${outcome.message}${next}`);
}
