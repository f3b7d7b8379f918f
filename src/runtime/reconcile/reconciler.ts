/**
 * One reconcile of one object (kube-rs `reconcile`): `decide` on the newest known state, carry
 * out the step it returns (a patch, a handler call and the patch recording its outcome), and
 * decide again on the state the write produced, until nothing is left to do; returns the
 * Action for the queue (done, or requeue when the next handler is delayed). Failures it does
 * not handle itself are thrown for the error policy; one during a handler's attempt is thrown
 * as HandlerStepFailed naming the handler, so the policy counts it as an attempt of it. The
 * records the policy could not have written are held here (held.ts) and laid over the object
 * before each decision. Where the records are kept (annotations or status, records.ts) is
 * translated here too: decide reads them through `recordsView`, each write places them.
 */
import type { RegisteredHandler } from '../api/registry.js';
import type { KubernetesObject } from '../api/kube-types.js';
import { Conflict, readObject, writePatch } from '../effects/api-write.js';
import { eventWorthy, outcomeEvent } from '../effects/events.js';
import { failWithoutRunning, runHandler } from '../effects/handler-call.js';
import { logOutcome } from '../effects/log.js';
import type { ResourceEnv } from '../env.js';
import { Action } from '../queue.js';
import type { Store } from '../store.js';
import { decide, resourceVersionOf, withCompletion, type Step } from './decide.js';
import { HandlerStepFailed } from './failures.js';
import { HeldRecords } from './held.js';
import type { Outcome } from './outcome.js';
import type { ObjectPatch } from './patches.js';
import { encodeProgress, progressAnnotation, type ProgressRecord } from './progress.js';
import { isRecordKey, placeRecords, prunedRecords, recordsPlace, recordsView, type RecordsPlace } from './records.js';

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
  /** Daemons of the object still running (daemons.ts): its finalizer stays. */
  daemonsRunning?(uid: string): boolean;
  /** Awaits a handler's run; one that runs long gives its slot to other objects meanwhile (queue.ts Slots). */
  long?<T>(run: Promise<T>): Promise<T>;
}

type HandlerStep = Extract<Step, { kind: 'run' | 'fail' }>;

export class Reconciler {
  private readonly held = new HeldRecords();
  /** Where records are written; falls back to annotations for good should the server prune them from status. */
  private place: RecordsPlace;

  constructor(
    private readonly env: ResourceEnv,
    private readonly handlers: readonly RegisteredHandler[],
    private readonly store: Store,
    private readonly hooks: ReconcileHooks,
  ) {
    this.place = recordsPlace(env.resource);
  }

  async reconcile(uid: string): Promise<Action> {
    for (let steps = 0; !this.hooks.stopping() && steps < MAX_STEPS; steps++) {
      const known = this.store.get(uid);
      if (!known) return Action.done();
      const body = this.held.overlay(uid, recordsView(known, this.env.marks, this.place));
      const now = this.env.now();
      const input = {
        body,
        handlers: this.handlers,
        now,
        initial: this.store.isInitial(uid),
        marks: this.env.marks,
        daemonsRunning: this.hooks.daemonsRunning?.(uid),
      };
      const step = decide(input);
      if (step.kind === 'none') {
        this.store.settle(uid);
        return Action.done();
      }
      if (step.kind === 'sleep') return Action.requeueAfter(step.until.getTime() - now.getTime());
      if (step.kind === 'patch') {
        try {
          this.adopt(uid, await this.write(known, body, step.patch));
          this.held.written(uid, step.patch);
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
      if (await this.handle(uid, known, body, step, input)) this.store.settle(uid);
    }
    return Action.done();
  }

  /** Runs (or fails) one handler and records its outcome; true when the write completed the cause. */
  private async handle(
    uid: string,
    known: KubernetesObject,
    body: KubernetesObject,
    step: HandlerStep,
    input: Parameters<typeof decide>[0],
  ): Promise<boolean> {
    let outcome: Outcome | undefined;
    try {
      // The handler sees the object as the server holds it (`known`), not the records laid over it for decide.
      const result =
        step.kind === 'fail'
          ? failWithoutRunning(step, input.now, this.env.marks)
          : await this.whileRunning(runHandler(this.env, step, known));
      outcome = result.outcome;
      const { patch, completes } = withCompletion({ ...input, now: this.env.now() }, result.patch);
      await this.record(uid, known, body, { id: step.handler.id, cause: step.cause }, result.outcome, patch);
      return completes;
    } catch (error) {
      const { handler, key, cause, record } = step;
      throw new HandlerStepFailed(
        { id: handler.id, key, cause, options: handler.options, record, outcome: outcome?.kind },
        error,
      );
    }
  }

  private whileRunning<T>(run: Promise<T>): Promise<T> {
    return this.hooks.long ? this.hooks.long(run) : run;
  }

  /** Keeps a handler's record the error policy advanced until a write carries it (see held.ts). */
  hold(uid: string, key: string, record: ProgressRecord): void {
    if (this.store.get(uid)) this.held.hold(uid, progressAnnotation(key, this.env.marks), encodeProgress(record));
  }

  /** Whether records of `uid` wait to be written: its failure is not over. */
  holding(uid: string): boolean {
    return this.held.holding(uid);
  }

  forget(uid: string): void {
    this.held.forget(uid);
  }

  private adopt(uid: string, answer: KubernetesObject | undefined): void {
    if (answer) this.store.adopt(uid, answer);
    else this.hooks.gone(uid);
  }

  /**
   * Writes `patch` (records as annotations, the form decide speaks) with the records where the resource
   * keeps them; `known` is the object as stored, `body` as decided on. Should the server drop records
   * written to status (its CRD changed to prune them), they are written again as annotations at once
   * and from then on: nothing recorded is lost, and the object is not handled again for want of them.
   */
  private async write(known: KubernetesObject, body: KubernetesObject, patch: ObjectPatch) {
    const placed = placeRecords(patch, known, this.env.marks, this.place);
    const answer = await writePatch(this.env, body, placed);
    if (!answer || this.place !== 'status' || prunedRecords(placed, answer, this.env.marks).length === 0) return answer;
    this.place = 'annotations';
    this.env.logger.warn(
      `the API server drops the operator's records from status (the CRD's status schema does not keep unknown fields); ` +
        `keeping them in annotations from now on: regenerate the types from the installed CRD (kopfgen generate)`,
      { resource: this.env.resource.plural },
    );
    const annotations = Object.fromEntries(
      Object.entries(patch.metadata?.annotations ?? {}).filter(([key]) => isRecordKey(key, this.env.marks)),
    );
    return writePatch(this.env, answer, { metadata: { annotations } });
  }

  /** Writes the outcome's patch, then logs it and posts its Event: what is logged has been recorded. */
  private async record(
    uid: string,
    known: KubernetesObject,
    body: KubernetesObject,
    step: Recorded,
    outcome: Outcome,
    patch: ObjectPatch,
  ) {
    const { id, cause } = step;
    this.adopt(uid, await this.write(known, body, patch));
    this.held.written(uid, patch);
    logOutcome(this.env, body, id, cause, outcome);
    if (eventWorthy(outcome)) outcomeEvent(this.env, body, id, outcome);
  }
}
