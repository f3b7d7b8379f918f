/**
 * Leader election on a `coordination.k8s.io/v1` Lease, as client-go's `tools/leaderelection` does it
 * (with controller-runtime's defaults and ReleaseOnCancel): the loop below reads and writes the
 * Lease; what to write and when is decided by `decideLease` (lease-decision.ts), without I/O.
 */
import type { Logger } from '../api/context.js';
import { KubeError, type KubeClient } from '../kube/client.js';
import {
  decideLease,
  DEFAULT_TIMINGS,
  releaseRecord,
  timingProblems,
  type LeaderTimings,
  type LeaseStep,
} from './lease-decision.js';
import { defaultIdentity, leaseNamespace } from './leader-identity.js';
import {
  describeLease,
  leasePath,
  leasesPath,
  newLease,
  recordOf,
  sameRecord,
  updatedLease,
  type Lease,
  type LeaseRecord,
  type LeaseRef,
} from './lease-record.js';
import { messageOf } from '../error-message.js';

/** The one call the elector makes; a KubeClient is one. */
export type LeaseClient = Pick<KubeClient, 'request'>;

export interface LeaderElectorOptions extends Partial<LeaderTimings> {
  client: LeaseClient;
  /** The Lease's name (the caller derives a default, e.g. from the operator's name). */
  name: string;
  /** Else the service account's namespace, POD_NAMESPACE, 'default' (see leaseNamespace). */
  namespace?: string;
  /** Else pod name + '_' + a random suffix (see defaultIdentity). */
  identity?: string;
  logger: Logger;
}

/** What the elector tells its user; the operator starts and stops its watches on these. */
export interface LeaderCallbacks {
  /**
   * This replica now leads. `leaderSignal` aborts the moment it stops leading: lost the lease, could
   * not renew within the renew deadline, or run()'s signal aborted. The promise returned (if any) is
   * the leading work; the lease is released only after it settles, and a new term is not sought
   * before it settles, so the work of two terms never overlaps.
   */
  onStartedLeading(leaderSignal: AbortSignal): void | Promise<void>;
  /** Called once per term, when `leaderSignal` aborts. */
  onStoppedLeading(): void;
  /** The holder seen on the lease changed (ourselves included), as client-go's OnNewLeader. */
  onNewLeader?(identity: string): void;
}

export type LeaderRole = 'leader' | 'standby' | 'stopped';

/** For /readyz and /metrics: a standby is as ready as a leader. */
export interface LeaderState {
  role: LeaderRole;
  identity: string;
  /** `namespace/name` of the Lease. */
  lease: string;
  /** The holder last seen on the lease; '' when released, undefined before the first look or when absent. */
  holder: string | undefined;
  /** Epoch ms at which this replica started leading (when it leads). */
  leadingSince: number | undefined;
}

interface Observed {
  /** The Lease as last read or written (undefined: it does not exist). */
  lease: Lease | undefined;
  record: LeaseRecord | undefined;
  /** Local time of the last change we saw, or of the send of our own write (client-go's observedTime). */
  at: number;
}

interface Term {
  controller: AbortController;
  since: number;
}

type WriteOutcome = 'written' | 'conflict' | 'failed';

/** Resolved timings; throws on timings client-go would refuse (one line per problem). */
export function leaderTimings(options: Partial<LeaderTimings>): LeaderTimings {
  const timings: LeaderTimings = {
    leaseDurationMs: options.leaseDurationMs ?? DEFAULT_TIMINGS.leaseDurationMs,
    renewDeadlineMs: options.renewDeadlineMs ?? DEFAULT_TIMINGS.renewDeadlineMs,
    retryPeriodMs: options.retryPeriodMs ?? DEFAULT_TIMINGS.retryPeriodMs,
  };
  const problems = timingProblems(timings);
  if (problems.length) throw new Error(`leader election: ${problems.join('; ')}`);
  return timings;
}

/**
 * One clear line per kind of failure, not one per retry: the first failure of a kind is a warning,
 * repeats are debug lines, and the first success after failures says how many there were.
 */
class FailureLog {
  private kind: string | undefined;
  private count = 0;

  constructor(
    private readonly logger: Logger,
    private readonly fields: Record<string, unknown>,
  ) {}

  failed(what: string, error: unknown): void {
    const status = error instanceof KubeError ? error.status : undefined;
    const message = messageOf(error);
    // the same failure with other numbers in it (a timeout left, a port) is the same kind
    const kind = `${what} ${status ?? message.replace(/\d+/g, 'N')}`;
    this.count++;
    if (kind === this.kind) {
      this.logger.debug(`${what} failed again (${this.count} in a row): ${message}`, this.fields);
      return;
    }
    this.kind = kind;
    this.logger.warn(`${what} failed: ${message}; retrying`, { ...this.fields, status });
  }

  succeeded(what: string): void {
    if (this.count) this.logger.info(`${what} works again after ${this.count} failed attempts`, this.fields);
    this.kind = undefined;
    this.count = 0;
  }
}

export class LeaderElector {
  readonly identity: string;
  readonly ref: LeaseRef;
  readonly timings: LeaderTimings;
  private readonly client: LeaseClient;
  private readonly logger: Logger;
  private readonly failures: FailureLog;
  private observed: Observed | undefined;
  private term: Term | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  /** Monotonic send time of our last successful write of the lease (the start of its renew deadline). */
  private writtenAt: number | undefined;
  /** The last term's work; none pending at first. */
  private work: Promise<void> = Promise.resolve();
  private workDone = true;
  private reportedHolder: string | undefined;
  private running = false;
  private woken = false;
  private waker: (() => void) | undefined;
  private callbacks: LeaderCallbacks | undefined;

  constructor(options: LeaderElectorOptions) {
    this.timings = leaderTimings(options);
    this.client = options.client;
    this.logger = options.logger;
    this.identity = options.identity ?? defaultIdentity();
    this.ref = { namespace: leaseNamespace(options.namespace), name: options.name };
    const lease = `${this.ref.namespace}/${this.ref.name}`;
    this.failures = new FailureLog(this.logger, { lease, identity: this.identity });
  }

  isLeader(): boolean {
    return this.term !== undefined;
  }

  /**
   * Whether this replica may still write as the leader: the lease names it and its last write is within
   * the renew deadline (so no other replica can have taken over). Stays true while a graceful stop lets
   * the term's work drain (the lease is renewed meanwhile), turns false the moment the lease is lost or
   * the deadline passes, and after the release. The operator's write fence asks this before every write.
   */
  holds(): boolean {
    const writtenAt = this.writtenAt;
    return (
      this.holdsRecord() && writtenAt !== undefined && performance.now() < writtenAt + this.timings.renewDeadlineMs
    );
  }

  state(): LeaderState {
    return {
      role: this.term ? 'leader' : this.running ? 'standby' : 'stopped',
      identity: this.identity,
      lease: `${this.ref.namespace}/${this.ref.name}`,
      holder: this.observed?.record?.holderIdentity,
      leadingSince: this.term?.since,
    };
  }

  /**
   * Campaigns for the lease until `signal` aborts: leads while it holds the lease, stands by otherwise,
   * and campaigns again after a lost term. On abort it stops leading at once, keeps renewing until the
   * work of the term settles, then releases the lease (client-go's ReleaseOnCancel) so a standby takes
   * over at its next look, about one retry period. Resolves when all that is done; with an API server
   * that does not answer, at most two renew deadlines after the work settled (a renew on the wire, the
   * release).
   */
  async run(signal: AbortSignal, callbacks: LeaderCallbacks): Promise<void> {
    if (this.running) throw new Error(`${describeLease(this.ref)}: this elector is already running`);
    this.running = true;
    this.callbacks = callbacks;
    // The term ends in the abort itself, not at the loop's next turn: the user's signal aborts at once.
    const onAbort = () => {
      this.stopLeading('stopping');
      this.wake();
    };
    signal.addEventListener('abort', onAbort);
    this.logger.info(`campaigning for ${describeLease(this.ref)}`, { identity: this.identity, ...this.timings });
    try {
      await this.loop(signal);
      if (this.holdsRecord()) await this.release();
      await this.work;
    } finally {
      signal.removeEventListener('abort', onAbort);
      clearTimeout(this.deadlineTimer);
      this.stopLeading('the elector stopped');
      this.running = false;
      this.callbacks = undefined;
    }
  }

  private async loop(signal: AbortSignal): Promise<void> {
    let mustRead = true;
    for (;;) {
      if (signal.aborted) this.stopLeading('stopping');
      // On stop, keep the lease (renewing) while the term's work drains; a standby starts after it.
      if (signal.aborted && (this.workDone || !this.holdsRecord())) return;
      // The leader renews on the Lease it last wrote (client-go's optimistic fast path), others read first.
      const fastPath = !mustRead && this.holdsRecord() && this.observed?.lease !== undefined;
      const observed = fastPath ? this.observed : await this.read();
      if (!observed) {
        await this.sleep(this.timings.retryPeriodMs);
        continue;
      }
      const now = Date.now();
      const { record, at: observedAt } = observed;
      const step = decideLease({ now, record, observedAt, identity: this.identity, timings: this.timings });
      this.reportHolder(record?.holderIdentity);
      if (step.kind === 'wait' || step.kind === 'stepDown') {
        this.stopLeading(step.kind === 'wait' ? `the lease is held by ${step.holder}` : 'the renew deadline passed');
        mustRead = true;
        await this.sleep(step.until - now);
        continue;
      }
      // Seek no new term while stopping or while the last term's work still runs.
      if (step.kind !== 'renew' && (signal.aborted || !this.workDone)) {
        mustRead = true;
        await this.sleep(this.timings.retryPeriodMs);
        continue;
      }
      const sentAt = performance.now();
      const outcome = await this.write(step, now, sentAt);
      // A term starts only after the last one's work settled (it may hold the lease meanwhile), and not
      // on an answer that came after the renew deadline of its own write.
      const inTime = performance.now() < sentAt + this.timings.renewDeadlineMs;
      if (outcome === 'written' && !this.term && !signal.aborted && this.workDone && inTime) this.startLeading(now);
      if (outcome === 'written') this.reportHolder(this.identity);
      mustRead = outcome !== 'written';
      // A renew that lost on the cached resourceVersion reads and decides again at once (client-go's
      // slow path after a failed optimistic update); anything else waits a retry period.
      if (outcome === 'conflict' && fastPath) continue;
      await this.sleep(this.timings.retryPeriodMs);
    }
  }

  /** GET the lease into `observed`; the observed time moves only when the record changed. Undefined on failure. */
  private async read(): Promise<Observed | undefined> {
    const previous = this.observed;
    try {
      const lease = await this.client.request<Lease>('GET', leasePath(this.ref), { timeoutMs: this.requestTimeout() });
      const record = recordOf(lease);
      const unchanged = previous?.record !== undefined && sameRecord(previous.record, record);
      this.observed = { lease, record, at: unchanged && previous ? previous.at : Date.now() };
    } catch (error) {
      if (!(error instanceof KubeError && error.status === 404)) {
        this.failures.failed(`reading ${describeLease(this.ref)}`, error);
        return undefined;
      }
      this.observed = { lease: undefined, record: undefined, at: Date.now() };
    }
    this.failures.succeeded(`reading ${describeLease(this.ref)}`);
    return this.observed;
  }

  /**
   * POST or PUT the step's record; `now` (before the send) becomes the observed time of our record, and
   * `sentAt` (the same moment on the monotonic clock) starts the renew deadline.
   */
  private async write(
    step: Extract<LeaseStep, { record: LeaseRecord }>,
    now: number,
    sentAt: number,
  ): Promise<WriteOutcome> {
    const verb = step.kind === 'create' ? 'creating' : step.kind === 'renew' ? 'renewing' : 'taking over';
    const what = `${verb} ${describeLease(this.ref)}`;
    try {
      const timeoutMs = this.requestTimeout();
      const previous = this.observed?.lease;
      const lease =
        step.kind === 'create' || !previous
          ? await this.client.request<Lease>('POST', leasesPath(this.ref), {
              body: newLease(this.ref, step.record),
              timeoutMs,
            })
          : await this.client.request<Lease>('PUT', leasePath(this.ref), {
              body: updatedLease(previous, step.record),
              timeoutMs,
            });
      this.observed = { lease, record: recordOf(lease), at: now };
      this.writtenAt = sentAt;
      this.armDeadline(sentAt, now);
      this.failures.succeeded(what);
      if (step.kind === 'takeOver') {
        const fields = { identity: this.identity, previous: step.previous || undefined };
        this.logger.info(`took over ${describeLease(this.ref)}`, fields);
      }
      return 'written';
    } catch (error) {
      if (error instanceof KubeError && error.status === 409) {
        // Another candidate wrote the lease since we read it (or created it first): not an error.
        this.logger.debug(`${what}: the lease changed meanwhile (409), reading it again`, { identity: this.identity });
        return 'conflict';
      }
      this.failures.failed(what, error);
      return 'failed';
    }
  }

  /**
   * client-go's release(): on a graceful stop, an empty holder and a 1 s duration, so a standby needn't
   * wait out the lease. It is a PUT on our last resourceVersion, so it is harmless even past our renew
   * deadline: it applies only if nobody has written the lease since our last write.
   */
  private async release(): Promise<void> {
    const observed = this.observed;
    const record = releaseRecord(Date.now(), observed?.record, this.identity);
    if (!observed?.lease || !record) return;
    try {
      const body = updatedLease(observed.lease, record);
      const timeoutMs = this.timings.renewDeadlineMs;
      const lease = await this.client.request<Lease>('PUT', leasePath(this.ref), { body, timeoutMs });
      this.observed = { lease, record: recordOf(lease), at: Date.now() };
      this.logger.info(`released ${describeLease(this.ref)}`, { identity: this.identity });
    } catch (error) {
      if (error instanceof KubeError && error.status === 409) {
        const message = `${describeLease(this.ref)} changed hands before we released it`;
        this.logger.info(message, { identity: this.identity });
        return;
      }
      this.logger.warn(
        `releasing ${describeLease(this.ref)} failed: ${messageOf(error)}; ` +
          `a standby takes over when it expires (${this.timings.leaseDurationMs} ms)`,
        { identity: this.identity },
      );
    }
  }

  /**
   * A request of a leader never outlives its renew deadline (client-go runs them under the renew
   * context); other requests wait at most a renew deadline.
   */
  private requestTimeout(): number {
    const { renewDeadlineMs } = this.timings;
    const left = this.observed && this.holdsRecord() ? this.observed.at + renewDeadlineMs - Date.now() : 0;
    return left > 0 ? Math.min(renewDeadlineMs, left) : renewDeadlineMs;
  }

  private holdsRecord(): boolean {
    return this.observed?.record?.holderIdentity === this.identity;
  }

  private startLeading(now: number): void {
    const callbacks = this.callbacks;
    if (!callbacks) return;
    const controller = new AbortController();
    this.term = { controller, since: now };
    this.logger.info(`leading: acquired ${describeLease(this.ref)}`, {
      identity: this.identity,
      transitions: this.observed?.record?.leaseTransitions,
    });
    this.workDone = false;
    let work: Promise<void>;
    try {
      work = Promise.resolve(callbacks.onStartedLeading(controller.signal));
    } catch (error) {
      work = Promise.reject(error);
    }
    this.work = work
      .catch((error: unknown) => {
        const message = messageOf(error);
        this.logger.error(`the leading work failed: ${message}`, { identity: this.identity });
      })
      .finally(() => {
        this.workDone = true;
        this.wake();
      });
  }

  /** Ends the term at once: the leader's signal aborts and the user is told, before anything else. */
  private stopLeading(reason: string): void {
    const term = this.term;
    if (!term) return;
    this.term = undefined;
    clearTimeout(this.deadlineTimer);
    term.controller.abort(new Error(`stopped leading ${describeLease(this.ref)}: ${reason}`));
    const log = reason === 'stopping' ? this.logger.info : this.logger.warn;
    log(`stopped leading ${describeLease(this.ref)}: ${reason}`, { identity: this.identity });
    try {
      this.callbacks?.onStoppedLeading();
    } catch (error) {
      this.logger.error(`onStoppedLeading failed: ${messageOf(error)}`, { identity: this.identity });
    }
  }

  /**
   * Ends the term at the renew deadline whatever the loop is doing (a hung request, a slow DNS lookup):
   * the renew deadline is shorter than the lease duration, so we stop before anyone may take over.
   * It runs on the monotonic clock (performance.now), so a wall clock stepped back cannot delay it;
   * Node timers may fire a millisecond early, so it waits out the rest.
   */
  private armDeadline(sentAt: number, sentAtWall: number): void {
    clearTimeout(this.deadlineTimer);
    const deadline = sentAt + this.timings.renewDeadlineMs;
    const check = () => {
      const left = deadline - performance.now();
      if (left > 0) {
        this.deadlineTimer = setTimeout(check, left);
        return;
      }
      this.deadlineTimer = undefined;
      const since = new Date(sentAtWall).toISOString();
      this.stopLeading(`no renew within the renew deadline (${this.timings.renewDeadlineMs} ms since ${since})`);
      this.wake();
    };
    this.deadlineTimer = setTimeout(check, Math.max(0, deadline - performance.now()));
  }

  private reportHolder(holder: string | undefined): void {
    if (!holder || holder === this.reportedHolder) return;
    this.reportedHolder = holder;
    if (holder !== this.identity) {
      this.logger.info(`${describeLease(this.ref)} is held by ${holder}`, { identity: this.identity });
    }
    try {
      this.callbacks?.onNewLeader?.(holder);
    } catch (error) {
      this.logger.error(`onNewLeader failed: ${messageOf(error)}`, { identity: this.identity });
    }
  }

  /** Sleeps `ms`, or less when woken (stop requested, the term's work settled, the deadline fired). */
  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waker = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.waker = done;
    });
  }

  private wake(): void {
    this.woken = true;
    this.waker?.();
  }
}
