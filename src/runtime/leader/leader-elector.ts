/**
 * Leader election on a `coordination.k8s.io/v1` Lease, as client-go's `tools/leaderelection` does it
 * (with controller-runtime's defaults and ReleaseOnCancel): the loop below reads and writes the
 * Lease; what to write and when is decided by `decideLease` (lease-decision.ts), without I/O. Each term
 * hands out a write fence (`fence()`) that closes the moment the term's hold on the lease ends; the Lease
 * carries the leader's journal of attempts in flight (an annotation written with every renewal), which
 * the next leader is given when it takes over a lease nobody released.
 */
import type { Logger } from '../api/context.js';
import { KubeError, type KubeClient } from '../kube/client.js';
import type { WriteFence } from '../kube/fence.js';
import {
  decideLease,
  DEFAULT_TIMINGS,
  isRelease,
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

/** The Lease annotation holding the leader's journal (`LeaderElectorOptions.journal`). */
export const JOURNAL_ANNOTATION = 'kopfgen.dev/in-flight';

/** A failure of the same kind is logged at warn again after this long, however often it repeats. */
export const REPEAT_WARNING_MS = 60_000;

export interface LeaderElectorOptions extends Partial<LeaderTimings> {
  client: LeaseClient;
  /** The Lease's name (the caller derives a default, e.g. from the operator's name). */
  name: string;
  /** Else the service account's namespace, POD_NAMESPACE, 'default' (see leaseNamespace). */
  namespace?: string;
  /** Else pod name + '_' + a random suffix (see defaultIdentity). */
  identity?: string;
  logger: Logger;
  /**
   * What the leader writes into the Lease's JOURNAL_ANNOTATION with every renewal (the operator's attempts
   * in flight); undefined leaves it out. Read back by the next leader (`Takeover.journal`).
   */
  journal?: () => string | undefined;
  /**
   * The monotonic clock in ms the hold is measured on (default `performance.now`): tests pass a fake one to
   * show that `holds()` turns false at the renew deadline whatever the timers did.
   */
  monotonic?: () => number;
}

/** How a term began: whose lease it took, whether that holder had released it, and its journal then. */
export interface Takeover {
  /** The holder before us ('' when the Lease was free, released or new). */
  previous: string;
  /**
   * Another process held the lease and did not release it (it crashed, was killed, or lost its connection):
   * what it had in flight did not finish as far as the cluster knows.
   */
  unreleased: boolean;
  /** The previous holder's journal as the Lease held it when we took over. */
  journal: string | undefined;
}

/** What the elector tells its user; the operator starts and stops its watches on these. */
export interface LeaderCallbacks {
  /**
   * This replica now leads. `leaderSignal` aborts the moment it stops leading: lost the lease, could
   * not renew within the renew deadline, or run()'s signal aborted. The promise returned (if any) is
   * the leading work; the lease is released only after it settles, and a new term is not sought
   * before it settles, so the work of two terms never overlaps. `fence()` gives the term's write fence.
   */
  onStartedLeading(leaderSignal: AbortSignal, takeover: Takeover): void | Promise<void>;
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
  /** The record is the one we last wrote (decideLease's `own`). */
  own: boolean;
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
 * One clear line per kind of failure, not one per retry: a new kind of failure is a warning, repeats are
 * debug lines but a warning again at least every REPEAT_WARNING_MS (a failure that lasts is never
 * silent), and the first success after failures says how many there were. Remembers the last failure
 * for the health check.
 */
export class FailureLog {
  private kind: string | undefined;
  private count = 0;
  private warnedAt = 0;
  /** The last failure's line, while failures last. */
  last: string | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly fields: Record<string, unknown>,
    /** A monotonic clock in ms (tests pass their own). */
    private readonly now: () => number = () => performance.now(),
  ) {}

  failed(what: string, error: unknown): void {
    const status = error instanceof KubeError ? error.status : undefined;
    const message = messageOf(error);
    // the same failure with other numbers in it (a timeout left, a port) is the same kind
    const kind = `${what} ${status ?? message.replace(/\d+/g, 'N')}`;
    this.count++;
    this.last = `${what} failed: ${message}`;
    const now = this.now();
    if (kind !== this.kind) {
      this.kind = kind;
      this.warnedAt = now;
      this.logger.warn(`${what} failed: ${message}; retrying`, { ...this.fields, status });
    } else if (now - this.warnedAt >= REPEAT_WARNING_MS) {
      this.warnedAt = now;
      this.logger.warn(`${what} still fails (${this.count} failures in a row): ${message}; retrying`, {
        ...this.fields,
        status,
      });
    } else {
      this.logger.debug(`${what} failed again (${this.count} in a row): ${message}`, this.fields);
    }
  }

  succeeded(what: string): void {
    if (this.count) this.logger.info(`${what} works again after ${this.count} failed attempts`, this.fields);
    this.kind = undefined;
    this.count = 0;
    this.last = undefined;
  }
}

export class LeaderElector {
  readonly identity: string;
  readonly ref: LeaseRef;
  readonly timings: LeaderTimings;
  private readonly client: LeaseClient;
  private readonly logger: Logger;
  private readonly failures: FailureLog;
  private readonly journal: (() => string | undefined) | undefined;
  private readonly clock: () => number;
  private observed: Observed | undefined;
  /** The last holder seen on the lease before the record observed now (decideLease's `lastHolder`). */
  private lastHolder: string | undefined;
  private term: Term | undefined;
  /** This replica's hold on the lease: open from a term's start until the lease is lost or released. */
  private hold: AbortController | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  /** Ends the term and the hold at the renew deadline (armed with each write; `lapse` may call it first). */
  private expire: (() => void) | undefined;
  /** Monotonic send time of our last successful write of the lease (the start of its renew deadline). */
  private writtenAt: number | undefined;
  /** Monotonic time of the last read or write of the lease the server answered (the health check). */
  private contactAt: number;
  /** How the next term began (set by the write that won the lease). */
  private takeover: Takeover = { previous: '', unreleased: false, journal: undefined };
  /** Callers of `writeJournal` waiting for the next renewal. */
  private journalWaiters: ((written: boolean) => void)[] = [];
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
    this.journal = options.journal;
    this.clock = options.monotonic ?? (() => performance.now());
    this.contactAt = this.clock();
    this.identity = options.identity ?? defaultIdentity();
    this.ref = { namespace: leaseNamespace(options.namespace), name: options.name };
    const lease = `${this.ref.namespace}/${this.ref.name}`;
    this.failures = new FailureLog(this.logger, { lease, identity: this.identity }, this.clock);
  }

  isLeader(): boolean {
    return this.term !== undefined;
  }

  /**
   * Whether this replica may still write as the leader: its hold on the lease is open (the lease names
   * it in a record it wrote itself) and its last write is within the renew deadline (so no other replica
   * can have taken over). Stays true while a graceful stop lets the term's work drain (the lease is
   * renewed meanwhile), turns false the moment the lease is lost or the deadline passes, and after the
   * release.
   */
  holds(): boolean {
    const writtenAt = this.writtenAt;
    return (
      this.hold !== undefined &&
      !this.hold.signal.aborted &&
      this.holdsRecord() &&
      writtenAt !== undefined &&
      this.clock() < writtenAt + this.timings.renewDeadlineMs
    );
  }

  /**
   * The write fence of the current hold (see kube/fence.ts): open while `holds()`, its deadline the renew
   * deadline of the last renewal, its signal aborted when this hold ends. A later hold is a new fence, so
   * a term's client never writes for another term.
   */
  fence(): WriteFence {
    const hold = this.hold ?? new AbortController();
    if (!this.hold) hold.abort(new Error('not leading'));
    const why = `this replica (${this.identity}) no longer holds the lease ${this.ref.namespace}/${this.ref.name}`;
    return {
      signal: hold.signal,
      refuse: () => (hold.signal.aborted || hold !== this.hold || !this.holds() ? why : undefined),
      deadline: () => (this.writtenAt ?? -Infinity) + this.timings.renewDeadlineMs,
    };
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
   * Why this replica is unhealthy, or undefined: no read or write of the lease has been answered for
   * longer than the lease duration (the Lease's RBAC removed, the API server unreachable). A standby in
   * that state could never take over and a leader has stopped leading, so a restart is the remedy
   * (controller-runtime exits when it loses its lease).
   */
  problem(): string | undefined {
    if (!this.running) return undefined;
    const silent = this.clock() - this.contactAt;
    if (silent <= this.timings.leaseDurationMs) return undefined;
    const seconds = Math.round(silent / 1000);
    const limit = this.timings.leaseDurationMs / 1000;
    const last = this.failures.last ? `: ${this.failures.last}` : '';
    return `leader election: no read or write of ${describeLease(this.ref)} succeeded for ${seconds} s (limit: the lease duration, ${limit} s)${last}`;
  }

  /**
   * Writes the journal now (a renewal of the lease carrying it), for a leader that must have it on record
   * before it goes on; calls made meanwhile share one write. Resolves true once written, false when this
   * replica does not hold the lease or the write failed.
   */
  writeJournal(): Promise<boolean> {
    if (!this.holds()) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.journalWaiters.push(resolve);
      this.wake();
    });
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
    this.contactAt = this.clock();
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
      this.stopLeading('the elector stopped');
      this.endHold('the elector stopped');
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
        this.settleJournal(false);
        await this.sleep(this.timings.retryPeriodMs);
        continue;
      }
      const now = Date.now();
      const { record, at: observedAt, own } = observed;
      const view = { now, record, observedAt, identity: this.identity, timings: this.timings, own };
      const step = decideLease({ ...view, lastHolder: this.lastHolder });
      this.reportHolder(record?.holderIdentity);
      if (step.kind === 'wait' || step.kind === 'stepDown') {
        const reason =
          step.kind === 'stepDown'
            ? 'the renew deadline passed'
            : record
              ? `the lease is held by ${step.holder || 'nobody'} (${record.holderIdentity === this.identity ? 'a record this replica did not write' : 'not expired'})`
              : `the lease is missing (${describeLease(this.ref)} was deleted)`;
        this.stopLeading(reason);
        this.endHold(reason);
        this.settleJournal(false);
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
      const waiting = this.journalWaiters.splice(0);
      const sentAt = this.clock();
      const outcome = await this.write(step, now, sentAt);
      for (const resolve of waiting) resolve(outcome === 'written' && this.holds());
      // A term starts only after the last one's work settled (it may hold the lease meanwhile), and not
      // on an answer that came after the renew deadline of its own write.
      const inTime = this.clock() < sentAt + this.timings.renewDeadlineMs;
      if (outcome === 'written' && !this.term && !signal.aborted && this.workDone && inTime) this.startLeading(now);
      if (outcome === 'written') this.reportHolder(this.identity);
      mustRead = outcome !== 'written';
      // A renew that lost on the cached resourceVersion reads and decides again at once (client-go's
      // slow path after a failed optimistic update); anything else waits a retry period, or less when a
      // journal write is asked for.
      if (outcome === 'conflict' && fastPath) continue;
      await this.sleep(this.timings.retryPeriodMs);
    }
  }

  /** Answers the callers of `writeJournal` still waiting: this replica is not writing the lease now. */
  private settleJournal(written: boolean): void {
    for (const resolve of this.journalWaiters.splice(0)) resolve(written);
  }

  /**
   * Keeps `observed` (and `lastHolder`) up to date with a record read or written: the observed time moves
   * only when the record changed; the record stays our own only while it is unchanged since we wrote it.
   */
  private observe(lease: Lease | undefined, now: number, own: boolean): Observed {
    const previous = this.observed;
    const record = lease ? recordOf(lease) : undefined;
    const unchanged =
      previous !== undefined &&
      (record === undefined
        ? previous.record === undefined
        : previous.record !== undefined && sameRecord(previous.record, record));
    const holder = previous?.record?.holderIdentity;
    if (!unchanged && holder) this.lastHolder = holder;
    this.observed = {
      lease,
      record,
      at: unchanged && previous && !own ? previous.at : now,
      own: own || (unchanged && previous !== undefined && previous.own),
    };
    return this.observed;
  }

  /** GET the lease into `observed`. Undefined on failure. */
  private async read(): Promise<Observed | undefined> {
    try {
      const lease = await this.client.request<Lease>('GET', leasePath(this.ref), { timeoutMs: this.requestTimeout() });
      this.observe(lease, Date.now(), false);
    } catch (error) {
      if (!(error instanceof KubeError && error.status === 404)) {
        this.failures.failed(`reading ${describeLease(this.ref)}`, error);
        return undefined;
      }
      this.observe(undefined, Date.now(), false);
    }
    this.contactAt = this.clock();
    this.failures.succeeded(`reading ${describeLease(this.ref)}`);
    return this.observed;
  }

  /**
   * POST or PUT the step's record (with the journal, while we lead); `now` (before the send) becomes the
   * observed time of our record, and `sentAt` (the same moment on the monotonic clock) starts the renew
   * deadline.
   */
  private async write(
    step: Extract<LeaseStep, { record: LeaseRecord }>,
    now: number,
    sentAt: number,
  ): Promise<WriteOutcome> {
    const verb = step.kind === 'create' ? 'creating' : step.kind === 'renew' ? 'renewing' : 'taking over';
    const what = `${verb} ${describeLease(this.ref)}`;
    const previous = this.observed?.lease;
    // the journal is the holder's: a candidate taking the lease over writes none until its term began
    const journal = step.kind === 'renew' ? this.journal?.() : undefined;
    const annotations = { [JOURNAL_ANNOTATION]: journal };
    try {
      const timeoutMs = this.requestTimeout();
      const lease =
        step.kind === 'create' || !previous
          ? await this.client.request<Lease>('POST', leasesPath(this.ref), {
              body: newLease(this.ref, step.record, annotations),
              timeoutMs,
            })
          : await this.client.request<Lease>('PUT', leasePath(this.ref), {
              body: updatedLease(previous, step.record, annotations),
              timeoutMs,
            });
      this.observe(lease, now, true);
      this.contactAt = this.clock();
      this.writtenAt = sentAt;
      this.armDeadline(sentAt, now);
      this.failures.succeeded(what);
      if (step.kind !== 'renew') {
        const before = previous ? recordOf(previous) : undefined;
        this.takeover = {
          previous: step.kind === 'create' ? '' : step.previous,
          unreleased:
            step.kind === 'takeOver' &&
            step.previous !== '' &&
            step.previous !== this.identity &&
            !!before &&
            !isRelease(before),
          journal: previous?.metadata.annotations?.[JOURNAL_ANNOTATION],
        };
      }
      if (step.kind === 'takeOver') {
        const fields = { identity: this.identity, previous: step.previous || undefined };
        this.logger.info(`took over ${describeLease(this.ref)}`, fields);
      }
      return 'written';
    } catch (error) {
      if (error instanceof KubeError && (error.status === 409 || error.status === 404)) {
        this.contactAt = this.clock();
        if (error.status === 404) {
          // Our renewal found the lease deleted: the term is over at once; campaign again from the read.
          this.observe(undefined, Date.now(), false);
          const reason = `${describeLease(this.ref)} was deleted`;
          this.stopLeading(reason);
          this.endHold(reason);
        }
        // Another candidate wrote the lease since we read it (or created it first): not an error.
        this.logger.debug(`${what}: the lease changed meanwhile (${error.status}), reading it again`, {
          identity: this.identity,
        });
        return 'conflict';
      }
      this.failures.failed(what, error);
      return 'failed';
    }
  }

  /**
   * client-go's release(): on a graceful stop, an empty holder and a 1 s duration, so a standby needn't
   * wait out the lease. It is a PUT on our last resourceVersion, so it is harmless even past our renew
   * deadline: it applies only if nobody has written the lease since our last write. The hold ends first:
   * nothing of this replica is written after the release.
   */
  private async release(): Promise<void> {
    const observed = this.observed;
    const record = releaseRecord(Date.now(), observed?.record, this.identity);
    this.endHold('the lease is released');
    if (!observed?.lease || !record || !observed.own) return;
    try {
      const body = updatedLease(observed.lease, record, { [JOURNAL_ANNOTATION]: undefined });
      const timeoutMs = this.timings.renewDeadlineMs;
      const lease = await this.client.request<Lease>('PUT', leasePath(this.ref), { body, timeoutMs });
      this.observe(lease, Date.now(), true);
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

  /** The lease names us in a record we wrote ourselves. */
  private holdsRecord(): boolean {
    return this.observed?.record?.holderIdentity === this.identity && this.observed.own;
  }

  private startLeading(now: number): void {
    const callbacks = this.callbacks;
    if (!callbacks) return;
    const controller = new AbortController();
    this.term = { controller, since: now };
    this.hold?.abort(new Error('a new term began'));
    this.hold = new AbortController();
    const takeover = this.takeover;
    this.takeover = { previous: this.identity, unreleased: false, journal: undefined };
    this.logger.info(`leading: acquired ${describeLease(this.ref)}`, {
      identity: this.identity,
      transitions: this.observed?.record?.leaseTransitions,
      previous: takeover.previous || undefined,
      unreleased: takeover.unreleased || undefined,
    });
    this.workDone = false;
    let work: Promise<void>;
    try {
      work = Promise.resolve(callbacks.onStartedLeading(controller.signal, takeover));
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
    term.controller.abort(new Error(`stopped leading ${describeLease(this.ref)}: ${reason}`));
    const log = reason === 'stopping' ? this.logger.info : this.logger.warn;
    log(`stopped leading ${describeLease(this.ref)}: ${reason}`, { identity: this.identity });
    try {
      this.callbacks?.onStoppedLeading();
    } catch (error) {
      this.logger.error(`onStoppedLeading failed: ${messageOf(error)}`, { identity: this.identity });
    }
  }

  /** Ends the hold on the lease: the term's fence closes and its requests in flight are aborted. */
  private endHold(reason: string): void {
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    this.expire = undefined;
    this.hold?.abort(new Error(reason));
  }

  /**
   * Ends the term and the hold at the renew deadline whatever the loop is doing (a hung request, a slow
   * DNS lookup): the renew deadline is shorter than the lease duration, so we stop before anyone may take
   * over. It runs on the monotonic clock (performance.now), so a wall clock stepped back cannot delay it;
   * Node timers may fire a millisecond early, so it waits out the rest.
   */
  private armDeadline(sentAt: number, sentAtWall: number): void {
    clearTimeout(this.deadlineTimer);
    const deadline = sentAt + this.timings.renewDeadlineMs;
    const expire = () => {
      this.expire = undefined;
      const since = new Date(sentAtWall).toISOString();
      const reason = `no renew within the renew deadline (${this.timings.renewDeadlineMs} ms since ${since})`;
      this.stopLeading(reason);
      this.endHold(reason);
      this.wake();
    };
    const check = () => {
      const left = deadline - this.clock();
      if (left > 0) {
        this.deadlineTimer = setTimeout(check, left);
        return;
      }
      this.deadlineTimer = undefined;
      expire();
    };
    this.expire = expire;
    this.deadlineTimer = setTimeout(check, Math.max(0, deadline - this.clock()));
  }

  /**
   * Ends the term and the hold now if the renew deadline of the last renewal has passed, as the deadline
   * timer does when it fires. The start gate calls it when it finds `holds()` false first: after a freeze
   * (SIGSTOP) or an event loop blocked by a handler, due timers and I/O callbacks run in an order of their
   * own, and work queued meanwhile must not wait for the timer to be told the term is over.
   */
  lapse(): void {
    const expire = this.expire;
    const writtenAt = this.writtenAt;
    if (!expire || writtenAt === undefined || this.clock() < writtenAt + this.timings.renewDeadlineMs) return;
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    expire();
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
