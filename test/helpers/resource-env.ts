/** The policy parts of a ResourceEnv for unit tests: default marks and backoff, Events collected in memory. */
import { defineResource } from '../../src/runtime/api/define.js';
import type { EventSink, ResourceEnv } from '../../src/runtime/env.js';
import { createLogger } from '../../src/runtime/effects/log.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
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

/**
 * A whole ResourceEnv for unit tests: `client`, the MyResource descriptor, a silent logger, a signal
 * never aborted, the wall clock, the policy parts; `over` replaces any of them.
 */
export function quietEnv(client: KubeClient, over: Partial<ResourceEnv> = {}): ResourceEnv {
  return {
    client,
    resource: myResourceDescriptor(),
    logger: createLogger({ write: () => {} }),
    signal: new AbortController().signal,
    now: () => new Date(),
    ...policyEnv(),
    ...over,
  };
}
