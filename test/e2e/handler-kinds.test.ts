/**
 * The handler kinds beyond create/update/delete/resume, on a real API server: filters (a labelled
 * object handled, an unlabelled one not written at all), optional delete handlers (no
 * finalizer), onEvent (create, modify, delete seen), a timer (status every 2 s, stopped by the
 * deletion), daemons (cancelled on deletion within their cancellation timeout, then the finalizer
 * removed; one that ignores its signal released after the timeout), a timed-out attempt that
 * ignores its signal never overlapping the next attempt, and startup/cleanup hooks.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defineHandler,
  onCleanup,
  onStartup,
  Registry,
  StartupError,
  type WatchEventType,
} from '../../src/runtime/index.js';
import { Operator } from '../../src/runtime/operator.js';
import { eventually, skip, TEST_TIMEOUT } from '../helpers/envtest.js';
import {
  captureLogger,
  create,
  namespace,
  type Body,
  type CapturedLogger,
  blobs,
  sleep,
  blob,
} from '../helpers/e2e-objects.js';
import { E2eSuite, BLOBS_CRD } from '../helpers/e2e-suite.js';

const suite = new E2eSuite({ crds: [BLOBS_CRD] });

const gone = (path: string) =>
  eventually(
    `${path} to be gone`,
    () =>
      suite.get(path).then(
        () => undefined,
        () => true,
      ),
    60_000,
  );
const patchSpec = (path: string, spec: Record<string, unknown>) =>
  suite.client.request('PATCH', path, { body: { spec }, contentType: 'application/merge-patch+json' });

async function start(registry: Registry, ns: string, logger: CapturedLogger = captureLogger()): Promise<Operator> {
  const op = new Operator({ registry, namespace: ns, logger, leaderElection: false });
  suite.track(op);
  await op.start();
  return op;
}

function blobBody(name: string, labels?: Record<string, string>): Body {
  return { apiVersion: 'policy.kopfgen.dev/v1', kind: 'Blob', metadata: { name, labels }, spec: { size: 1 } };
}

describe('handler kinds', { skip }, () => {
  suite.hooks();

  it(
    'filters: a labelled object is handled; an unlabelled one no handler matches is not written at all',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'filters');
      const registry = new Registry();
      const handled: string[] = [];
      const h = defineHandler(blob, 'web');
      h.onCreate(
        (ctx) => {
          handled.push(ctx.name);
          return { phase: 'Handled' };
        },
        { registry, labels: { tier: 'web' } },
      );
      h.onDelete(() => undefined, { registry, labels: { tier: 'web' } });
      await start(registry, ns);
      await create(suite.client, blobs(ns), blobBody('labelled', { tier: 'web' }));
      const created = await create(suite.client, blobs(ns), blobBody('plain'));
      const labelled = await eventually('labelled handled', async () => {
        const body = await suite.get(blobs(ns, 'labelled'));
        return body.metadata.annotations?.['kopfgen.dev/last-handled-configuration'] ? body : undefined;
      });
      assert.deepEqual(labelled.status?.web, { phase: 'Handled' });
      assert.deepEqual(labelled.metadata.finalizers, ['kopfgen.dev/finalizer']);
      await new Promise((r) => setTimeout(r, 1_000)); // a write to the other would show by now
      const plain = await suite.get(blobs(ns, 'plain'));
      assert.equal(plain.metadata.resourceVersion, created.metadata.resourceVersion, 'nothing written to it');
      assert.equal(plain.metadata.annotations, undefined);
      assert.equal(plain.metadata.finalizers, undefined);
      assert.deepEqual(handled, ['labelled']);
    },
  );

  it('an optional delete handler adds no finalizer', { timeout: TEST_TIMEOUT }, async () => {
    const ns = await namespace(suite.client, 'optional');
    const registry = new Registry();
    const h = defineHandler(blob, 'cleanup');
    h.onCreate(() => ({ phase: 'Created' }), { registry });
    h.onDelete(() => undefined, { registry, optional: true });
    await start(registry, ns);
    await create(suite.client, blobs(ns), blobBody('x'));
    const body = await eventually('x handled', async () => {
      const body = await suite.get(blobs(ns, 'x'));
      return body.status?.cleanup?.phase === 'Created' ? body : undefined;
    });
    assert.equal(body.metadata.finalizers, undefined);
    await suite.client.request('DELETE', blobs(ns, 'x'));
    await gone(blobs(ns, 'x'));
  });

  it('onEvent sees the creation, a modification and the deletion', { timeout: TEST_TIMEOUT }, async () => {
    const ns = await namespace(suite.client, 'events');
    const registry = new Registry();
    const seen: (WatchEventType | undefined)[] = [];
    defineHandler(blob, 'audit').onEvent((ctx) => void seen.push(ctx.type), { registry });
    await start(registry, ns);
    await create(suite.client, blobs(ns), blobBody('x'));
    await eventually('ADDED', async () => (seen.includes('ADDED') ? true : undefined));
    await patchSpec(blobs(ns, 'x'), { size: 2 });
    await eventually('MODIFIED', async () => (seen.includes('MODIFIED') ? true : undefined));
    await suite.client.request('DELETE', blobs(ns, 'x'));
    await eventually('DELETED', async () => (seen.includes('DELETED') ? true : undefined));
    assert.equal(seen[0], 'ADDED');
    assert.equal(seen.at(-1), 'DELETED');
  });

  it('a timer updates status every 2 s and stops when the object is deleted', { timeout: TEST_TIMEOUT }, async () => {
    const ns = await namespace(suite.client, 'timer');
    const registry = new Registry();
    const runs: number[] = [];
    defineHandler(blob, 'tick').onTimer(
      () => {
        runs.push(Date.now());
        return { count: runs.length };
      },
      { registry, interval: 2 },
    );
    await start(registry, ns);
    await create(suite.client, blobs(ns), blobBody('x'));
    const counts = new Set<number>();
    await eventually(
      'three timer results in status',
      async () => {
        const count = (await suite.get(blobs(ns, 'x'))).status?.tick?.count;
        if (typeof count === 'number') counts.add(count);
        return counts.size >= 3 ? true : undefined;
      },
      30_000,
    );
    const gaps = runs.slice(1).map((t, i) => t - runs[i]);
    assert.ok(
      gaps.every((gap) => gap >= 1900),
      `runs 2 s apart: ${gaps.join(', ')} ms`,
    );
    await suite.client.request('DELETE', blobs(ns, 'x'));
    await gone(blobs(ns, 'x'));
    const stopped = runs.length;
    await sleep(4500);
    assert.equal(runs.length, stopped, 'no run after the deletion');
  });

  it(
    'a daemon is cancelled on deletion within its cancellation timeout; then the finalizer goes',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'daemon');
      const registry = new Registry();
      const log = captureLogger();
      let aborted = 0;
      let ended = 0;
      defineHandler(blob, 'watcher').onDaemon(
        async (ctx) => {
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
          aborted = Date.now();
          await sleep(1000); // tidies up, within its cancellation timeout
          ended = Date.now();
          return { phase: 'Stopped' };
        },
        { registry, cancellationTimeout: 10 },
      );
      defineHandler(blob, 'stubborn').onDaemon(() => sleep(30_000), { registry, cancellationTimeout: 2 });
      await start(registry, ns, log);
      await create(suite.client, blobs(ns), blobBody('x'));
      await eventually('the finalizer a daemon needs', async () => {
        const body = await suite.get(blobs(ns, 'x'));
        return body.metadata.finalizers?.includes('kopfgen.dev/finalizer') ? true : undefined;
      });
      await sleep(500); // the daemons are running
      const deleted = Date.now();
      await suite.client.request('DELETE', blobs(ns, 'x'));
      await gone(blobs(ns, 'x'));
      const released = Date.now();
      assert.ok(aborted > 0 && ended > 0, 'the daemon saw its signal and ended');
      assert.ok(ended <= released, 'the object was released after the daemon ended');
      assert.ok(
        released - deleted >= 1900,
        `the stubborn daemon held the object for its timeout (${released - deleted} ms)`,
      );
      assert.ok(released - deleted < 10_000, `released within the cancellation timeouts (${released - deleted} ms)`);
      assert.ok(
        log.lines.some((line) => line.includes('daemon stubborn did not end within its cancellation timeout of 2s')),
      );
    },
  );

  it(
    'a timed-out attempt that ignores its signal never overlaps the next attempt',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'overlap');
      const registry = new Registry();
      const attempts: [number, number][] = [];
      defineHandler(blob, 'slow').onUpdate(
        async () => {
          const started = Date.now();
          await sleep(2500); // ignores its signal, well past its timeout
          attempts.push([started, Date.now()]);
        },
        { registry, timeout: 1 },
      );
      await start(registry, ns);
      await create(suite.client, blobs(ns), blobBody('x'));
      await eventually('x handled', async () =>
        (await suite.get(blobs(ns, 'x'))).metadata.annotations?.['kopfgen.dev/last-handled-configuration']
          ? true
          : undefined,
      );
      await patchSpec(blobs(ns, 'x'), { size: 2 });
      await sleep(500);
      await patchSpec(blobs(ns, 'x'), { size: 3 }); // while the first attempt still runs
      await eventually('two attempts', async () => (attempts.length >= 2 ? true : undefined), 30_000);
      const sorted = [...attempts].sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < sorted.length; i++) {
        assert.ok(sorted[i][0] >= sorted[i - 1][1], `attempt ${i} started before attempt ${i - 1} ended`);
      }
      const body = await suite.get(blobs(ns, 'x'));
      const record = JSON.parse(body.metadata.annotations['kopfgen.dev/slow']);
      assert.match(record.message, /timed out after 1s/);
    },
  );

  it(
    'startup hooks run before watching (one failing stops the start); cleanup hooks after the handlers drained',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'hooks');
      const failing = new Registry();
      defineHandler(blob, 'any').onCreate(() => undefined, { registry: failing });
      onStartup(
        () => {
          throw new Error('no database');
        },
        { registry: failing, id: 'connect' },
      );
      const broken = new Operator({ registry: failing, namespace: ns, logger: captureLogger(), leaderElection: false });
      await assert.rejects(broken.start(), (error: unknown) => {
        assert.ok(error instanceof StartupError);
        assert.equal(error.message, 'startup hook connect failed: no database');
        return true;
      });
      await broken.stop();

      const registry = new Registry();
      const order: string[] = [];
      onStartup(() => void order.push('startup'), { registry });
      defineHandler(blob, 'slow').onCreate(
        async () => {
          order.push('handler started');
          await sleep(1500);
          order.push('handler ended');
        },
        { registry },
      );
      onCleanup(() => void order.push('cleanup'), { registry });
      const op = await start(registry, ns);
      await create(suite.client, blobs(ns), blobBody('x'));
      await eventually('the handler to start', async () => (order.includes('handler started') ? true : undefined));
      await op.stop();
      assert.deepEqual(order, ['startup', 'handler started', 'handler ended', 'cleanup']);
    },
  );
});
