/** Timers: when each run is due (pure, given/want), and the runner's runs, status writes and stop. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, Registry, TemporaryError } from '../../src/runtime/index.js';
import type { TimerOptions } from '../../src/runtime/api/registry.js';
import { nextRun, Timers, type TimerState } from '../../src/runtime/timers.js';
import { spawnFixture } from '../helpers/spawn-fixture.js';
import { myResourceDescriptor, type CollectedEvents } from '../helpers/resource-env.js';

/** Polls `done` (a loaded test process may delay timers: no fixed sleep decides a result). */
async function until(done: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const t0 = Date.parse('2026-01-01T00:00:00Z');
const s = (seconds: number) => t0 + seconds * 1000;

describe('nextRun', () => {
  const cases: { name: string; options: TimerOptions; state: TimerState; want: number }[] = [
    { name: 'first run at once', options: { interval: 10 }, state: { firstSeen: s(0), lastChange: s(0) }, want: s(0) },
    {
      name: 'first run after the initial delay',
      options: { interval: 10, initialDelay: 3 },
      state: { firstSeen: s(0), lastChange: s(0) },
      want: s(3),
    },
    {
      name: 'then an interval after the last run ended',
      options: { interval: 10 },
      state: { firstSeen: s(0), lastChange: s(0), ended: s(4) },
      want: s(14),
    },
    {
      name: 'sharp: on the schedule, whatever the run took',
      options: { interval: 10, sharp: true },
      state: { firstSeen: s(0), lastChange: s(0), ended: s(4) },
      want: s(10),
    },
    {
      name: 'sharp: slots a long run overlapped are skipped',
      options: { interval: 10, sharp: true, initialDelay: 2 },
      state: { firstSeen: s(0), lastChange: s(0), ended: s(25) },
      want: s(32),
    },
    {
      name: 'idle: not before the object has been unchanged that long',
      options: { interval: 10, idle: 30 },
      state: { firstSeen: s(0), lastChange: s(15), ended: s(20) },
      want: s(45),
    },
    {
      name: 'idle: no later than the interval once idle long enough',
      options: { interval: 10, idle: 5 },
      state: { firstSeen: s(0), lastChange: s(0), ended: s(20) },
      want: s(30),
    },
  ];
  for (const { name, options, state, want } of cases) it(name, () => assert.equal(nextRun(options, state), want));
});

describe('Timers', () => {
  it('runs every interval, writes the result to status.<id>, never overlapping; stops with the object', async () => {
    const registry = new Registry();
    let running = 0;
    let overlapped = false;
    let calls = 0;
    defineHandler(myResourceDescriptor(), 'tick').onTimer(
      async () => {
        overlapped ||= running > 0;
        running++;
        await new Promise((r) => setTimeout(r, 30));
        running--;
        calls++;
        return { count: calls };
      },
      { registry, interval: 0.02 },
    );
    const fixture = spawnFixture();
    const timers = new Timers(fixture.env, registry.handlers, fixture.host);
    timers.seen('u1', fixture.body());
    await until(() => calls >= 3);
    timers.stop('u1');
    await timers.drained();
    const seen = calls;
    assert.equal(overlapped, false);
    assert.deepEqual(fixture.body().status, { tick: { count: seen } });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(calls, seen, 'no run after stop');
  });

  it('counts the runs scheduled that would run: a timer whose filters do not match the object is not one', () => {
    const registry = new Registry();
    defineHandler(myResourceDescriptor(), 'every').onTimer(() => undefined, { registry, interval: 60 });
    defineHandler(myResourceDescriptor(), 'labelled').onTimer(() => undefined, {
      registry,
      interval: 60,
      labels: { timer: 'yes' },
    });
    const fixture = spawnFixture();
    const timers = new Timers(fixture.env, registry.handlers, fixture.host);
    timers.seen('u1', fixture.body());
    assert.equal(timers.scheduled, 1);
    timers.stopAll();
    assert.equal(timers.scheduled, 0);
  });

  it('a deletion marked stops it; an error is logged and the schedule goes on', async () => {
    const registry = new Registry();
    let calls = 0;
    defineHandler(myResourceDescriptor(), 'tick').onTimer(
      () => {
        calls++;
        throw new TemporaryError('not yet', { status: { phase: 'Waiting' } });
      },
      { registry, interval: 0.02 },
    );
    const fixture = spawnFixture();
    const timers = new Timers(fixture.env, registry.handlers, fixture.host);
    timers.seen('u1', fixture.body());
    await until(() => calls >= 2 && fixture.lines.some((line) => line.includes('failed temporarily')));
    assert.deepEqual(fixture.body().status, { tick: { phase: 'Waiting' } });
    assert.ok(fixture.lines.some((line) => line.includes('failed temporarily')));
    fixture.markDeleted();
    timers.seen('u1', fixture.body());
    await timers.drained();
    const seen = calls;
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(calls, seen, 'no run once the deletion is marked');
  });

  it("a failed run's Event and log line say it runs again at its interval, not after the error's delay", async () => {
    const registry = new Registry();
    defineHandler(myResourceDescriptor(), 'tick').onTimer(
      () => {
        throw new TemporaryError('not yet'); // no delay: a changing handler would retry after 60 s
      },
      { registry, interval: 0.02 },
    );
    const fixture = spawnFixture();
    const timers = new Timers(fixture.env, registry.handlers, fixture.host);
    timers.seen('u1', fixture.body());
    const recorded = (fixture.env.events as CollectedEvents).recorded;
    await until(() => recorded.length > 0 && fixture.lines.some((line) => line.includes('failed temporarily')));
    timers.stop('u1');
    await timers.drained();
    assert.equal(recorded[0].message, 'Handler tick failed temporarily: not yet, next run in 0.02s (its interval)');
    assert.ok(
      fixture.lines.some((line) => line.includes('failed temporarily, next run in 0.02s (its interval): not yet')),
    );
    assert.ok(!fixture.lines.some((line) => line.includes('retry in 60s')));
  });

  it("a run's write that meets a newer state (someone edited the object meanwhile) is written again on it", async () => {
    const registry = new Registry();
    const fixture = spawnFixture();
    let calls = 0;
    defineHandler(myResourceDescriptor(), 'tick').onTimer(
      () => {
        calls++;
        if (calls === 1) fixture.edit({ metadata: { labels: { someone: 'else' } } });
        return { count: calls };
      },
      { registry, interval: 60 },
    );
    const timers = new Timers(fixture.env, registry.handlers, fixture.host);
    timers.seen('u1', fixture.body());
    await until(() => fixture.body().status !== undefined);
    timers.stop('u1');
    await timers.drained();
    assert.deepEqual(fixture.body().status, { tick: { count: 1 } });
    assert.deepEqual(fixture.body().metadata?.labels, { someone: 'else' });
    assert.ok(!fixture.lines.some((line) => line.includes('failed')), fixture.lines.join('\n'));
  });

  it('refuses an interval that is not above 0 at registration', () => {
    const h = defineHandler(myResourceDescriptor(), 'tick');
    assert.throws(() => h.onTimer(() => undefined, { registry: new Registry(), interval: 0 }), /interval/);
  });
});
