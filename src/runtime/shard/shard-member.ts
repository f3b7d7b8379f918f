/**
 * One replica's part in sharing the hash ranges (ARCHITECTURE.md, "Scaling out"): the loop that performs
 * what `decideRange` decides. The member Lease is the leader elector's (leader/leader-elector.ts, on a
 * Lease of this replica's own): its renewals keep every range this replica holds, its renew deadline ends
 * them all (each range's term fence is laid over the member's, shard/range-holds.ts). While the member
 * term lasts, every retry period: one LIST of the namespace's Leases (lease-sightings.ts), the assignment
 * (assignment.ts), and per range the step (take and release are CAS writes on the Lease's resourceVersion;
 * a 409 is another replica's write, looked at again next time). A range assigned away is drained through
 * `onRangeDraining` before its release. On a stop every range drains and is released, then the member
 * Lease is released (the elector renews it meanwhile); a lost member hold ends every range at once.
 */
import type { Logger } from '../api/context.js';
import { KubeError } from '../kube/client.js';
import type { TermFence } from '../kube/fence.js';
import { LeaderElector, type LeaseClient } from '../leader/leader-elector.js';
import type { LeaderTimings } from '../leader/lease-decision.js';
import {
  leasePath,
  leasesPath,
  newLease,
  sameRecord,
  updatedLease,
  type Lease,
  type LeaseRecord,
} from '../leader/lease-record.js';
import { messageOf } from '../error-message.js';
import { assignRanges } from './assignment.js';
import { decideRange } from './range-decision.js';
import { RangeHolds } from './range-holds.js';
import { LeaseSightings, memberLeaseName, rangeLeaseName } from './lease-sightings.js';

/** What the runtime does with the ranges: a range term starts, drains before a hand-over, ends. */
export interface RangeCallbacks {
  /** This replica now holds `range`; `fence` is the range term's (closed when it ends). */
  onRangeStarted(range: number, fence: TermFence): void;
  /** Stop starting the range's work and let what runs finish; settles once drained. */
  onRangeDraining(range: number): Promise<void>;
  /** The range's term is over (released, lost, the member hold ended): forget its objects. */
  onRangeStopped(range: number, reason: string): void;
}

export interface ShardMemberOptions {
  client: LeaseClient;
  /** The operator's shard id (the Leases' name prefix). */
  id: string;
  namespace: string;
  identity: string;
  /** The number of ranges, K. */
  count: number;
  timings: LeaderTimings;
  logger: Logger;
  callbacks: RangeCallbacks;
  /** The monotonic clock of the member hold (tests). */
  monotonic?: () => number;
}

interface LeaseList {
  items?: Lease[];
}

export class ShardMember {
  readonly holds: RangeHolds;
  private readonly elector: LeaderElector;
  private readonly sightings: LeaseSightings;
  /** The record this replica last wrote on each range Lease (decideRange's `own`). */
  private readonly written = new Map<number, LeaseRecord>();
  /** Ranges draining: their drain settles `true` into `drained`. */
  private readonly draining = new Set<number>();
  private readonly drained = new Set<number>();

  constructor(private readonly options: ShardMemberOptions) {
    this.elector = new LeaderElector({
      client: options.client,
      name: memberLeaseName(options.id, options.identity),
      namespace: options.namespace,
      identity: options.identity,
      logger: options.logger,
      monotonic: options.monotonic,
      ...options.timings,
    });
    this.sightings = new LeaseSightings(options.id);
    this.holds = new RangeHolds(
      options.count,
      { fence: () => this.elector.fence(), lapse: () => this.elector.lapse() },
      (range) => `${options.namespace}/${rangeLeaseName(options.id, range)}`,
    );
  }

  /** Whether the member Lease is held now (every range held depends on it). */
  holdsMember(): boolean {
    return this.elector.holds();
  }

  /** Takes part until `signal` aborts; then drains and releases every range, then the member Lease. */
  run(signal: AbortSignal): Promise<void> {
    return this.elector.run(signal, {
      onStartedLeading: (member) => this.term(member, signal),
      onStoppedLeading: () => undefined,
    });
  }

  /** One member term: look and act every retry period until it ends. */
  private async term(member: AbortSignal, stop: AbortSignal): Promise<void> {
    const { retryPeriodMs } = this.options.timings;
    while (!member.aborted) {
      await this.look(false);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, retryPeriodMs);
        function done() {
          clearTimeout(timer);
          member.removeEventListener('abort', done);
          resolve();
        }
        member.addEventListener('abort', done, { once: true });
      });
    }
    if (stop.aborted && this.elector.holds()) {
      // A graceful stop: hand every range over (drained, released) while the member Lease is still renewed.
      while (this.holds.held().length > 0 && this.elector.holds()) {
        await this.look(true);
        await new Promise((resolve) => setTimeout(resolve, Math.min(retryPeriodMs, 250)));
      }
    }
    for (const range of this.holds.held()) this.end(range, 'this replica stopped holding its member lease');
  }

  /** One look: list the Leases, decide each range, act. `leaving`: nothing is assigned to this replica. */
  private async look(leaving: boolean): Promise<void> {
    const { client, namespace, count, identity, timings } = this.options;
    let listed: LeaseList;
    try {
      listed = await client.request<LeaseList>('GET', leasesPath({ namespace, name: '' }), {
        timeoutMs: timings.renewDeadlineMs,
      });
    } catch (error) {
      this.options.logger.warn(`listing the shard leases failed: ${messageOf(error)}`, { identity });
      return;
    }
    const now = Date.now();
    this.sightings.look(listed.items ?? [], now);
    const members = this.sightings.liveMembers(now, timings.leaseDurationMs).filter((m) => m !== identity || !leaving);
    if (!leaving && this.elector.holds() && !members.includes(identity)) members.push(identity);
    const assignment = assignRanges({ count, members, holders: this.sightings.holders(count) });
    const writes: Promise<void>[] = [];
    for (let range = 0; range < count; range++) {
      const name = rangeLeaseName(this.options.id, range);
      const sighting = this.sightings.get(name);
      const written = this.written.get(range);
      const own = !!sighting?.record && !!written && sameRecord(sighting.record, written);
      const step = decideRange({
        now,
        identity,
        timings,
        record: sighting?.record,
        observedAt: sighting?.observedAt ?? now,
        own,
        lastHolder: sighting?.lastHolder,
        memberObservedAt: (holder) => this.sightings.memberObservedAt(holder),
        assigned: assignment[range] === identity,
        holding: this.holds.held().includes(range),
        drained: this.drained.has(range),
      });
      if (step.kind === 'lost') this.end(range, `lease ${namespace}/${name} now names ${step.holder || 'nobody'}`);
      else if (step.kind === 'drain') this.drain(range);
      else if (step.kind === 'release' || step.kind === 'take') {
        writes.push(this.write(range, sighting?.lease, step.record, step.kind));
      }
    }
    await Promise.all(writes);
  }

  private drain(range: number): void {
    if (this.draining.has(range)) return;
    this.draining.add(range);
    this.holds.drain(range);
    void this.options.callbacks
      .onRangeDraining(range)
      .catch(() => undefined)
      .finally(() => {
        if (this.draining.has(range)) this.drained.add(range);
      });
  }

  /** A CAS write of range `range`'s Lease: a take (POST when it does not exist) or a release. */
  private async write(range: number, lease: Lease | undefined, record: LeaseRecord, kind: 'take' | 'release') {
    const { client, namespace, identity } = this.options;
    const ref = { namespace, name: rangeLeaseName(this.options.id, range) };
    // a take is only ever made while the member Lease is held: its renew deadline covers the new term
    if (kind === 'take' && !this.elector.holds()) return;
    try {
      const answer = lease
        ? await client.request<Lease>('PUT', leasePath(ref), { body: updatedLease(lease, record) })
        : await client.request<Lease>('POST', leasesPath(ref), { body: newLease(ref, record) });
      this.sightings.saw(answer, Date.now());
      this.written.set(range, record);
      if (kind === 'release') {
        this.end(range, `released lease ${namespace}/${ref.name}`);
        return;
      }
      const fence = this.holds.open(range);
      this.options.logger.info(`holding range ${range} (lease ${namespace}/${ref.name})`, { identity, range });
      this.options.callbacks.onRangeStarted(range, fence);
    } catch (error) {
      if (error instanceof KubeError && (error.status === 409 || error.status === 404)) return; // another was first
      this.options.logger.warn(`writing lease ${namespace}/${ref.name} failed: ${messageOf(error)}`, { identity });
    }
  }

  private end(range: number, reason: string): void {
    this.draining.delete(range);
    this.drained.delete(range);
    if (!this.holds.held().includes(range)) return;
    this.holds.close(range, reason);
    this.options.logger.info(`range ${range} handed over: ${reason}`, { identity: this.options.identity, range });
    this.options.callbacks.onRangeStopped(range, reason);
  }
}
