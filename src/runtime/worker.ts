/**
 * The objects of one watched resource: the newest state of each, a queue, and the loop that
 * handles one object at a time (serial per object, concurrent across objects up to a shared
 * bound). States older than what is already known — the intermediate events of the
 * operator's own patches, a relist — are dropped, so nothing is handled twice.
 */
import type { ExecEnv } from './execute.js';
import { Conflict, logOutcome, postEvent, runHandler, writePatch, type Result } from './execute.js';
import { resourcePath } from './kube.js';
import type { Outcome } from './outcome.js';
import { outcomePatch, emptyPatch } from './patches.js';
import { applyMergePatch, combineMergePatches } from './json.js';
import { decide, resourceVersionOf, type ObjectPatch, type Step } from './plan.js';
import type { RegisteredHandler } from './registry.js';
import type { WatchConsumer } from './watch.js';

type Body = Record<string, unknown>;

/** Shared bound on objects processed at once, across resources. */
export class Slots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private idle: (() => void)[] = [];
  constructor(readonly limit: number) {}
  async acquire(): Promise<void> {
    if (this.active < this.limit) { this.active++; return; }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) return next(); // hand the slot over
    this.active--;
    if (this.active === 0) for (const resolve of this.idle.splice(0)) resolve();
  }
  /** Resolves once nothing holds a slot. */
  drained(): Promise<void> {
    return this.active === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }
}

function uidOf(body: Body): string {
  return String((body.metadata as { uid?: string } | undefined)?.uid);
}

/** Whether `a` is a newer state than `b`. resourceVersions are etcd revisions (numbers) in practice; else any difference counts. */
export function isNewer(a: Body, b: Body): boolean {
  const ra = resourceVersionOf(a);
  const rb = resourceVersionOf(b);
  if (ra && rb && /^\d+$/.test(ra) && /^\d+$/.test(rb)) return BigInt(ra) > BigInt(rb);
  return ra !== rb;
}

/**
 * managedFields are the bulk of a small object's metadata and no handler decision needs them:
 * the kept states drop them (a third of the operator's memory with 10,000 objects watched).
 */
function slim(body: Body): void {
  const meta = body.metadata as { managedFields?: unknown } | undefined;
  if (meta?.managedFields) delete meta.managedFields;
}

/** A handler whose limits ran out before another attempt: it fails for good without running. */
function failed(step: Extract<Step, { kind: 'fail' }>, now: Date): Result {
  const outcome: Outcome = { kind: 'permanent', message: step.message };
  const record = { ...step.record, stopped: now.toISOString(), failure: true, delayed: undefined, message: step.message };
  return { outcome, record, patch: outcomePatch(step.handler.id, step.key, outcome, emptyPatch(), record) };
}

export class ResourceWorker implements WatchConsumer {
  readonly objects = new Map<string, Body>();
  private readonly initial = new Set<string>();
  private readonly queued = new Set<string>();
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopping = false;

  constructor(
    private readonly env: ExecEnv,
    private readonly handlers: readonly RegisteredHandler[],
    private readonly slots: Slots,
  ) {}

  upsert(body: Body): void {
    slim(body);
    const uid = uidOf(body);
    const known = this.objects.get(uid);
    if (known && !isNewer(body, known)) return;
    if (!known) this.initial.add(uid);
    this.objects.set(uid, body);
    this.schedule(uid);
  }

  delete(body: Body): void {
    this.forget(uidOf(body));
  }

  listed(uids: Set<string>): void {
    for (const uid of [...this.objects.keys()]) if (!uids.has(uid)) this.forget(uid);
  }

  private forget(uid: string): void {
    this.objects.delete(uid);
    this.initial.delete(uid);
    clearTimeout(this.timers.get(uid));
    this.timers.delete(uid);
  }

  stop(): void {
    this.stopping = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private schedule(uid: string): void {
    if (this.stopping) return;
    if (this.running.has(uid)) { this.dirty.add(uid); return; }
    if (this.queued.has(uid)) return;
    this.queued.add(uid);
    void this.slots.acquire().then(async () => {
      this.queued.delete(uid);
      this.running.add(uid);
      try {
        await this.process(uid);
      } catch (error) {
        this.env.logger.error(`processing failed, retrying in 10s: ${(error as Error).message}`, { resource: this.env.resource.plural, uid });
        this.wakeAt(uid, new Date(Date.now() + 10_000));
      } finally {
        this.running.delete(uid);
        this.slots.release();
        if (this.dirty.delete(uid)) this.schedule(uid);
      }
    });
  }

  private wakeAt(uid: string, until: Date): void {
    clearTimeout(this.timers.get(uid));
    const timer = setTimeout(() => { this.timers.delete(uid); this.schedule(uid); }, Math.max(0, until.getTime() - Date.now()));
    this.timers.set(uid, timer);
  }

  /**
   * Records a state the operator produced itself (a patch's answer) unless a newer one is known.
   * An object no longer known was deleted meanwhile (its DELETED event overtook the answer): it stays forgotten.
   */
  private adopt(uid: string, answer: Body | undefined): void {
    if (!answer) return this.forget(uid);
    const known = this.objects.get(uid);
    if (!known) return;
    slim(answer);
    if (isNewer(answer, known) || resourceVersionOf(answer) === resourceVersionOf(known)) {
      this.objects.set(uid, { apiVersion: known.apiVersion, kind: known.kind, ...answer });
    }
  }

  private async process(uid: string): Promise<void> {
    for (let steps = 0; !this.stopping && steps < 1000; steps++) {
      const body = this.objects.get(uid);
      if (!body) return;
      const now = this.env.now();
      const step = decide({ body, handlers: this.handlers, now, initial: this.initial.has(uid) });
      if (step.kind === 'none') { this.initial.delete(uid); return; }
      if (step.kind === 'sleep') return this.wakeAt(uid, step.until);
      if (step.kind === 'patch') {
        try {
          this.adopt(uid, await writePatch(this.env, body, step.patch));
        } catch (error) {
          if (!(error instanceof Conflict)) throw error;
          await this.refresh(uid, body); // someone changed the object meanwhile: decide again on its state
          continue;
        }
        this.env.logger.debug(step.reason, { object: uid });
        if (step.completes) this.initial.delete(uid);
        if (resourceVersionOf(this.objects.get(uid)) === resourceVersionOf(body)) return; // a no-op write: nothing will change
        continue;
      }
      const result = step.kind === 'fail' ? failed(step, now) : await runHandler(this.env, step, body);
      const { patch, completes } = this.withCompletion(uid, body, result.patch);
      await this.record(uid, body, step.handler.id, step.cause, result.outcome, patch);
      if (completes) this.initial.delete(uid);
    }
  }

  /**
   * When this outcome finishes the cause, the completing write (last-handled configuration,
   * progress purge) rides along in the same patch, as kopf writes one patch per cycle. Not
   * for finalizer removal, which carries a resourceVersion precondition of its own.
   */
  private withCompletion(uid: string, body: Body, patch: ObjectPatch): { patch: ObjectPatch; completes: boolean } {
    const projected = applyMergePatch(body, patch) as Body;
    const following = decide({ body: projected, handlers: this.handlers, now: this.env.now(), initial: this.initial.has(uid) });
    if (following.kind !== 'patch' || !following.completes || following.patch.metadata?.resourceVersion !== undefined) return { patch, completes: false };
    return { patch: combineMergePatches(patch, following.patch) as ObjectPatch, completes: true };
  }

  private async record(uid: string, body: Body, id: string, cause: string, outcome: Outcome, patch: ObjectPatch): Promise<void> {
    this.adopt(uid, await writePatch(this.env, body, patch));
    logOutcome(this.env, body, id, cause, outcome);
    if ((outcome.kind === 'temporary' && !outcome.interrupted) || outcome.kind === 'permanent') await postEvent(this.env, body, id, outcome);
  }

  private async refresh(uid: string, body: Body): Promise<void> {
    const meta = body.metadata as { name: string; namespace?: string };
    try {
      this.adopt(uid, await this.env.client.request<Body>('GET', resourcePath(this.env.resource, meta.namespace, meta.name)));
    } catch (error) {
      if ((error as { status?: number }).status === 404) this.forget(uid);
      else throw error;
    }
  }
}
