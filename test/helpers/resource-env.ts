/** The policy parts of a ResourceEnv for unit tests: default marks and backoff, Events collected in memory. */
import { defineResource } from '../../src/runtime/api/define.js';
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

/** The descriptor most runtime unit tests handle: `myresources.example.com/v1`, namespaced, with a status subresource. */
export function myResourceDescriptor() {
  return defineResource({
    group: 'example.com',
    version: 'v1',
    plural: 'myresources',
    kind: 'MyResource',
    scope: 'Namespaced',
    statusSubresource: true,
    printerColumns: [],
  });
}
