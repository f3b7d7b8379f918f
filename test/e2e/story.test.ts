/**
 * The story end to end against a real API server: status from a TemporaryError, then from the
 * retry's return value; a PermanentError; a base error thrown by a shared helper; each cause.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, defineResource, PermanentError, Registry, TemporaryError } from '../../src/runtime/index.js';
import { Operator } from '../../src/runtime/operator.js';
import { FINALIZER } from '../../src/runtime/reconcile/essence.js';
import { progressAnnotation } from '../../src/runtime/reconcile/progress.js';
import { eventually, skip, TEST_TIMEOUT } from '../helpers/envtest.js';
import {
  captureLogger,
  create,
  events,
  myResource,
  namespace,
  objectPath,
  pair,
  type Body,
  myResources as my,
  myResourceObject,
} from '../helpers/e2e-objects.js';
import { E2eSuite, MYRESOURCES_CRD, PAIRS_CRD } from '../helpers/e2e-suite.js';

const suite = new E2eSuite({ crds: [MYRESOURCES_CRD, PAIRS_CRD] });

type MyappStatus = { phase?: string };
/** What `kopfgen generate` emits for the myapp handler (the e2e tests do not depend on the generator). */
class MyappTemporaryError extends TemporaryError<MyappStatus> {}
class MyappPermanentError extends PermanentError<MyappStatus> {}

async function operate(registry: Registry, ns: string) {
  const logger = captureLogger();
  const operator = new Operator({ registry, namespace: ns, logger });
  suite.track(operator);
  await operator.start();
  return { operator, logger };
}

describe('runtime end to end', { skip }, () => {
  suite.hooks();

  it(
    'TemporaryError status Pending, then the retry returns Starting; kubectl shows it',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'story');
      const registry = new Registry();
      const seen: number[] = [];
      defineHandler<typeof myResource.__resource, MyappStatus>(myResource, 'myapp').onCreate(
        async ({ retry }) => {
          seen.push(retry);
          if (retry === 0)
            throw new MyappTemporaryError('image not pulled yet', { status: { phase: 'Pending' }, delay: 1 });
          return { phase: 'Starting' };
        },
        { registry },
      );
      const { logger } = await operate(registry, ns);
      await create(suite.client, my(ns), myResourceObject('web', { image: 'nginx' }));
      const pending = await suite.untilPhase('status Pending', my(ns, 'web'), 'Pending');
      assert.equal(pending, true);
      await suite.untilPhase('status Starting', my(ns, 'web'), 'Starting');
      assert.deepEqual(seen, [0, 1]);
      const table = suite.cluster.kubectl('get', 'myresources', '-n', ns);
      assert.match(table, /^web\s+Starting\s+/m);
      const body = await eventually('the cause completed', async () => {
        const current = await suite.get(my(ns, 'web'));
        return current.metadata.annotations['kopfgen.dev/last-handled-configuration'] ? current : undefined;
      });
      assert.equal(
        body.metadata.annotations['kopfgen.dev/myapp'],
        undefined,
        'progress purged after the cause completed',
      );
      // Events are written in the background by the EventRecorder: wait for it.
      await eventually('the Warning Event', async () =>
        (await events(suite.client, ns, 'web')).some((e) => e.type === 'Warning' && e.reason === 'myappFailed')
          ? true
          : undefined,
      );
      // Log lines follow the writes: wait for the last one rather than race it.
      await eventually('the success log line', async () =>
        logger.lines.some((l) => l.includes('handler myapp succeeded')) ? true : undefined,
      );
      assert.equal(logger.lines.filter((l) => l.includes('handler myapp failed temporarily')).length, 1);
      assert.equal(logger.lines.filter((l) => l.includes('handler myapp succeeded')).length, 1);
    },
  );

  it(
    'PermanentError: status kept, no retry, Event posted, failure stays in the progress record',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'perm');
      const registry = new Registry();
      let calls = 0;
      defineHandler<unknown, MyappStatus>(myResource, 'myapp').onCreate(
        () => {
          calls++;
          throw new MyappPermanentError('bad image', { status: { phase: 'Failed' } });
        },
        { registry, backoff: 1 },
      );
      await operate(registry, ns);
      await create(suite.client, my(ns), myResourceObject('bad', { image: 'x' }));
      await suite.untilPhase('status Failed', my(ns, 'bad'), 'Failed');
      const event = await eventually('a Warning event', async () =>
        (await events(suite.client, ns, 'bad')).find((e) => e.reason === 'myappFailed'),
      );
      assert.equal(event.type, 'Warning');
      assert.match(event.message, /myapp failed permanently: bad image/);
      const record = await eventually('the kept progress record', async () => {
        const raw = (await suite.get(my(ns, 'bad'))).metadata.annotations?.['kopfgen.dev/myapp'];
        return raw && JSON.parse(raw).done ? JSON.parse(raw) : undefined;
      });
      assert.deepEqual([record.failure, record.message, record.retries], [true, 'bad image', 1]);
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(calls, 1);
      assert.match(suite.cluster.kubectl('get', 'myresources', '-n', ns), /^bad\s+Failed\s+/m);
    },
  );

  it(
    'a base TemporaryError from a shared helper lands under each calling handler id',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'shared');
      const registry = new Registry();
      const tries = new Map<string, number>();
      /** Shared by both handlers: knows nothing of handler ids. */
      function requireReady(who: string): void {
        const n = (tries.get(who) ?? 0) + 1;
        tries.set(who, n);
        if (n === 1)
          throw new TemporaryError<{ phase: string }>('dependency not ready', {
            status: { phase: 'Waiting' },
            delay: 1.5,
          });
      }
      const observed = new Set<string>();
      for (const id of ['alpha', 'beta']) {
        defineHandler<unknown, { phase?: string }>(pair, id).onCreate(
          () => {
            requireReady(id);
            return { phase: `Ready` };
          },
          { registry },
        );
      }
      await operate(registry, ns);
      const path = objectPath('test.kopfgen.dev', 'v1', 'pairs', ns);
      await create(suite.client, path, {
        apiVersion: 'test.kopfgen.dev/v1',
        kind: 'Pair',
        metadata: { name: 'p' },
        spec: { size: 1 },
      });
      await eventually('both Ready', async () => {
        const status = (await suite.get(`${path}/p`)).status ?? {};
        for (const id of ['alpha', 'beta']) if (status[id]?.phase === 'Waiting') observed.add(id);
        return status.alpha?.phase === 'Ready' && status.beta?.phase === 'Ready' ? true : undefined;
      });
      assert.deepEqual([...observed].sort(), ['alpha', 'beta'], 'each id showed Waiting from the helper');
      assert.match(suite.cluster.kubectl('get', 'pairs', '-n', ns), /^p\s+Ready\s+Ready\s+/m);
    },
  );

  it(
    'warns naming a status field the API server pruned (status in the object patch, no subresource)',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'prune');
      const registry = new Registry();
      defineHandler<unknown, { phase?: string; extra?: number }>(pair, 'alpha').onCreate(
        () => ({ phase: 'Done', extra: 1 }),
        { registry },
      );
      const { logger } = await operate(registry, ns);
      const path = objectPath('test.kopfgen.dev', 'v1', 'pairs', ns);
      await create(suite.client, path, {
        apiVersion: 'test.kopfgen.dev/v1',
        kind: 'Pair',
        metadata: { name: 'q' },
        spec: {},
      });
      await eventually('status Done', async () =>
        (await suite.get(`${path}/q`)).status?.alpha?.phase === 'Done' ? true : undefined,
      );
      await eventually('the pruned-field warning', async () =>
        logger.lines.some((l) => l.includes('dropped status.alpha.extra')) ? true : undefined,
      );
    },
  );

  it(
    'causes: create, update with its diff, field, own writes ignored, delete with the finalizer',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'causes');
      const registry = new Registry();
      const calls: string[] = [];
      const h = defineHandler<unknown, { seen?: string }>(myResource, 'myapp');
      h.onCreate(
        () => {
          calls.push('create');
          return { seen: 'create' };
        },
        { registry },
      );
      h.onUpdate(
        ({ diff }) => {
          calls.push(`update ${JSON.stringify(diff)}`);
          return { seen: 'update' };
        },
        { registry },
      );
      h.onField(
        'spec.replicas',
        ({ old, new: now }) => {
          calls.push(`replicas ${old}->${now}`);
        },
        { registry },
      );
      h.onDelete(
        () => {
          calls.push('delete');
        },
        { registry },
      );
      await operate(registry, ns);
      await create(suite.client, my(ns), myResourceObject('c', { image: 'a' }));
      await eventually('create handled', async () =>
        (await suite.get(my(ns, 'c'))).metadata.annotations?.['kopfgen.dev/last-handled-configuration']
          ? true
          : undefined,
      );
      assert.ok((await suite.get(my(ns, 'c'))).metadata.finalizers.includes(FINALIZER));
      assert.deepEqual(calls, ['create', 'replicas undefined->1']);
      await suite.mergePatch(my(ns, 'c'), { spec: { image: 'b' } });
      await eventually('update handled', async () => (calls.length === 3 ? true : undefined));
      assert.equal(calls[2], 'update [["change",["spec","image"],"a","b"]]');
      await suite.mergePatch(`${my(ns, 'c')}/status`, { status: { other: 1 } });
      // Give the status write time to reach the operator before deleting: a deletion right away
      // would hide an update it wrongly triggered (the deleting state would be all the worker sees).
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(calls.length, 3, `the status write triggered nothing: ${calls.slice(3).join(', ')}`);
      await suite.client.request('DELETE', my(ns, 'c'));
      await eventually('object gone', async () => {
        try {
          await suite.get(my(ns, 'c'));
          return undefined;
        } catch (error) {
          return (error as { status?: number }).status === 404 ? true : undefined;
        }
      });
      assert.deepEqual(calls.slice(3), ['delete'], 'delete ran once');
    },
  );

  it('retries limit, timeout and errors modes against the server', { timeout: TEST_TIMEOUT }, async () => {
    const ns = await namespace(suite.client, 'modes');
    const registry = new Registry();
    const calls = new Map<string, number>();
    const count = (id: string) => calls.set(id, (calls.get(id) ?? 0) + 1);
    defineHandler<unknown, { x?: number }>(myResource, 'limited').onCreate(
      () => {
        count('limited');
        throw new Error('flaky');
      },
      { registry, retries: 2, backoff: 0.3 },
    );
    defineHandler<unknown, { x?: number }>(myResource, 'ignored').onCreate(
      () => {
        count('ignored');
        throw new Error('whatever');
      },
      { registry, errors: 'ignored' },
    );
    defineHandler<unknown, { x?: number }>(myResource, 'strict').onCreate(
      () => {
        count('strict');
        throw new Error('no');
      },
      { registry, errors: 'permanent' },
    );
    defineHandler<unknown, { x?: number }>(myResource, 'slow').onCreate(
      async () => {
        count('slow');
        await new Promise((r) => setTimeout(r, 3000));
      },
      { registry, timeout: 0.5 },
    );
    const { logger } = await operate(registry, ns);
    await create(suite.client, my(ns), myResourceObject('m', { image: 'x' }));
    const annotations = await eventually('the cause to complete', async () => {
      const current = (await suite.get(my(ns, 'm'))).metadata.annotations ?? {};
      return current['kopfgen.dev/last-handled-configuration'] ? current : undefined;
    });
    const record = (id: string) => JSON.parse(annotations[`kopfgen.dev/${id}`] ?? 'null');
    assert.deepEqual(Object.fromEntries(calls), { limited: 2, ignored: 1, strict: 1, slow: 1 });
    assert.equal(record('limited').message, 'flaky (gave up after 2 attempt(s))');
    assert.equal(record('strict').message, 'no');
    assert.equal(record('slow').message, 'timed out after 0.5s');
    assert.equal(record('ignored'), null, 'an ignored error counts as success: its record is purged');
    assert.ok(logger.lines.some((l) => l.includes('handler ignored failed, error ignored: whatever')));
    const reasons = await eventually('the Events', async () => {
      const seen = [...new Set((await events(suite.client, ns, 'm')).map((e) => e.reason))].sort();
      return seen.length >= 3 ? seen : undefined;
    });
    assert.deepEqual(reasons, ['limitedFailed', 'slowFailed', 'strictFailed']);
  });

  it(
    'a handler id of 64+ characters: its hashed progress key is accepted by the API server',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'longid');
      const id = 'provision-the-external-database-and-wait-for-its-endpoint-to-become-ready';
      assert.ok(id.length >= 64);
      const registry = new Registry();
      defineHandler<unknown, { phase?: string }>(myResource, id).onCreate(
        () => {
          throw new PermanentError('no database', { status: { phase: 'Failed' } });
        },
        { registry },
      );
      await operate(registry, ns);
      await create(suite.client, my(ns), myResourceObject('l', { image: 'x' }));
      const record = await eventually('the kept record under the hashed key', async () => {
        const raw = (await suite.get(my(ns, 'l'))).metadata.annotations?.[progressAnnotation(id)];
        return raw ? JSON.parse(raw) : undefined;
      });
      assert.equal(record.message, 'no database');
      assert.equal((await suite.get(my(ns, 'l'))).status?.[id]?.phase, 'Failed');
    },
  );

  it(
    'a descriptor claiming a status subresource the cluster lacks: a warning to regenerate, and the cluster wins',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'nosub');
      const wrong = defineResource({ ...pair, statusSubresource: true });
      const registry = new Registry();
      defineHandler<unknown, { phase?: string }>(wrong, 'alpha').onCreate(() => ({ phase: 'Done' }), { registry });
      const { logger } = await operate(registry, ns);
      const line = logger.lines.find((l) => l.includes('has no status subresource'));
      assert.match(
        line ?? '',
        /pairs\.test\.kopfgen\.dev\/v1: the cluster's CRD has no status subresource, .*regenerate/,
      );
      await create(suite.client, objectPath('test.kopfgen.dev', 'v1', 'pairs', ns), {
        apiVersion: 'test.kopfgen.dev/v1',
        kind: 'Pair',
        metadata: { name: 'w' },
        spec: {},
      });
      await eventually('status written with the object', async () => {
        const body = await suite.client.request<Body>('GET', objectPath('test.kopfgen.dev', 'v1', 'pairs', ns, 'w'));
        return body.status?.alpha?.phase === 'Done' ? true : undefined;
      });
    },
  );
});
