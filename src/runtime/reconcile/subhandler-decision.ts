/**
 * Which sub-handler of a parent's attempt runs, pure (kopf's `kopf.execute` over the sub-handlers'
 * `progression.State` with the default `asap` lifecycle): from the sub-handlers registered in this
 * attempt and their progress records, the one to run (awake, fewest attempts first), the one whose
 * limits ran out (recorded as failed without running), the time to wait until, or done (every one
 * finished; those that failed for good named). The parent is retried until it is done.
 */
import type { Cause } from '../api/registry.js';
import type { SubhandlerOptions } from '../api/subhandler-api.js';
import { exhausted } from './outcome.js';
import { currentProgress, isFinished, type ProgressRecord } from './progress.js';

export interface SubhandlerEntry {
  id: string;
  options: SubhandlerOptions;
}

export interface SubhandlerInput {
  /** The parent's handler key (progress.ts `handlerKey`). */
  parentKey: string;
  cause: Cause;
  /** In registration order. */
  subhandlers: readonly SubhandlerEntry[];
  /** A sub-handler's record by its key (`subhandlerKey`), as the object holds it (any cause). */
  records: (key: string) => ProgressRecord | undefined;
  now: Date;
}

export type SubhandlerStep =
  | { kind: 'run'; id: string; key: string; record: ProgressRecord | undefined }
  | { kind: 'fail'; id: string; key: string; record: ProgressRecord; message: string }
  | { kind: 'wait'; until: Date }
  | { kind: 'done'; failures: { id: string; message: string }[] };

/** A sub-handler's key, the key of its progress record: kopf's sub-handler id `<parent id>/<sub id>`. */
export function subhandlerKey(parentKey: string, id: string): string {
  return `${parentKey}/${id}`;
}

export function decideSubhandler(input: SubhandlerInput): SubhandlerStep {
  let earliest: Date | undefined;
  let best: Extract<SubhandlerStep, { kind: 'run' }> | undefined;
  const failures: { id: string; message: string }[] = [];
  for (const { id, options } of input.subhandlers) {
    const key = subhandlerKey(input.parentKey, id);
    const record = currentProgress(input.records(key), input.cause);
    if (isFinished(record)) {
      if (record?.failure) failures.push({ id, message: record.message ?? 'failed' });
      continue;
    }
    const reason = exhausted(options, record, input.now);
    if (record && reason) return { kind: 'fail', id, key, record, message: reason };
    const delayed = record?.delayed ? new Date(record.delayed) : undefined;
    if (delayed && delayed > input.now) {
      if (!earliest || delayed < earliest) earliest = delayed;
      continue;
    }
    if (!best || (record?.retries ?? 0) < (best.record?.retries ?? 0)) best = { kind: 'run', id, key, record };
  }
  if (best) return best;
  if (earliest) return { kind: 'wait', until: earliest };
  return { kind: 'done', failures };
}

/**
 * Seconds until the parent should run again for `step` (decided after this attempt's sub-handler):
 * at once while a sub-handler is due, else when the earliest delayed one wakes; undefined when done.
 */
export function parentDelay(step: SubhandlerStep, now: Date): number | undefined {
  if (step.kind === 'done') return undefined;
  if (step.kind === 'wait') return Math.max(0, (step.until.getTime() - now.getTime()) / 1000);
  return 0;
}
