/**
 * One reconcile of one object (kube-rs `reconcile`): `decide` on the newest known state, carry
 * out the step it returns (a patch, a handler call and the patch recording its outcome), and
 * decide again on the state the write produced, until nothing is left to do; returns the
 * Action for the queue (done, or requeue when the next handler is delayed). Failures it does
 * not handle itself are thrown for the error policy.
 */
import type { RegisteredHandler } from '../api/registry.js';
import type { KubernetesObject } from '../api/kube-types.js';
import { Conflict, readObject, writePatch } from '../effects/api-write.js';
import { eventWorthy, postEvent } from '../effects/events.js';
import { failWithoutRunning, runHandler } from '../effects/handler-call.js';
import { logOutcome } from '../effects/log.js';
import type { ResourceEnv } from '../env.js';
import { Action } from '../queue.js';
import type { Store } from '../store.js';
import { decide, resourceVersionOf, withCompletion } from './decide.js';
import type { Outcome } from './outcome.js';
import type { ObjectPatch } from './patches.js';

/** Bounds one reconcile: a decide/write cycle that never settles must not hold a slot for ever. */
const MAX_STEPS = 1000;

interface Recorded {
  id: string;
  cause: string;
}

export interface ReconcileHooks {
  /** The object is gone (404 on a write or read-back): forget it everywhere. */
  gone(uid: string): void;
  /** The operator is stopping: take no further step. */
  stopping(): boolean;
}

export class Reconciler {
  constructor(
    private readonly env: ResourceEnv,
    private readonly handlers: readonly RegisteredHandler[],
    private readonly store: Store,
    private readonly hooks: ReconcileHooks,
  ) {}

  async reconcile(uid: string): Promise<Action> {
    for (let steps = 0; !this.hooks.stopping() && steps < MAX_STEPS; steps++) {
      const body = this.store.get(uid);
      if (!body) return Action.done();
      const now = this.env.now();
      const input = { body, handlers: this.handlers, now, initial: this.store.isInitial(uid) };
      const step = decide(input);
      if (step.kind === 'none') {
        this.store.settle(uid);
        return Action.done();
      }
      if (step.kind === 'sleep') return Action.requeueAfter(step.until.getTime() - now.getTime());
      if (step.kind === 'patch') {
        try {
          this.adopt(uid, await writePatch(this.env, body, step.patch));
        } catch (error) {
          if (!(error instanceof Conflict)) throw error;
          this.adopt(uid, await readObject(this.env, body)); // changed meanwhile: decide again on its state
          continue;
        }
        this.env.logger.debug(step.reason, { object: uid });
        if (step.completes) this.store.settle(uid);
        if (resourceVersionOf(this.store.get(uid)) === resourceVersionOf(body)) return Action.done(); // a no-op write
        continue;
      }
      const result = step.kind === 'fail' ? failWithoutRunning(step, now) : await runHandler(this.env, step, body);
      const { patch, completes } = withCompletion({ ...input, now: this.env.now() }, result.patch);
      await this.record(uid, body, { id: step.handler.id, cause: step.cause }, result.outcome, patch);
      if (completes) this.store.settle(uid);
    }
    return Action.done();
  }

  private adopt(uid: string, answer: KubernetesObject | undefined): void {
    if (answer) this.store.adopt(uid, answer);
    else this.hooks.gone(uid);
  }

  /** Writes the outcome's patch, then logs it and posts its Event: what is logged has been recorded. */
  private async record(uid: string, body: KubernetesObject, step: Recorded, outcome: Outcome, patch: ObjectPatch) {
    const { id, cause } = step;
    this.adopt(uid, await writePatch(this.env, body, patch));
    logOutcome(this.env, body, id, cause, outcome);
    if (eventWorthy(outcome)) await postEvent(this.env, body, id, outcome);
  }
}
