/**
 * What a replica has seen of the shard Leases (ARCHITECTURE.md, "Scaling out"): one list of the Leases of
 * the namespace per look gives, for each member and range Lease, its record, when this replica saw it
 * change last (client-go's observedTime: expiry is judged on our clock from then, never by the renewTime
 * another node wrote) and the holder seen before a Lease went missing. From that come the live members
 * (their member Lease changed within a lease duration) and each range's holder, the inputs of
 * `assignRanges` and `decideRange`. Pure but for the state it keeps between looks.
 */
import { createHash } from 'node:crypto';
import { isRelease } from '../leader/lease-decision.js';
import { recordOf, sameRecord, type Lease, type LeaseRecord } from '../leader/lease-record.js';

export interface Sighting {
  record: LeaseRecord | undefined;
  /** Local epoch ms at which the record last changed as seen here (or went missing, or was first seen). */
  observedAt: number;
  /** The holder seen before the record now observed (a Lease gone missing is held by it for a while). */
  lastHolder: string | undefined;
  /** The Lease as listed (for a CAS write on its resourceVersion); undefined when missing. */
  lease: Lease | undefined;
}

/** Range i's Lease: `<id>-r<i>` (two digits at least, so the names sort). */
export function rangeLeaseName(id: string, range: number): string {
  return `${id}-r${String(range).padStart(2, '0')}`;
}

/**
 * A member's Lease: `<id>-m-` and its identity made a DNS label (lowercase, `-` for anything else) with a
 * short hash of the identity itself, so identities that differ only in case or punctuation stay apart.
 */
export function memberLeaseName(id: string, identity: string): string {
  const readable = identity
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  const hash = createHash('sha256').update(identity).digest('hex').slice(0, 8);
  return `${id}-m-${readable ? `${readable}-` : ''}${hash}`;
}

export class LeaseSightings {
  private readonly seen = new Map<string, Sighting>();
  /** When the first look was made: a Lease never listed has been missing since then, as far as we know. */
  private firstLook: number | undefined;

  constructor(
    /** The operator's shard id (the Leases' name prefix). */
    private readonly id: string,
  ) {}

  /**
   * One look: the Leases listed at `now` (those not of this operator are ignored). A record unchanged since
   * the last look keeps its observed time; a Lease gone from the list is seen missing from now.
   */
  look(leases: readonly Lease[], now: number): void {
    this.firstLook ??= now;
    const listed = new Set<string>();
    for (const lease of leases) if (this.saw(lease, now)) listed.add(lease.metadata.name);
    for (const [name, before] of this.seen) {
      if (listed.has(name) || before.record === undefined) continue;
      this.seen.set(name, {
        record: undefined,
        observedAt: now,
        lastHolder: before.record.holderIdentity,
        lease: undefined,
      });
    }
  }

  /** One Lease as read or as a write answered it; false when it is not one of this operator's. */
  saw(lease: Lease, now: number): boolean {
    const name = lease.metadata.name;
    if (!name.startsWith(`${this.id}-`)) return false;
    const record = recordOf(lease);
    const before = this.seen.get(name);
    const unchanged = before?.record !== undefined && sameRecord(before.record, record);
    this.seen.set(name, {
      record,
      observedAt: unchanged && before ? before.observedAt : now,
      lastHolder: unchanged ? before?.lastHolder : (before?.record?.holderIdentity ?? before?.lastHolder),
      lease,
    });
    return true;
  }

  get(name: string): Sighting | undefined {
    return this.seen.get(name);
  }

  /**
   * The members alive as seen at `now`: a member Lease with a holder, not released, that changed within
   * the longer of its own duration and `leaseDurationMs` (an edit shortening it shortens nothing).
   */
  liveMembers(now: number, leaseDurationMs: number): string[] {
    const live: string[] = [];
    for (const [name, sighting] of this.seen) {
      const record = sighting.record;
      if (!name.startsWith(`${this.id}-m-`) || !record?.holderIdentity || isRelease(record)) continue;
      const duration = Math.max(record.leaseDurationSeconds * 1000, leaseDurationMs);
      if (now < sighting.observedAt + duration) live.push(record.holderIdentity);
    }
    return live.sort();
  }

  /**
   * When the member with this identity last renewed as seen here (its member Lease's observed time); for
   * a member Lease never listed, the first look (missing since then); undefined before any look.
   */
  memberObservedAt(identity: string): number | undefined {
    return this.seen.get(memberLeaseName(this.id, identity))?.observedAt ?? this.firstLook;
  }

  /** The holder each range's Lease names now ('' or undefined when released, missing or never seen). */
  holders(count: number): (string | undefined)[] {
    return Array.from({ length: count }, (_, range) => {
      const record = this.seen.get(rangeLeaseName(this.id, range))?.record;
      return record && !isRelease(record) ? record.holderIdentity || undefined : undefined;
    });
  }
}
