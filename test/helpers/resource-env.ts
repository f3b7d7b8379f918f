/** The policy parts of a ResourceEnv for unit tests: default marks and backoff, Events collected in memory. */
import type { EventSink } from '../../src/runtime/env.js';
import { DEFAULT_BACKOFF } from '../../src/runtime/error-policy.js';
import type { EventInput } from '../../src/runtime/observe/event-correlator.js';
import { DEFAULT_MARKS } from '../../src/runtime/reconcile/marks.js';

export interface CollectedEvents extends EventSink {
  recorded: EventInput[];
}

export function collectEvents(): CollectedEvents {
  const recorded: EventInput[] = [];
  return { recorded, record: (input) => void recorded.push(input) };
}

export function policyEnv(events: EventSink = collectEvents()) {
  return { marks: DEFAULT_MARKS, events, backoff: DEFAULT_BACKOFF };
}
