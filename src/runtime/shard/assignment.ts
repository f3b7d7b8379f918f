/**
 * Which live member should hold each hash range (ARCHITECTURE.md, "Scaling out"), computed by every
 * replica from what it sees: the live members and the current holder of each range. Balanced: each member
 * gets ⌈K/N⌉ or ⌊K/N⌋ ranges. Sticky: a member keeps what it holds up to its quota, and the ⌈K/N⌉ quotas
 * go to the members holding most, so a join moves only what the newcomer gets and a leave only what the
 * leaver held (consistent hashing's minimal movement with bounded loads, without a ring's uneven shares
 * at small N). Ties are broken by rendezvous hashing (highest random weight: FNV-1a of member and range),
 * so replicas that see the same inputs compute the same answer. Pure.
 */
import { fnv1a64 } from './ranges.js';

export interface AssignmentInput {
  /** The number of ranges, K. */
  count: number;
  /** The live members' identities (order does not matter). */
  members: readonly string[];
  /** The current holder of each range by index (undefined or '' when none); holders not live are ignored. */
  holders: readonly (string | undefined)[];
}

/** A member's rendezvous weight for a range: higher ranks first. */
function weight(member: string, range: number): bigint {
  return fnv1a64(`${member}\u0000${range}`);
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The member each range should be held by (index → identity); every range undefined when no member lives. */
export function assignRanges(input: AssignmentInput): (string | undefined)[] {
  const { count } = input;
  const members = [...new Set(input.members)].sort(byName);
  if (members.length === 0) return Array.from({ length: count }, () => undefined);
  const live = new Set(members);
  const held = new Map<string, number[]>(members.map((m) => [m, []]));
  for (let range = 0; range < count; range++) {
    const holder = input.holders[range];
    if (holder && live.has(holder)) held.get(holder)?.push(range);
  }
  const lower = Math.floor(count / members.length);
  const extra = count % members.length;
  // The ⌈K/N⌉ quotas go to the members that hold most now: nobody who keeps its ranges must shed one.
  const ranked = [...members].sort((a, b) => (held.get(b)?.length ?? 0) - (held.get(a)?.length ?? 0) || byName(a, b));
  const quota = new Map(ranked.map((m, i) => [m, lower + (i < extra ? 1 : 0)]));
  const owner: (string | undefined)[] = Array.from({ length: count }, () => undefined);
  const load = new Map(members.map((m) => [m, 0]));
  for (const member of members) {
    const mine = held.get(member) ?? [];
    const kept = [...mine].sort((a, b) => compare(weight(member, b), weight(member, a)) || a - b);
    for (const range of kept.slice(0, quota.get(member) ?? 0)) owner[range] = member;
    load.set(member, Math.min(mine.length, quota.get(member) ?? 0));
  }
  for (let range = 0; range < count; range++) {
    if (owner[range] !== undefined) continue;
    let best: string | undefined;
    for (const member of members) {
      if ((load.get(member) ?? 0) >= (quota.get(member) ?? 0)) continue;
      if (best === undefined || compare(weight(member, range), weight(best, range)) > 0) best = member;
    }
    owner[range] = best;
    if (best !== undefined) load.set(best, (load.get(best) ?? 0) + 1);
  }
  return owner;
}

function compare(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
