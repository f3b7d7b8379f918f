/**
 * Sub-handlers through one reconcile (effects/subhandlers.ts with the reconciler): each retried alone on
 * its own record, what they return merged into the parent's status, the parent done once all are, its
 * outcome logged once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, PermanentError, Registry, TemporaryError } from '../../../src/runtime/index.js';
import { Reconciler } from '../../../src/runtime/reconcile/reconciler.js';
import { progressAnnotation } from '../../../src/runtime/reconcile/progress.js';
import { Store } from '../../../src/runtime/store.js';
import { collectEvents, myResourceDescriptor, quietEnv } from '../../helpers/resource-env.js';
import { captureLogger } from '../../helpers/e2e-objects.js';
import { objectApi } from '../../helpers/object-api.js';

const resource = myResourceDescriptor();

type Status = { a?: number; b?: string; total?: number };

async function reconcileOnce(register: (registry: Registry) => void, statusRecords = false) {
  const registry = new Registry();
  register(registry);
  const api = objectApi({ metadata: { name: 'x', namespace: 'ns', uid: 'u1', resourceVersion: '5' }, spec: {} });
  const store = new Store();
  store.apply(structuredClone(api.current() ?? {}));
  const logger = captureLogger();
  const events = collectEvents();
  const env = quietEnv(api.client, { resource: { ...resource, statusRecords }, logger, events });
  const reconciler = new Reconciler(env, registry.handlers, store, { gone: () => {}, stopping: () => false });
  const action = await reconciler.reconcile('u1');
  const lines = logger.lines.filter((l) => / handler \S+ (succeeded|failed|waits)/.test(l));
  return { action, api, lines: lines.map((l) => l.replace(/^\S+ \S+\s+/, '').replace(/ resource=.*$/, '')), events };
}

describe('sub-handlers', () => {
  it('one failing temporarily twice retries alone; its sibling runs once; the parent succeeds once', async () => {
    const calls = { parent: 0, a: 0, b: 0 };
    const { action, api, lines, events } = await reconcileOnce((registry) => {
      defineHandler<unknown, Status>(resource, 'parent').onCreate(
        (ctx) => {
          calls.parent++;
          ctx.subhandler('a', () => {
            if (++calls.a < 3) throw new TemporaryError('not yet', { delay: 0 });
            return { a: calls.a };
          });
          ctx.subhandler('b', () => {
            calls.b++;
            return { b: 'done' };
          });
          return { total: 2 };
        },
        { registry, retries: 2 },
      );
    });
    assert.deepEqual(action, { kind: 'done' });
    // a, b (asap: fewest attempts first), a, a: the parent's run that ran the last one ends it
    assert.deepEqual(calls, { parent: 4, a: 3, b: 1 });
    assert.deepEqual(lines, [
      'handler parent/a failed temporarily, retry in 0s: not yet',
      'handler parent waits for its sub-handlers, retry in 0s',
      'handler parent/b succeeded',
      'handler parent waits for its sub-handlers, retry in 0s',
      'handler parent/a failed temporarily, retry in 0s: not yet',
      'handler parent waits for its sub-handlers, retry in 0s',
      'handler parent/a succeeded',
      'handler parent succeeded',
    ]);
    const object = api.current();
    assert.deepEqual(object?.status, { parent: { a: 3, b: 'done', total: 2 } });
    // the parent's `retries: 2` is not used up by its waits; every record purged once the cause is done
    const annotations = Object.keys(object?.metadata?.annotations ?? {});
    assert.deepEqual(annotations, ['kopfgen.dev/last-handled-configuration']);
    // a Warning per failed attempt of the sub-handler, none for the parent's waits
    assert.deepEqual(
      events.recorded.map((e) => [e.type, e.reason]),
      [
        ['Warning', 'parent/aFailed'],
        ['Warning', 'parent/aFailed'],
      ],
    );
  });

  it('records kept in status.kopfgen: each sub-handler still runs once (its record read where it is kept)', async () => {
    const calls = { a: 0, b: 0 };
    const { api, lines } = await reconcileOnce((registry) => {
      defineHandler<unknown, Status>(resource, 'parent').onCreate(
        (ctx) => {
          ctx.subhandler('a', () => void calls.a++);
          ctx.subhandler('b', () => void calls.b++);
        },
        { registry },
      );
    }, true);
    assert.deepEqual(calls, { a: 1, b: 1 });
    assert.deepEqual(lines, [
      'handler parent/a succeeded',
      'handler parent waits for its sub-handlers, retry in 0s',
      'handler parent/b succeeded',
      'handler parent succeeded',
    ]);
    assert.deepEqual(Object.keys(api.current()?.metadata?.annotations ?? {}), []);
  });

  it('each record is its own (<parent>/<sub>), written as the sub-handler runs', async () => {
    const seen: string[] = [];
    await reconcileOnce((registry) => {
      defineHandler<unknown, Status>(resource, 'parent').onCreate(
        (ctx) => {
          seen.push(
            Object.keys(ctx.meta.annotations ?? {})
              .sort()
              .join(','),
          );
          ctx.subhandler('a', () => undefined);
          ctx.subhandler('b', () => undefined);
        },
        { registry },
      );
    });
    const a = progressAnnotation('parent/a');
    const b = progressAnnotation('parent/b');
    assert.match(a, /^kopfgen\.dev\/parent\.a-[0-9a-f]{10}$/);
    const p = progressAnnotation('parent');
    assert.deepEqual(seen, ['', [p, a].sort().join(',')]);
    assert.notEqual(a, b);
  });

  it('ctx.execute: code after it runs once every sub-handler has finished', async () => {
    const after: number[] = [];
    let runs = 0;
    const { api } = await reconcileOnce((registry) => {
      defineHandler<unknown, Status>(resource, 'parent').onCreate(
        async (ctx) => {
          runs++;
          await ctx.execute({ a: () => ({ a: 1 }), b: () => ({ b: 'x' }) });
          after.push(runs);
          return { total: 2 };
        },
        { registry },
      );
    });
    assert.deepEqual(after, [2]);
    assert.deepEqual(api.current()?.status, { parent: { a: 1, b: 'x', total: 2 } });
  });

  it('ctx.execute with a map leaves the declared sub-handlers to run after the handler returns (kopf)', async () => {
    const order: string[] = [];
    const { api } = await reconcileOnce((registry) => {
      defineHandler<unknown, Status>(resource, 'parent').onCreate(
        async (ctx) => {
          ctx.subhandler('declared', () => void order.push('declared'));
          await ctx.execute({ mapped: () => void order.push('mapped') });
          order.push('after execute');
        },
        { registry },
      );
    });
    assert.deepEqual(order, ['mapped', 'after execute', 'declared']);
    assert.deepEqual(Object.keys(api.current()?.metadata?.annotations ?? {}), [
      'kopfgen.dev/last-handled-configuration',
    ]);
  });

  it('a sub-handler failing for good fails the parent for good, naming it; the sibling still runs', async () => {
    let b = 0;
    const { lines } = await reconcileOnce((registry) => {
      defineHandler<unknown, Status>(resource, 'parent').onCreate(
        (ctx) => {
          ctx.subhandler('a', () => {
            throw new PermanentError('broken');
          });
          ctx.subhandler('b', () => void b++);
        },
        { registry },
      );
    });
    assert.equal(b, 1);
    assert.deepEqual(lines.slice(-2), [
      'handler parent/b succeeded',
      'handler parent failed permanently: sub-handler(s) failed for good: parent/a (broken)',
    ]);
  });

  it('a sub-handler id registered twice fails the parent for good', async () => {
    const { lines } = await reconcileOnce((registry) => {
      defineHandler<unknown, Status>(resource, 'parent').onCreate(
        (ctx) => {
          ctx.subhandler('a', () => undefined);
          ctx.subhandler('a', () => undefined);
        },
        { registry },
      );
    });
    assert.deepEqual(lines, ['handler parent failed permanently: sub-handler parent/a is registered twice']);
  });
});
