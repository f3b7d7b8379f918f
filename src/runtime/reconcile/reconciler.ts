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
import { Conflict, PATCH_ATTEMPTS, readObject, writePatch } from '../effects/api-write.js';
import { eventWorthy, outcomeEvent } from '../effects/events.js';
import { crashedAttempt, failWithoutRunning, runHandler, type Result } from '../effects/handler-call.js';
import type { CrashWrite } from '../attempts.js';
import { suspectsOf, type Suspect } from '../crash-journal.js';
import { describe, resourcePath } from '../kube/client.js';
import { logOutcome, objectFields } from '../effects/log.js';
import type { ResourceEnv } from '../env.js';
import { Action } from '../queue.js';
import type { Store } from '../store.js';
import { warn } from '../effects/events.js';
import { objectRef } from '../effects/log.js';
import { canonical } from './essence.js';
import { DEFAULT_SELF_UPDATE_LIMITS, SelfUpdates, type SelfUpdateLimits } from './self-updates.js';
import {
  decide,
  essenceOf,
  resourceVersionOf,
  sameStep,
  withCompletion,
  type DecideInput,
  type RunStep,
  type Step,
} from './decide.js';
import { HandlerStepFailed } from './failures.js';
import { HeldRecords } from './held.js';
import type { Outcome } from './outcome.js';
import { splitPatch, type ObjectPatch } from './patches.js';
import { encodeProgress, progressAnnotation, type ProgressRecord } from './progress.js';
import { conditionSettings, withConditions, type ConditionSettings } from './conditions.js';
import { isRecordKey, placeRecords, prunedRecords, recordsPlace, recordsView, type RecordsPlace } from './records.js';

/** Bounds one reconcile: a decide/write cycle that never settles must not hold a slot for ever. */
const MAX_STEPS = 1000;

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

/** The failure a crashed attempt is recorded with, when the previous leader's journal names it. */
export const CRASHED_IN_JOURNAL =
  'the operator process ended during this attempt (it crashed, was killed, or lost its lease without releasing it)';

export class Reconciler {
  private readonly held = new HeldRecords();
  private readonly selfUpdates: SelfUpdates;
  private readonly selfLimits: SelfUpdateLimits;
  /** Attempts the previous leader's journal names (crash-journal.ts), by object uid, until matched. */
  private readonly suspects: Map<string, Suspect[]>;
  /** Where records are written; falls back to annotations for good should the server prune them from status. */
  private place: RecordsPlace;
  /** What the status schema holds of conditions and the observed generation (conditions.ts). */
  private readonly conditions: ConditionSettings;

  constructor(
    private readonly env: ResourceEnv,
    private readonly handlers: readonly RegisteredHandler[],
    private readonly store: Store,
    private readonly hooks: ReconcileHooks,
  ) {
    this.place = recordsPlace(env.resource);
    this.conditions = conditionSettings(env.resource, env.readiness);
    this.selfLimits = env.selfUpdates ?? DEFAULT_SELF_UPDATE_LIMITS;
    this.selfUpdates = new SelfUpdates(this.selfLimits);
    this.suspects = suspectsOf(env.crash?.suspects ?? [], describe(env.resource));
  }

  async reconcile(uid: string): Promise<Action> {
    for (let steps = 0; !this.hooks.stopping() && steps < MAX_STEPS; steps++) {
      const known = this.store.get(uid);
      if (!known) return Action.done();
      const body = this.view(uid, known);
      const now = this.env.now();
      const input = this.input(uid, body, now);
      const step = decide(input);
      if (step.kind === 'none') {
        this.store.settle(uid);
        this.selfUpdates.rested(uid);
        return Action.done();
      }
      const throttled = this.throttle(uid, body, step);
      if (throttled) return throttled;
      if (step.kind === 'sleep') return Action.requeueAfter(step.until.getTime() - now.getTime());
      if (step.kind === 'patch') {
        // A completing write says where the object stands as well (Ready, observedGeneration), in the same request.
        const patch = step.completes
          ? withConditions(body, step.patch, this.conditions, now, {
              cause: step.completes,
              handlers: this.handlers,
              marks: this.env.marks,
              completes: true,
              seen: body,
            })
          : step.patch;
        try {
          this.adopt(uid, await this.write(known, body, patch));
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

  /**
   * An update that is the echo of the operator's own edit (a handler that changed its object's spec,
   * labels or annotations) waits for the object's self-update bucket (self-updates.ts); the first wait of
   * an episode is reported as a loop (a Warning Event, a metric, a log line). Undefined: go on.
   */
  private throttle(uid: string, body: KubernetesObject, step: Step): Action | undefined {
    if (step.kind !== 'run' || (step.cause !== 'update' && step.cause !== 'field')) return undefined;
    const now = this.env.now().getTime();
    const answer = this.selfUpdates.take(uid, canonical(essenceOf(this.env, body)), now);
    if (answer.kind === 'run') return undefined;
    if (answer.loopDetected) {
      const message =
        `handler ${step.handler.id} changes the object it handles on every run (each run's own edit causes the next ` +
        `update): its self-caused updates are throttled to one per ${Math.round(this.selfLimits.refillMs / 1000)} s`;
      this.env.logger.warn(`${objectRef(body)}: ${message}`, {
        ...objectFields(this.env, body),
        handler: step.handler.id,
      });
      warn(this.env, body, 'SelfUpdateLoop', message);
      this.env.metrics?.selfUpdateLoop(this.env.resource.plural);
    }
    return Action.requeueAfter(answer.ms);
  }

  /** Whether a written patch may have changed what the user controls (anything but status and our records). */
  private touchesEssence(patch: ObjectPatch): boolean {
    if (Object.keys(patch).some((key) => key !== 'status' && key !== 'metadata')) return true;
    if (patch.metadata?.labels !== undefined) return true;
    return Object.keys(patch.metadata?.annotations ?? {}).some((key) => !isRecordKey(key, this.env.marks));
  }

  /** The object as decide reads it: the records where the resource keeps them, the held ones laid over. */
  private view(uid: string, known: KubernetesObject): KubernetesObject {
    return this.held.overlay(uid, recordsView(known, this.env.marks, this.place));
  }

  private input(uid: string, body: KubernetesObject, now: Date): DecideInput {
    return {
      body,
      handlers: this.handlers,
      now,
      initial: this.store.isInitial(uid),
      marks: this.env.marks,
      daemonsRunning: this.hooks.daemonsRunning?.(uid),
      secrecy: this.env.secrecy,
    };
  }

  /**
   * The attempt a previous leader's journal names for this step (crash-journal.ts), taken once: the same
   * handler, cause and attempt number as the object's record says is due, so nothing recorded it since.
   */
  private takeSuspect(uid: string, step: RunStep): Suspect | undefined {
    const suspects = this.suspects.get(uid);
    const attempt = (step.record?.retries ?? 0) + 1;
    const index =
      suspects?.findIndex((s) => s.key === step.key && s.cause === step.cause && s.attempt === attempt) ?? -1;
    if (!suspects || index < 0) return undefined;
    const [suspect] = suspects.splice(index, 1);
    if (suspects.length === 0) this.suspects.delete(uid);
    return suspect;
  }

  /**
   * The write that records this attempt as failed should the process exit from its code: the progress
   * record only, where the resource keeps it, on the state the attempt was decided on.
   */
  private crashWrite(known: KubernetesObject, step: RunStep, started: Date): CrashWrite {
    return (reason) => {
      const { patch } = crashedAttempt(step, started, this.env.now(), this.env.marks, reason);
      const placed = placeRecords(patch, known, this.env.marks, this.place);
      const { main, status } = splitPatch(placed, this.env.resource.statusSubresource);
      const request = status ?? main;
      if (!request) return undefined;
      const meta = known.metadata ?? {};
      const path = resourcePath(this.env.resource, meta.namespace, meta.name, status ? 'status' : undefined);
      const body = { ...request, metadata: { ...request.metadata, resourceVersion: resourceVersionOf(known) } };
      return [{ method: 'PATCH', path, body, contentType: 'application/merge-patch+json' }];
    };
  }

  /**
   * Runs (or fails) one handler and records its outcome; true when the write completed the cause. A
   * timed-out attempt is recorded as soon as the timeout passes; the object keeps its turn (and the
   * reconcile its slot, lent out meanwhile) until the handler's code has ended.
   */
  private async handle(
    uid: string,
    known: KubernetesObject,
    body: KubernetesObject,
    step: HandlerStep,
    input: DecideInput,
  ): Promise<boolean> {
    let outcome: Outcome | undefined;
    let ended: Promise<void> | undefined;
    try {
      // The handler sees the object as the server holds it (`known`), not the records laid over it for decide.
      let result: Result;
      const suspect = step.kind === 'run' ? this.takeSuspect(uid, step) : undefined;
      if (step.kind === 'fail') result = failWithoutRunning(step, input.now, this.env.marks);
      else if (suspect) {
        const started = new Date(step.record?.started ?? suspect.started);
        result = crashedAttempt(step, started, input.now, this.env.marks, CRASHED_IN_JOURNAL);
      } else {
        const started = step.record ? new Date(step.record.started) : input.now;
        const run = await this.whileRunning(
          runHandler(this.env, step, known, this.crashWrite(known, step, started), body),
        );
        ended = run.ended;
        result = run;
      }
      outcome = result.outcome;
      return await this.record(uid, { known, body }, step, input, result);
    } catch (error) {
      const { handler, key, cause, record } = step;
      const started = record?.started ?? input.now.toISOString();
      throw new HandlerStepFailed(
        { id: handler.id, key, cause, options: handler.options, record, started, outcome: outcome?.kind },
        error,
      );
    } finally {
      if (ended) await this.whileRunning(ended);
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
    this.selfUpdates.forget(uid);
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

  /**
   * Writes the outcome's patch on the state it was decided on, then logs it and posts its Event: what is
   * logged has been recorded. Should the object have changed meanwhile (409 on the precondition), it is
   * read again and decided again: if the same handler is still due with the same record, nothing else
   * recorded this attempt, and the outcome is laid over the new state and written again; otherwise the
   * outcome is dropped (someone else, a new leader among them, recorded the object's state since) and the
   * reconcile goes on from what the cluster holds. Returns whether the write completed the cause.
   */
  private async record(
    uid: string,
    decided: { known: KubernetesObject; body: KubernetesObject },
    step: HandlerStep,
    input: DecideInput,
    result: Result,
  ): Promise<boolean> {
    const { id } = step.handler;
    const { cause } = step;
    let { known, body } = decided;
    for (let attempt = 1; ; attempt++) {
      const now = this.env.now();
      const completion = withCompletion({ ...input, body, now }, result.patch, decided.body);
      const { completes } = completion;
      // Where the object stands after this outcome (conditions.ts) goes into the outcome's own write.
      const patch = withConditions(body, completion.patch, this.conditions, now, {
        cause,
        handlers: this.handlers,
        marks: this.env.marks,
        outcome: result.patch,
        current: id,
        next: completion.next,
        completes,
        seen: decided.body,
      });
      try {
        this.adopt(uid, await this.write(known, body, patch));
      } catch (error) {
        if (!(error instanceof Conflict) || attempt >= PATCH_ATTEMPTS) throw error;
        this.adopt(uid, await readObject(this.env, body));
        const current = this.store.get(uid);
        if (!current) return false; // gone
        const view = this.view(uid, current);
        const due = decide(this.input(uid, view, this.env.now()));
        if (!sameStep(due, step)) {
          this.env.logger.info(
            `handler ${id}: its ${result.outcome.kind} outcome is not recorded: the object changed while it ran and ` +
              `the handler is no longer due as it was; deciding again on the object as it is now`,
            { ...objectFields(this.env, decided.body), handler: id, cause },
          );
          return false;
        }
        known = current;
        body = view;
        continue;
      }
      this.held.written(uid, patch);
      const answer = this.store.get(uid);
      if (answer && this.touchesEssence(result.patch)) {
        const after = canonical(essenceOf(this.env, answer));
        if (after !== canonical(essenceOf(this.env, decided.body))) this.selfUpdates.wrote(uid, after, Date.now());
      }
      // The sub-handlers that ran during this attempt first, each as a handler of its own (kopf logs them so).
      for (const sub of result.subhandlers ?? []) {
        logOutcome(this.env, decided.body, sub.id, cause, sub.outcome);
        if (eventWorthy(sub.outcome, this.env.successEvents)) outcomeEvent(this.env, decided.body, sub.id, sub.outcome);
      }
      logOutcome(this.env, decided.body, id, cause, result.outcome);
      if (eventWorthy(result.outcome, this.env.successEvents)) outcomeEvent(this.env, decided.body, id, result.outcome);
      return completes;
    }
  }
}
