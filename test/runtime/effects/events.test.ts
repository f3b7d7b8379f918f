/** Warning Events about handler failures: which outcomes record one, and what it says. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventWorthy, exceptionEvent, outcomeEvent, postEvent, warn } from '../../../src/runtime/effects/events.js';
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
  it("with the operator's successEvents, a success records one too (kopf's posting); an interruption still none", () => {
    assert.equal(eventWorthy({ kind: 'success' }, true), true);
    assert.equal(eventWorthy({ kind: 'temporary', delay: 0, interrupted: true }, true), false);
    const { exec, events } = env();
    outcomeEvent(exec, body, 'myapp', { kind: 'success' });
    assert.deepEqual(
      events.recorded.map((e) => [e.type, e.reason, e.message]),
      [['Normal', 'myappSucceeded', 'Handler myapp succeeded']],
    );
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

describe("postEvent (a handler's ctx.event/info/warn/exception)", () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'a-x1', namespace: 'ns', uid: 'p1' },
  };
  it('posts one Event per object: this one (its kind from the resource when absent) and another as given', () => {
    const { exec, events } = env();
    postEvent(exec, body, [{ metadata: body.metadata }, pod], { type: 'Normal', reason: 'Created' });
    assert.deepEqual(
      events.recorded.map((e) => [e.object.kind, e.object.name, e.object.uid, e.type, e.reason, e.message]),
      [
        ['MyResource', 'a', 'u1', 'Normal', 'Created', ''],
        ['Pod', 'a-x1', 'p1', 'Normal', 'Created', ''],
      ],
    );
  });
  it('another object without apiVersion or kind cannot be referenced: logged, not posted', () => {
    const lines: string[] = [];
    const { exec, events } = env();
    exec.logger = createLogger({ write: (line) => void lines.push(line) });
    postEvent(exec, body, { metadata: pod.metadata }, { type: 'Warning', reason: 'Odd', message: 'x' });
    assert.deepEqual(events.recorded, []);
    assert.match(lines.join('\n'), /an Event \(Odd\) about a-x1 not posted: the object has no apiVersion or kind/);
  });
  it("exceptionEvent: kopf's kopf.exception (the reason defaults to the error's name, its message follows the message)", () => {
    const cases: { given: Parameters<typeof exceptionEvent>; want: ReturnType<typeof exceptionEvent> }[] = [
      {
        given: [new RangeError('too far'), undefined, undefined],
        want: { type: 'Warning', reason: 'RangeError', message: 'too far' },
      },
      {
        given: [new Error('boom'), 'Failed', 'while creating:'],
        want: { type: 'Warning', reason: 'Failed', message: 'while creating: boom' },
      },
      { given: ['a string', '', undefined], want: { type: 'Warning', reason: 'Error', message: 'a string' } },
    ];
    for (const { given, want } of cases) assert.deepEqual(exceptionEvent(...given), want);
  });
});
