/**
 * What timers and daemons (kopf's spawning handlers) need of their controller: the newest known
 * state of an object, and a write of a call's result that the store adopts. `recordSpawned`
 * carries a call's outcome out as the reconciler does for a changing handler's: first the patch
 * (its status into `status.<id>`), then the log line and, for a failure, the Event, so whatever
 * is logged has been written. A write that fails is logged: the next tick (or the next start of
 * the daemon) writes again; nothing else depends on it.
 */
import type { KubernetesObject } from './api/kube-types.js';
import type { RegisteredHandler } from './api/registry.js';
import { Conflict, readObject, writePatch } from './effects/api-write.js';
import { eventWorthy, outcomeEvent } from './effects/events.js';
import { logFailure, logOutcome, retryText } from './effects/log.js';
import type { ResourceEnv } from './env.js';
import { messageOf } from './error-message.js';
import { conflictDelay } from './error-policy.js';
import { resourceVersionOf } from './reconcile/decide.js';
import type { Outcome } from './reconcile/outcome.js';
import type { ObjectPatch } from './reconcile/patches.js';
import { conditionSettings, withConditions } from './reconcile/conditions.js';

export interface SpawnHost {
  /** The newest known state of the object, undefined once it is gone. */
  current(uid: string): KubernetesObject | undefined;
  /** The object as the API server answered a write. */
  adopt(uid: string, answer: KubernetesObject | undefined): void;
}

/**
 * Writes a spawned call's result on the object's newest state: a timer's, daemon's or child run's latest
 * result is the one to keep, so a write that meets a newer state (409 on its resourceVersion) waits
 * (`conflictDelay`, backing off per attempt) and is written again on the newest state known: the store's
 * when the watch brought a newer one meanwhile, else the object read once; each time through the term's
 * fence. Never given up for a conflict: only the object's deletion, the term's end or another failure
 * stops it. False when the object is gone.
 */
export async function writeOnNewest(
  env: ResourceEnv,
  host: SpawnHost,
  uid: string,
  body: KubernetesObject,
  patch: ObjectPatch,
): Promise<boolean> {
  let current: KubernetesObject | undefined = body;
  for (let attempt = 1; current; attempt++) {
    try {
      const settings = conditionSettings(env.resource, env.readiness);
      const answer = await writePatch(env, current, withConditions(current, patch, settings, env.now()));
      host.adopt(uid, answer);
      return answer !== undefined;
    } catch (error) {
      if (!(error instanceof Conflict) || env.signal.aborted) throw error;
      const conflicted = resourceVersionOf(current);
      await sleep(conflictDelay(attempt), env.signal);
      const known = host.current(uid);
      if (!known) return false;
      if (resourceVersionOf(known) !== conflicted) current = known;
      else {
        current = await readObject(env, current);
        host.adopt(uid, current);
      }
    }
  }
  return false;
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The log line and, for a failure, the Event of a spawned call's outcome, once its patch is written. */
export function reportSpawned(
  env: ResourceEnv,
  body: KubernetesObject,
  handler: RegisteredHandler,
  outcome: Outcome,
): void {
  // a timer runs again at its interval, whatever delay its error asked for
  const retry = retryText(outcome, handler.timer?.interval);
  logOutcome(env, body, handler.id, handler.cause, outcome, retry);
  if (eventWorthy(outcome, env.successEvents)) outcomeEvent(env, body, handler.id, outcome, retry);
}

export async function recordSpawned(
  env: ResourceEnv,
  host: SpawnHost,
  uid: string,
  handler: RegisteredHandler,
  result: { outcome: Outcome; patch: ObjectPatch },
): Promise<void> {
  const body = host.current(uid);
  if (!body) return; // gone: nothing to write to
  if (Object.keys(result.patch).length > 0) {
    try {
      if (!(await writeOnNewest(env, host, uid, body, result.patch))) return; // gone meanwhile
    } catch (error) {
      logFailure(env, body, uid, `writing the result of ${handler.cause} ${handler.id} failed: ${messageOf(error)}`);
      return;
    }
  }
  reportSpawned(env, body, handler, result.outcome);
}
