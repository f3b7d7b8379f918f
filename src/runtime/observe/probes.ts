/**
 * The answers of `/healthz` and `/readyz` from the runtime's state, as pure functions the health server's
 * providers call. Liveness (kopf's `--liveness`, controller-runtime's healthz) fails only for what a restart
 * cures: a watch that has been silent longer than the stall limit, so a dead connection the watch loop did not
 * notice restarts the pod. Readiness (readyz) says the replica has taken its place: a standby is ready (it
 * waits by design), a leader is ready once every watch has listed, as controller-runtime waits for cache sync.
 */
import type { ProbeResult } from './health-server.js';

export interface WatchState {
  /** As the runtime names it in logs and metrics, e.g. `myresources.example.com/v1`. */
  resource: string;
  /** The initial list finished. */
  listed: boolean;
  /** The last event, bookmark, list or successful reconnect; undefined before the first. */
  lastSeen?: Date;
}

export type Role = 'starting' | 'standby' | 'leader';

/** A watch that sees nothing for this long is taken as dead: API servers send a bookmark about once a minute. */
export const DEFAULT_STALL_SECONDS = 90;

/**
 * `others`: problems found elsewhere that a restart cures, e.g. leader election that has not reached its
 * Lease for longer than the lease duration (leader-elector.ts `problem`).
 */
export function liveness(
  watches: readonly WatchState[],
  now: Date,
  stallSeconds = DEFAULT_STALL_SECONDS,
  others: readonly string[] = [],
): ProbeResult {
  const problems = watches.flatMap((w) => {
    const silentMs = w.lastSeen ? now.getTime() - w.lastSeen.getTime() : 0;
    if (silentMs <= stallSeconds * 1000) return [];
    return [`watch ${w.resource}: nothing received for ${Math.floor(silentMs / 1000)} s (limit ${stallSeconds} s)`];
  });
  problems.push(...others);
  return { ok: problems.length === 0, problems };
}

export function readiness(role: Role, watches: readonly WatchState[]): ProbeResult {
  if (role === 'starting') return { ok: false, problems: ['leader election: neither leader nor standby yet'] };
  if (role === 'standby') return { ok: true, problems: [] };
  const problems = watches
    .filter((w) => !w.listed)
    .map((w) => `watch ${w.resource}: the initial list has not finished`);
  return { ok: problems.length === 0, problems };
}
