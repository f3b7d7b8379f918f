/** One handler attempt: its context, its timeout, a shutdown that interrupts it, and what it came to. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, Registry, TemporaryError } from '../../../src/runtime/index.js';
import type { HandlerContext } from '../../../src/runtime/api/context.js';
import {
  callSpawned,
  failWithoutRunning,
  runHandler,
  unserialisable,
} from '../../../src/runtime/effects/handler-call.js';
import { Unserialisable } from '../../../src/runtime/reconcile/failures.js';
import { createLogger } from '../../../src/runtime/effects/log.js';
import type { ResourceEnv } from '../../../src/runtime/env.js';
import type { KubeClient } from '../../../src/runtime/kube/client.js';
import type { RunStep } from '../../../src/runtime/reconcile/decide.js';
import { policyEnv, myResourceDescriptor } from '../../helpers/resource-env.js';
import { DEFAULT_MARKS } from '../../../src/runtime/reconcile/marks.js';
import { StartRefused, type StartGate } from '../../../src/runtime/start-gate.js';

const resource = myResourceDescriptor();
const body = {
  apiVersion: 'example.com/v1',
  kind: 'MyResource',
  metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '5' },
  spec: { image: 'nginx' },
};

function setup(
  fn: (context: HandlerContext<unknown>) => unknown,
  options: { timeout?: number; retries?: number; status?: 'merge' | 'replace' } = {},
) {
  const registry = new Registry();
  defineHandler(resource, 'myapp').onCreate(fn, { registry, ...options });
  const handler = registry.handlers[0];
  const step: RunStep = {
    kind: 'run',
    handler,
    key: 'myapp',
    cause: 'create',
    record: undefined,
    diff: [],
    old: undefined,
    new: undefined,
  };
  const abort = new AbortController();
  const env: ResourceEnv = {
    client: {} as KubeClient,
    resource,
    logger: createLogger({ write: () => {} }),
    signal: abort.signal,
    now: () => new Date(),
    ...policyEnv(),
  };
  return { step, env, abort };
}

describe('runHandler', () => {
  it("status: 'replace' nulls the keys of status.<id> the payload lacks; 'merge' leaves them", async () => {
    const held = { ...body, metadata: { ...body.metadata, finalizers: ['kopfgen.dev/finalizer'] } };
    const withReason = { ...held, status: { myapp: { phase: 'Pending', reason: 'db' } } };
    const replace = setup(() => ({ phase: 'Ok' }), { status: 'replace' });
    assert.deepEqual((await runHandler(replace.env, replace.step, withReason)).patch.status, {
      myapp: { phase: 'Ok', reason: null },
    });
    const merge = setup(() => ({ phase: 'Ok' }));
    assert.deepEqual((await runHandler(merge.env, merge.step, withReason)).patch.status, { myapp: { phase: 'Ok' } });
    const finalizers = setup((context) => {
      context.patch.metadata.finalizers = ['example.com/cleanup'];
    });
    const written = (await runHandler(finalizers.env, finalizers.step, held)).patch.metadata?.finalizers;
    assert.deepEqual(written, ['example.com/cleanup', 'kopfgen.dev/finalizer'], "the operator's own finalizer kept");
  });
  it('gives the handler a copy of the object, its names, a patch to edit; the result is the status', async () => {
    let seen: HandlerContext<unknown> | undefined;
    const { step, env } = setup((context) => {
      seen = context;
      context.patch.metadata.labels = { stage: 'one' };
      return { phase: 'Ok' };
    });
    const result = await runHandler(env, step, body);
    const names = [seen?.name, seen?.namespace, seen?.uid, seen?.cause, seen?.retry];
    assert.deepEqual(names, ['a', 'ns', 'u1', 'create', 0]);
    assert.notEqual(seen?.body, body, 'a copy');
    assert.equal(result.outcome.kind, 'success');
    assert.deepEqual(result.patch.status, { myapp: { phase: 'Ok' } });
    assert.deepEqual(result.patch.metadata?.labels, { stage: 'one' });
    assert.equal(result.record.success, true);
  });
  it('a handler past its timeout fails permanently and its signal is aborted', async () => {
    let signal: AbortSignal | undefined;
    const { step, env } = setup(
      (context) => {
        signal = context.signal;
        return new Promise((resolve) => context.signal.addEventListener('abort', resolve)); // honours its signal
      },
      { timeout: 0.02 },
    );
    const result = await runHandler(env, step, body);
    assert.deepEqual([result.outcome.kind, result.outcome.message], ['permanent', 'timed out after 0.02s']);
    assert.equal(signal?.aborted, true);
  });
  it('a timed-out attempt that ignores its signal: its outcome comes at once, `ended` only when the handler ends', async () => {
    let ended = false;
    let release = () => {};
    const { step, env } = setup(
      async () => {
        await new Promise<void>((resolve) => (release = resolve)); // ignores its signal
        ended = true;
        return { phase: 'late' };
      },
      { timeout: 0.02 },
    );
    const result = await runHandler(env, step, body);
    assert.deepEqual([result.outcome.kind, result.outcome.message], ['permanent', 'timed out after 0.02s']);
    assert.equal(result.record.failure, true, 'recorded as a failure at once, to be written while the handler runs on');
    assert.equal(ended, false, 'returned while the handler still runs');
    release();
    assert.ok(result.ended);
    await result.ended;
    assert.equal(ended, true);
  });
  it('a handler that gives up because the operator stops is retried at once, without an Event', async () => {
    const { step, env, abort } = setup(
      (context) =>
        new Promise((_, reject) => {
          context.signal.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    );
    const running = runHandler(env, step, body);
    abort.abort();
    const { outcome } = await running;
    assert.deepEqual([outcome.kind, outcome.delay, outcome.interrupted], ['temporary', 0, true]);
  });
  it('an attempt the shutdown interrupts is not counted: `retries: 1` does not end the handler, its record keeps its count', async () => {
    const { step, env, abort } = setup(
      (context) =>
        new Promise((_, reject) => {
          context.signal.addEventListener('abort', () => reject(new Error('request aborted')));
        }),
      { retries: 1 },
    );
    const running = runHandler(env, step, body);
    abort.abort();
    const { outcome, record } = await running;
    assert.deepEqual([outcome.kind, outcome.delay, outcome.interrupted], ['temporary', 0, true]);
    assert.deepEqual([record.retries, record.failure, record.stopped], [0, undefined, undefined]);
  });
  it('a TemporaryError thrown during shutdown is the handler’s own word: not an interruption', async () => {
    const { step, env, abort } = setup(() => {
      abort.abort();
      throw new TemporaryError('later', { delay: 7 });
    });
    const { outcome } = await runHandler(env, step, body);
    assert.deepEqual([outcome.kind, outcome.delay, outcome.interrupted], ['temporary', 7, undefined]);
  });
});

describe('failWithoutRunning', () => {
  it('records a permanent failure with the reason, no longer delayed', () => {
    const { step } = setup(() => undefined);
    const started = '2026-01-01T00:00:00Z';
    const record = { started, purpose: 'create' as const, retries: 3, delayed: '2026-01-01T00:01:00Z' };
    const now = new Date('2026-01-01T00:02:00Z');
    const result = failWithoutRunning(
      { ...step, kind: 'fail', record, message: 'gave up after 3 attempt(s)' },
      now,
      DEFAULT_MARKS,
    );
    assert.equal(result.outcome.kind, 'permanent');
    assert.deepEqual(
      [result.record.failure, result.record.delayed, result.record.stopped, result.record.retries],
      [true, undefined, now.toISOString(), 3],
    );
  });
});

describe('what JSON cannot carry exactly is refused, not written as null', () => {
  const cases: { name: string; value: unknown; want: string | undefined }[] = [
    { name: 'plain JSON', value: { status: { a: [1, 'x', null, { b: true }] } }, want: undefined },
    { name: 'an undefined member is left out, as JSON does', value: { a: undefined }, want: undefined },
    { name: 'NaN', value: { status: { myapp: { ratio: Number.NaN } } }, want: 'NaN at status.myapp.ratio' },
    { name: 'Infinity in a list', value: { status: { xs: [1, Infinity] } }, want: 'Infinity at status.xs.1' },
    { name: '-Infinity', value: { n: -Infinity }, want: '-Infinity at n' },
    { name: 'a BigInt', value: { status: { n: 10n } }, want: 'a BigInt at status.n' },
    { name: 'a function in a list', value: { xs: [() => 1] }, want: 'a function at xs.0' },
    {
      name: 'a function as a member (JSON would drop the key)',
      value: { a: { f: () => 1 } },
      want: 'a function at a.f',
    },
    { name: 'a symbol as a member', value: { a: Symbol('s') }, want: 'a symbol at a' },
    { name: 'a symbol in a list', value: { xs: ['a', Symbol('s')] }, want: 'a symbol at xs.1' },
    { name: 'undefined in a list (JSON writes null)', value: { xs: [1, undefined] }, want: 'undefined at xs.1' },
    // eslint-disable-next-line no-sparse-arrays
    { name: 'a hole in a list', value: { xs: [1, , 3] }, want: 'undefined at xs.1' },
    { name: 'a function itself', value: () => 1, want: 'a function at (the value itself)' },
    { name: 'a Date (JSON writes its toJSON)', value: { at: new Date(0) }, want: undefined },
  ];
  for (const { name, value, want } of cases) it(name, () => assert.equal(unserialisable(value), want));
  it('a cycle', () => {
    const value: Record<string, unknown> = { a: {} };
    (value.a as Record<string, unknown>).self = value;
    assert.equal(unserialisable(value), 'a cycle at a.self');
  });

  it("a handler's NaN result, an error status's Infinity: an Unserialisable failure, as a BigInt is", async () => {
    const nan = setup(() => ({ phase: 'Ok', ratio: 0 / 0 }));
    await assert.rejects(
      runHandler(nan.env, nan.step, body),
      (error: unknown) => error instanceof Unserialisable && /NaN at status\.myapp\.ratio/.test(error.message),
    );
    const infinite = setup(() => {
      throw new TemporaryError('later', { status: { eta: 1 / 0 } });
    });
    await assert.rejects(
      runHandler(infinite.env, infinite.step, body),
      (error: unknown) => error instanceof Unserialisable && /Infinity at status\.myapp\.eta/.test(error.message),
    );
  });
});

describe('callSpawned', () => {
  it("a daemon told to stop at shutdown ends quietly: cancelled, no 'timed out' line", async () => {
    const lines: string[] = [];
    const registry = new Registry();
    defineHandler(resource, 'watch').onDaemon(
      async ({ signal }) => {
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        throw new Error('aborted');
      },
      { registry },
    );
    const shutdown = new AbortController();
    const env: ResourceEnv = {
      client: {} as KubeClient,
      resource,
      logger: createLogger({ level: 'debug', write: (line) => void lines.push(line) }),
      signal: shutdown.signal,
      now: () => new Date(),
      ...policyEnv(),
    };
    const call = callSpawned(env, registry.handlers[0], body, new AbortController().signal);
    shutdown.abort();
    const result = await call;
    assert.equal(result.cancelled, true);
    assert.deepEqual(lines, [], lines.join('\n'));
  });
});

describe('the start gate at the start of an attempt', () => {
  const closed: StartGate = {
    refuse: () => ({ reason: 'renew_deadline', message: 'no longer holds the lease ns/op' }),
  };

  it('a refused changing handler is not called: StartRefused, nothing recorded', async () => {
    let called = 0;
    const { step, env } = setup(() => void called++);
    const asked: string[] = [];
    env.gate = { refuse: (uid) => (asked.push(uid), closed.refuse(uid)) };
    await assert.rejects(
      runHandler(env, step, body),
      (error: unknown) => error instanceof StartRefused && error.refusal.reason === 'renew_deadline',
    );
    assert.equal(called, 0);
    assert.deepEqual(asked, ['u1'], 'asked for the object, once');
    env.gate = { refuse: () => undefined };
    await runHandler(env, step, body);
    assert.equal(called, 1, 'an open gate lets it start');
  });

  it('a refused timer, daemon or child call is not called: cancelled, nothing to write', async () => {
    let called = 0;
    const registry = new Registry();
    defineHandler(resource, 'tick').onTimer(() => void called++, { registry, interval: 1 });
    const { env } = setup(() => undefined);
    env.gate = closed;
    const result = await callSpawned(env, registry.handlers[0], body, new AbortController().signal);
    assert.equal(called, 0);
    assert.equal(result.cancelled, true);
    assert.deepEqual(result.patch, {});
  });

  it("a running handler's signal aborts with the term's reason, which names the lease", async () => {
    let reason: unknown;
    const { step, env, abort } = setup(
      ({ signal }) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            reason = signal.reason;
            resolve(undefined);
          }),
        ),
    );
    const run = runHandler(env, step, body);
    await new Promise((resolve) => setImmediate(resolve));
    abort.abort(new Error('stopped leading lease ns/op: no renew within the renew deadline (4000 ms since …)'));
    await run;
    assert.ok(reason instanceof Error);
    assert.match(reason.message, /^stopped leading lease ns\/op: no renew/);
  });
});
