/** The one error policy: what every reconcile failure leads to (backoff, the handler's attempt, Event, log). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelay, DEFAULT_BACKOFF, errorPolicy, type Decision } from '../../src/runtime/error-policy.js';
import { KubeError } from '../../src/runtime/kube/client.js';
import {
  HandlerStepFailed,
  RequestFailed,
  StatusSubresourceMissing,
  Unserialisable,
  type Attribution,
} from '../../src/runtime/reconcile/failures.js';
import { myResourceDescriptor } from '../helpers/resource-env.js';

const resource = myResourceDescriptor();
const now = new Date('2026-01-01T00:00:10Z');
const object = { metadata: { name: 'a', namespace: 'x', uid: 'u1' } };
const request = (verb: string, plural: string, namespace?: string) => ({
  verb,
  resource: plural,
  group: 'example.com',
  namespace,
  name: 'a',
});

const forbidden = new RequestFailed(
  request('patch', 'myresources/status', 'x'),
  403,
  'User "op" cannot patch resource "myresources/status"',
);
const tooLong = new RequestFailed(
  request('patch', 'myresources', 'x'),
  422,
  'MyResource.example.com "a" is invalid: metadata.annotations: Too long: must have at most 262144 bytes',
);
const invalid = new RequestFailed(request('patch', 'myresources', 'x'), 422, 'spec.replicas: Invalid value: "string"');
const clusterForbidden = new RequestFailed(request('patch', 'clusterthings', undefined), 403, 'no');
const badRequest = new RequestFailed(request('patch', 'myresources', 'x'), 400, 'bad patch');
const handler = (over: Partial<Attribution> = {}): Attribution => ({
  id: 'myapp',
  key: 'myapp',
  cause: 'create',
  options: {},
  record: undefined,
  started: now.toISOString(),
  outcome: 'success',
  ...over,
});

function decide(error: unknown, failures: number): Decision {
  return errorPolicy({ error, resource, object, failures, now });
}

describe('backoffDelay', () => {
  it("defaults to 1 s doubling per failure in a row, capped at 610 s (kopf's throttler range)", () => {
    assert.deepEqual(DEFAULT_BACKOFF, { baseMs: 1000, maxMs: 610_000 });
    const seconds = Array.from({ length: 12 }, (_, i) => backoffDelay(i + 1) / 1000);
    assert.deepEqual(seconds, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 610, 610]);
    assert.equal(backoffDelay(10_000), 610_000, 'no overflow after many failures');
    assert.equal(backoffDelay(3, { baseMs: 5, maxMs: 1_000_000 }), 20, "controller-runtime's settings work too");
  });
  it('at most six attempts in the first minute with the defaults', () => {
    let at = 0;
    let attempts = 0;
    for (let failures = 1; at <= 60_000; failures++) {
      attempts++;
      at += backoffDelay(failures);
    }
    assert.equal(attempts, 6);
  });
});

describe('errorPolicy: failures no handler attempt owns', () => {
  const cases: {
    name: string;
    error: unknown;
    failures: number;
    want: { kind: string; afterMs: number; reason: string };
  }[] = [
    {
      name: '403 names the verb, resource and namespace',
      error: forbidden,
      failures: 1,
      want: {
        kind: 'forbidden',
        afterMs: 1000,
        reason: "forbidden: patch on myresources/status in namespace x — grant it in the operator's Role",
      },
    },
    {
      name: '403 on a cluster-scoped resource points at the ClusterRole',
      error: clusterForbidden,
      failures: 2,
      want: {
        kind: 'forbidden',
        afterMs: 2000,
        reason: "forbidden: patch on clusterthings cluster-wide — grant it in the operator's ClusterRole",
      },
    },
    {
      name: '422 annotations too long',
      error: tooLong,
      failures: 3,
      want: {
        kind: 'annotations-too-large',
        afterMs: 4000,
        reason: `patch on myresources rejected: the object's annotations would exceed 256 KiB (${tooLong.serverMessage})`,
      },
    },
    {
      name: 'another 422',
      error: invalid,
      failures: 4,
      want: {
        kind: 'invalid',
        afterMs: 8000,
        reason: `patch on myresources rejected as invalid: ${invalid.serverMessage}`,
      },
    },
    {
      name: 'another 4xx',
      error: badRequest,
      failures: 5,
      want: {
        kind: 'client',
        afterMs: 16_000,
        reason: 'patch on myresources answered 400, retrying alone will not fix it: bad patch',
      },
    },
    {
      name: 'a status subresource missing in the cluster',
      error: new StatusSubresourceMissing('myresources.example.com/v1'),
      failures: 11,
      want: {
        kind: 'status-missing',
        afterMs: 610_000,
        reason: new StatusSubresourceMissing('myresources.example.com/v1').message,
      },
    },
    {
      name: 'a bare KubeError',
      error: new KubeError('GET /x: 500 oops', 500, undefined),
      failures: 1,
      want: { kind: 'transient', afterMs: 1000, reason: 'a request answered 500: GET /x: 500 oops' },
    },
    {
      name: 'a network error',
      error: new Error('socket hang up'),
      failures: 1,
      want: { kind: 'transient', afterMs: 1000, reason: 'socket hang up' },
    },
  ];
  for (const { name, error, failures, want } of cases) {
    it(name, () => {
      const decision = decide(error, failures);
      assert.deepEqual({ kind: decision.kind, afterMs: decision.delayMs, reason: decision.reason }, want);
      assert.deepEqual(decision.action, { kind: 'requeue', afterMs: want.afterMs });
      assert.equal(decision.handler, undefined);
      assert.deepEqual(decision.event, { reason: 'ReconcileFailed', message: `Processing failed: ${want.reason}` });
      assert.equal(
        decision.log,
        `processing failed, retrying in ${want.afterMs / 1000}s (failure ${failures} in a row): ${want.reason}`,
      );
    });
  }
});

describe("errorPolicy: a failure during a handler's attempt counts as an attempt of it", () => {
  const step = (error: unknown, over: Partial<Attribution> = {}) => new HandlerStepFailed(handler(over), error);
  const record = {
    started: '2026-01-01T00:00:00Z',
    purpose: 'create' as const,
    retries: 2,
    delayed: '2026-01-01T00:00:05Z',
    message: 'x',
  };
  const cases: {
    name: string;
    error: HandlerStepFailed;
    failures: number;
    want: {
      retries: number;
      delayed?: string;
      failure?: boolean;
      final: boolean;
      afterMs: number;
      event: string;
      log: string;
    };
  }[] = [
    {
      name: 'first attempt, 403 on /status: a temporary failure delayed by the backoff',
      error: step(forbidden),
      failures: 1,
      want: {
        retries: 1,
        delayed: '2026-01-01T00:00:11.000Z',
        final: false,
        afterMs: 1000,
        event:
          "Handler myapp failed: forbidden: patch on myresources/status in namespace x — grant it in the operator's Role",
        log: "handler myapp failed: forbidden: patch on myresources/status in namespace x — grant it in the operator's Role (attempt 1), retrying in 1s (failure 1 in a row)",
      },
    },
    {
      name: 'third attempt, a BigInt result: same Event message as before, longer backoff',
      error: step(new Unserialisable('Do not know how to serialize a BigInt'), { record }),
      failures: 3,
      want: {
        retries: 3,
        delayed: '2026-01-01T00:00:14.000Z',
        final: false,
        afterMs: 4000,
        event:
          "Handler myapp failed: the handler's result cannot be written as JSON: Do not know how to serialize a BigInt",
        log: "handler myapp failed: the handler's result cannot be written as JSON: Do not know how to serialize a BigInt (attempt 3), retrying in 4s (failure 3 in a row)",
      },
    },
    {
      name: 'retries: 3 reached — the attempt ends the handler for good',
      error: step(tooLong, { record, options: { retries: 3 } }),
      failures: 3,
      want: {
        retries: 3,
        failure: true,
        final: true,
        afterMs: 4000,
        event: `Handler myapp failed permanently: patch on myresources rejected: the object's annotations would exceed 256 KiB (${tooLong.serverMessage}) (gave up after 3 attempt(s))`,
        log: `handler myapp failed permanently: patch on myresources rejected: the object's annotations would exceed 256 KiB (${tooLong.serverMessage}) (gave up after 3 attempt(s)) (attempt 3), not retrying it`,
      },
    },
    {
      name: 'timeout: 12 s passes before the backoff ends — the attempt ends the handler',
      error: step(forbidden, { record, options: { timeout: 12 } }),
      failures: 3,
      want: {
        retries: 3,
        failure: true,
        final: true,
        afterMs: 4000,
        event:
          "Handler myapp failed permanently: forbidden: patch on myresources/status in namespace x — grant it in the operator's Role (timed out after 12s)",
        log: "handler myapp failed permanently: forbidden: patch on myresources/status in namespace x — grant it in the operator's Role (timed out after 12s) (attempt 3), not retrying it",
      },
    },
    {
      name: "a first attempt's write failing 36 s after the attempt started, timeout: 30 — the failure ends it (its start is the attempt's, not the failure's)",
      error: step(
        new RequestFailed(request('patch', 'myresources/status', 'x'), 500, 'etcdserver: request is too large'),
        {
          started: '2025-12-31T23:59:34.000Z',
          options: { timeout: 30 },
        },
      ),
      failures: 1,
      want: {
        retries: 1,
        failure: true,
        final: true,
        afterMs: 1000,
        event:
          'Handler myapp failed permanently: patch on myresources/status answered 500: etcdserver: request is too large (timed out after 30s)',
        log: 'handler myapp failed permanently: patch on myresources/status answered 500: etcdserver: request is too large (timed out after 30s) (attempt 1), not retrying it',
      },
    },
    {
      name: 'a PermanentError whose recording failed stays permanent',
      error: step(forbidden, { outcome: 'permanent' }),
      failures: 1,
      want: {
        retries: 1,
        failure: true,
        final: true,
        afterMs: 1000,
        event:
          "Handler myapp failed permanently: forbidden: patch on myresources/status in namespace x — grant it in the operator's Role",
        log: "handler myapp failed permanently: forbidden: patch on myresources/status in namespace x — grant it in the operator's Role (attempt 1), not retrying it",
      },
    },
  ];
  for (const { name, error, failures, want } of cases) {
    it(name, () => {
      const decision = decide(error, failures);
      const got = decision.handler;
      assert.ok(got);
      assert.deepEqual(
        {
          retries: got.record.retries,
          delayed: got.record.delayed,
          failure: got.record.failure,
          final: got.final,
          afterMs: decision.delayMs,
          event: decision.event.message,
          log: decision.log,
        },
        { delayed: undefined, failure: undefined, ...want },
      );
      assert.equal(
        got.record.started,
        new Date(error.handler.record?.started ?? error.handler.started).toISOString(),
        "the first attempt's start is kept, for timeout",
      );
      assert.equal(decision.event.reason, 'myappFailed');
      assert.deepEqual(decision.action, { kind: 'requeue', afterMs: want.afterMs });
    });
  }
});
