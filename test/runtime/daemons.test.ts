/** Daemons: one call per object, started once the finalizer is there, stopped on deletion, abandoned past the cancellation timeout. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, Registry, TemporaryError } from '../../src/runtime/index.js';
import { Daemons } from '../../src/runtime/daemons.js';
import { spawnFixture } from '../helpers/spawn-fixture.js';
import { myResourceDescriptor } from '../helpers/resource-env.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Polls `done` (a loaded test process may delay timers: no fixed sleep decides a result). */
async function until(done: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(10);
  }
}

describe('Daemons', () => {
  it('runs once per object; on deletion its signal aborts, its status is written, then the object is released', async () => {
    const registry = new Registry();
    let starts = 0;
    defineHandler(myResourceDescriptor(), 'watch').onDaemon(
      async (ctx) => {
        starts++;
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        return { phase: 'Stopped' };
      },
      { registry },
    );
    const fixture = spawnFixture();
    const released: string[] = [];
    const daemons = new Daemons(fixture.env, registry.handlers, fixture.host, (uid) => released.push(uid));
    daemons.seen('u1', fixture.body());
    daemons.seen('u1', fixture.body()); // seen again: still one daemon
    await until(() => starts > 0);
    await sleep(20);
    assert.equal(starts, 1);
    assert.equal(daemons.running('u1'), true);
    fixture.markDeleted();
    daemons.seen('u1', fixture.body());
    await daemons.drained();
    assert.deepEqual(released, ['u1']);
    assert.equal(daemons.running('u1'), false);
    assert.deepEqual(fixture.body().status, { watch: { phase: 'Stopped' } });
    daemons.seen('u1', fixture.body());
    assert.equal(starts, 1, 'not restarted on a deleting object');
  });

  it('waits for the finalizer before it starts', async () => {
    const registry = new Registry();
    let starts = 0;
    defineHandler(myResourceDescriptor(), 'watch').onDaemon(() => void starts++, { registry });
    const fixture = spawnFixture();
    const daemons = new Daemons(fixture.env, registry.handlers, fixture.host, () => undefined);
    const body = fixture.body();
    daemons.seen('u1', { ...body, metadata: { ...body.metadata, finalizers: [] } });
    await sleep(20);
    assert.equal(starts, 0);
  });

  it('a daemon that ignores its signal is released after its cancellation timeout, with a log line', async () => {
    const registry = new Registry();
    let started = false;
    let ended = false;
    defineHandler(myResourceDescriptor(), 'stubborn').onDaemon(
      async () => {
        started = true;
        await sleep(1000); // ignores its signal
        ended = true;
      },
      { registry, cancellationTimeout: 0.05 },
    );
    const fixture = spawnFixture();
    const released: boolean[] = [];
    const daemons = new Daemons(fixture.env, registry.handlers, fixture.host, () => released.push(ended));
    daemons.seen('u1', fixture.body());
    await until(() => started);
    daemons.cancel('u1', 'its deletion is marked');
    await daemons.drained();
    assert.deepEqual(released, [false], 'released once, before the daemon ended');
    assert.equal(daemons.running('u1'), false);
    assert.ok(fixture.lines.some((line) => line.includes('did not end within its cancellation timeout of 0.05s')));
  });

  it('the operator stopping (or losing its lease) aborts the daemon; a daemon that then returns writes its status', async () => {
    const registry = new Registry();
    let sawAbort = false;
    let started = false;
    defineHandler(myResourceDescriptor(), 'watch').onDaemon(
      async (ctx) => {
        started = true;
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        sawAbort = true;
        return { phase: 'Stopped' };
      },
      { registry },
    );
    const term = new AbortController();
    const fixture = spawnFixture(term.signal);
    const daemons = new Daemons(fixture.env, registry.handlers, fixture.host, () => undefined);
    daemons.seen('u1', fixture.body());
    await until(() => started);
    term.abort();
    daemons.stopAll('the operator stops leading');
    await daemons.drained();
    assert.equal(sawAbort, true);
    assert.deepEqual(fixture.body().status, { watch: { phase: 'Stopped' } });
  });
  it("counts its attempts: ctx.retry grows, ctx.started stays the first attempt's, and `retries` ends it (kopf keeps one state per daemon)", async () => {
    const registry = new Registry();
    const seen: { retry: number; started: number }[] = [];
    defineHandler(myResourceDescriptor(), 'flaky').onDaemon(
      (ctx) => {
        seen.push({ retry: ctx.retry, started: ctx.started.getTime() });
        throw new TemporaryError('Simulated failure.', { delay: 0.01 });
      },
      { registry, retries: 3 },
    );
    const fixture = spawnFixture();
    const daemons = new Daemons(fixture.env, registry.handlers, fixture.host, () => undefined);
    try {
      daemons.seen('u1', fixture.body());
      await until(() => seen.length >= 3);
      await sleep(100);
      assert.deepEqual(
        seen.map((s) => s.retry),
        [0, 1, 2],
        'three attempts, then given up',
      );
      assert.equal(new Set(seen.map((s) => s.started)).size, 1, "started is the first attempt's");
      await until(() => !daemons.running('u1'));
      assert.ok(fixture.lines.some((line) => line.includes('gave up after 3 attempt(s)')));
    } finally {
      daemons.stopAll('the test ends');
      await daemons.drained();
    }
  });
});
