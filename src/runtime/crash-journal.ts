/**
 * The poison-pill guard's record of attempts in flight (kopf has none: a handler that crashes the process
 * crash-loops it for ever). The leader writes the changing handlers' attempts under way into its Lease
 * with every renewal (an annotation: no write of its own); a replica that takes over a lease its holder
 * did not release reads it back, and each attempt named there that the object has not recorded since
 * counts as a failed attempt of its handler ("the operator process ended during this attempt"), so the
 * handler's `retries` and `timeout` end a handler that kills the process. An attempt shorter than a
 * renewal may miss the journal: the new leader therefore runs guarded for a while, writing the journal
 * (a Lease renewal) before each batch of attempts starts, so the next crash is on record for certain.
 */
import type { AttemptInfo } from './attempts.js';
import type { Cause } from './api/registry.js';

/** At most this many attempts are journaled (the oldest first: long runs are the likelier culprits). */
export const JOURNAL_LIMIT = 100;

/** How long a leader that took over an unreleased lease writes the journal before each attempt. */
export const GUARDED_MS = 60_000;

/** An attempt named in a previous leader's journal. */
export interface Suspect {
  /** `<plural>.<group>/<version>`. */
  resource: string;
  uid: string;
  key: string;
  cause: Cause;
  attempt: number;
  /** ISO time the attempt started. */
  started: string;
}

const CAUSES = new Set<string>(['create', 'update', 'delete', 'resume', 'field']);

/** The journal's text: one compact row per changing handler's attempt, or undefined when none runs. */
export function encodeJournal(attempts: readonly AttemptInfo[]): string | undefined {
  const rows = attempts
    .filter((a) => !a.spawned)
    .slice(0, JOURNAL_LIMIT)
    .map((a) => [a.resource, a.uid, a.key, a.cause, a.attempt, a.started.toISOString()]);
  return rows.length ? JSON.stringify(rows) : undefined;
}

/** The attempts a journal names; rows it cannot read are skipped (a hand edit, another version). */
export function decodeJournal(text: string | undefined): Suspect[] {
  if (!text) return [];
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(rows)) return [];
  return rows.flatMap((row: unknown) => {
    if (!Array.isArray(row) || row.length < 6) return [];
    const [resource, uid, key, cause, attempt, started] = row as unknown[];
    const strings = [resource, uid, key, cause, started].every((v) => typeof v === 'string');
    if (!strings || typeof attempt !== 'number' || !CAUSES.has(String(cause))) return [];
    return [
      {
        resource: String(resource),
        uid: String(uid),
        key: String(key),
        cause: cause as Cause,
        attempt,
        started: String(started),
      },
    ];
  });
}

/** The suspects of one resource, by object uid. */
export function suspectsOf(suspects: readonly Suspect[], resource: string): Map<string, Suspect[]> {
  const byUid = new Map<string, Suspect[]>();
  for (const suspect of suspects) {
    if (suspect.resource !== resource) continue;
    byUid.set(suspect.uid, [...(byUid.get(suspect.uid) ?? []), suspect]);
  }
  return byUid;
}

/** What a term knows of crashes before it: the suspects it inherited, and whether it runs guarded. */
export interface CrashGuard {
  suspects: readonly Suspect[];
  /** Whether attempts must be journaled before they start (the term began after a crash). */
  guarded(): boolean;
  /** Writes the journal now (a Lease renewal); resolves false when it could not. */
  record(): Promise<boolean>;
}
