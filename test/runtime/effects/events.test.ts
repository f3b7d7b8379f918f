/** Warning Events about handler failures: which outcomes record one, and what it says. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventWorthy, outcomeEvent, warn } from '../../../src/runtime/effects/events.js';
import { createLogger } from '../../../src/runtime/effects/log.js';
import type { ResourceEnv } from '../../../src/runtime/env.js';
import type { KubeClient } from '../../../src/runtime/kube/client.js';
import type { Outcome } from '../../../src/runtime/reconcile/outcome.js';
import { collectEvents, policyEnv, myResourceDescriptor } from '../../helpers/resource-env.js';

const resource = myResourceDescriptor();
const body = {
  apiVersion: 'example.com/v1',
  kind: 'MyResource',
  metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '7' },
};

/** Events never reach the client here: the recorder is replaced by a collector. */
const unused: unknown = {};

function env() {
  const events = collectEvents();
  const exec: ResourceEnv = {
    client: unused as KubeClient,
    resource,
    logger: createLogger({ write: () => {} }),
    signal: new AbortController().signal,
    now: () => new Date('2026-01-01T00:00:00Z'),
    ...policyEnv(events),
  };
  return { exec, events };
}

describe('eventWorthy', () => {
  it('failures record an Event, except an attempt cut short by the shutdown', () => {
    const cases: { given: Outcome; want: boolean }[] = [
      { given: { kind: 'success' }, want: false },
      { given: { kind: 'ignored' }, want: false },
      { given: { kind: 'temporary', delay: 5 }, want: true },
      { given: { kind: 'temporary', delay: 0, interrupted: true }, want: false },
      { given: { kind: 'permanent' }, want: true },
    ];
    for (const { given, want } of cases) assert.equal(eventWorthy(given), want, JSON.stringify(given));
  });
});

describe('outcomeEvent', () => {
  it('hands the recorder a Warning naming the handler, the object and the retry; the same failure says the same', () => {
    const { exec, events } = env();
    outcomeEvent(exec, body, 'myapp', { kind: 'temporary', delay: 0, message: 'db down' });
    outcomeEvent(exec, body, 'myapp', { kind: 'temporary', delay: 0, message: 'db down' });
    outcomeEvent(exec, body, 'myapp', { kind: 'permanent', message: 'bad' });
    assert.deepEqual(
      events.recorded.map((e) => [e.type, e.reason, e.message]),
      [
        ['Warning', 'myappFailed', 'Handler myapp failed temporarily: db down, retry in 0s'],
        ['Warning', 'myappFailed', 'Handler myapp failed temporarily: db down, retry in 0s'],
        ['Warning', 'myappFailed', 'Handler myapp failed permanently: bad'],
      ],
    );
    assert.deepEqual(events.recorded[0].object, {
      apiVersion: 'example.com/v1',
      kind: 'MyResource',
      name: 'a',
      namespace: 'ns',
      uid: 'u1',
      resourceVersion: '7',
    });
  });
  it('a partial body (a store entry without apiVersion/kind) is referenced through the resource', () => {
    const { exec, events } = env();
    warn(exec, { metadata: { name: 'a', namespace: 'ns', uid: 'u1' } }, 'ReconcileFailed', 'x');
    assert.deepEqual(
      [events.recorded[0].object.apiVersion, events.recorded[0].object.kind],
      ['example.com/v1', 'MyResource'],
    );
  });
});
