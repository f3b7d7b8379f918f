/** One reconcile: the Action it returns, and what it does with the store. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, Registry } from '../../../src/runtime/index.js';
import { createLogger } from '../../../src/runtime/effects/log.js';
import type { ResourceEnv } from '../../../src/runtime/env.js';
import { KubeError, type KubeClient } from '../../../src/runtime/kube/client.js';
import { Reconciler } from '../../../src/runtime/reconcile/reconciler.js';
import { encodeProgress, progressAnnotation } from '../../../src/runtime/reconcile/progress.js';
import { Store } from '../../../src/runtime/store.js';
import { collectEvents, policyEnv, myResourceDescriptor, quietEnv } from '../../helpers/resource-env.js';
import { captureLogger } from '../../helpers/e2e-objects.js';
import type { Logger } from '../../../src/runtime/api/context.js';
import { objectApi } from '../../helpers/object-api.js';
import { buildEssence, encodeEssence, LAST_HANDLED_ANNOTATION } from '../../../src/runtime/reconcile/essence.js';

const resource = myResourceDescriptor();
const now = new Date('2026-01-01T00:00:00Z');

type Request = (method: string, path: string, options: { body?: unknown }) => unknown;

function setup(
  annotations: Record<string, string>,
  request: Request,
  descriptor = resource,
  logger: Logger = createLogger({ write: () => {} }),
) {
  const registry = new Registry();
  let calls = 0;
  defineHandler(descriptor, 'myapp').onCreate(
    () => {
      calls++;
      return { phase: 'Done' };
    },
    { registry },
  );
  const store = new Store();
  const metadata = { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '5', annotations };
  store.apply({ apiVersion: 'example.com/v1', kind: 'MyResource', metadata, spec: {} });
  const client = {
    async request(method: string, path: string, options: { body?: unknown } = {}) {
      return request(method, path, options);
    },
  } as unknown as KubeClient;
  const env: ResourceEnv = {
    client,
    resource: descriptor,
    logger,
    signal: new AbortController().signal,
    now: () => now,
    ...policyEnv(),
  };
  const gone: string[] = [];
  const hooks = {
    gone: (uid: string) => {
      gone.push(uid);
      store.delete(uid); // as the controller does
    },
    stopping: () => false,
  };
  const reconciler = new Reconciler(env, registry.handlers, store, hooks);
  return { reconciler, store, gone, calls: () => calls };
}

describe('Reconciler', () => {
  it('a handler delayed by its last attempt: requeue when it is due, nothing written', async () => {
    const delayed = new Date(now.getTime() + 30_000).toISOString();
    const record = encodeProgress({ started: now.toISOString(), purpose: 'create', retries: 1, delayed });
    const { reconciler, calls } = setup({ [progressAnnotation('myapp')]: record }, () => assert.fail('no request'));
    assert.deepEqual(await reconciler.reconcile('u1'), { kind: 'requeue', afterMs: 30_000 });
    assert.equal(calls(), 0);
  });
  it('an object no longer known: done', async () => {
    const { reconciler } = setup({}, () => assert.fail('no request'));
    assert.deepEqual(await reconciler.reconcile('other'), { kind: 'done' });
  });
  it('a 404 on the write: the object is gone, forgotten everywhere', async () => {
    const { reconciler, gone, calls, store } = setup({}, () => {
      throw new KubeError('PATCH: 404', 404, undefined);
    });
    assert.deepEqual(await reconciler.reconcile('u1'), { kind: 'done' });
    assert.deepEqual([gone, calls(), store.get('u1')], [['u1'], 1, undefined]);
  });
  it('records in status: one /status write carries the handler status and the records, none in annotations', async () => {
    const requests: [string, string, unknown][] = [];
    const answer = (body: unknown) => ({
      apiVersion: 'example.com/v1',
      kind: 'MyResource',
      spec: {},
      ...(body as object),
      metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '6', annotations: {} },
    });
    const { reconciler, calls, store } = setup(
      {},
      (method, path, { body }) => {
        requests.push([method, path, body]);
        return answer(body);
      },
      { ...resource, statusRecords: true },
    );
    assert.deepEqual(await reconciler.reconcile('u1'), { kind: 'done' });
    assert.equal(calls(), 1);
    assert.equal(requests.length, 1, JSON.stringify(requests));
    const [method, path, body] = requests[0];
    assert.deepEqual([method, path], ['PATCH', '/apis/example.com/v1/namespaces/ns/myresources/a/status']);
    const status = (body as { status: { myapp: unknown; kopfgen: Record<string, unknown> } }).status;
    assert.deepEqual(status.myapp, { phase: 'Done' });
    assert.deepEqual(Object.keys(status.kopfgen).sort(), [
      'kopfgen.dev/last-handled-configuration',
      'kopfgen.dev/myapp',
    ]);
    assert.equal(status.kopfgen['kopfgen.dev/myapp'], null);
    assert.equal(store.get('u1')?.metadata?.resourceVersion, '6');
  });

  it('records in status pruned by the server: written again as annotations at once, and from then on', async () => {
    const requests: [string, string, unknown][] = [];
    let rv = 5;
    const { reconciler, calls } = setup(
      {},
      (method, path, { body }) => {
        requests.push([method, path, body]);
        const annotations = (body as { metadata?: { annotations?: Record<string, string> } }).metadata?.annotations;
        return {
          metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: String(++rv), annotations },
          spec: {},
          status: { myapp: { phase: 'Done' } }, // status.kopfgen pruned
        };
      },
      { ...resource, statusRecords: true },
    );
    assert.deepEqual(await reconciler.reconcile('u1'), { kind: 'done' });
    assert.equal(calls(), 1, 'not handled again for want of the records');
    assert.deepEqual(
      requests.map(([method, path]) => `${method} ${path.split('/').slice(-2).join('/')}`),
      ['PATCH a/status', 'PATCH myresources/a'],
    );
    const second = requests[1][2] as { metadata: { annotations: Record<string, unknown> } };
    assert.ok(second.metadata.annotations['kopfgen.dev/last-handled-configuration']);
  });

  it('a failure it cannot handle is thrown, for the error policy', async () => {
    const { reconciler } = setup({}, () => {
      throw new KubeError('PATCH: 403 forbidden', 403, undefined);
    });
    await assert.rejects(reconciler.reconcile('u1'), /403 forbidden/);
  });

  describe('an outcome written on a state that changed meanwhile (409 on its resourceVersion)', () => {
    const path = (p: string) => p.split('/').slice(-2).join('/');
    const object = (resourceVersion: string, annotations: Record<string, string> = {}) => ({
      apiVersion: 'example.com/v1',
      kind: 'MyResource',
      metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion, annotations },
      spec: {},
    });
    const conflict = () => new KubeError('PATCH: 409 the object has been modified', 409, undefined);

    it('the same handler still due with the same record: written again on the new state, the handler not run again', async () => {
      const requests: string[] = [];
      let patches = 0;
      const { reconciler, calls, store } = setup(
        {},
        (method, p, { body }) => {
          const rv = (body as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion;
          requests.push(`${method} ${path(p)}${rv ? ` rv=${rv}` : ''}`);
          if (method === 'GET') return object('7');
          if (patches++ === 0) throw conflict();
          return { ...object('8'), status: (body as { status: unknown }).status };
        },
        { ...resource, statusRecords: true },
      );
      assert.deepEqual(await reconciler.reconcile('u1'), { kind: 'done' });
      assert.equal(calls(), 1);
      assert.deepEqual(requests, ['PATCH a/status rv=5', 'GET myresources/a', 'PATCH a/status rv=7']);
      assert.equal(store.get('u1')?.metadata?.resourceVersion, '8');
    });

    it('the object now records that cause as handled (another leader did): the outcome is dropped, nothing overwritten', async () => {
      const requests: string[] = [];
      const logger = captureLogger();
      const handled = {
        [LAST_HANDLED_ANNOTATION]: encodeEssence(buildEssence({ metadata: {}, spec: {} })),
      };
      const { reconciler, calls } = setup(
        {},
        (method, p) => {
          requests.push(`${method} ${path(p)}`);
          if (method === 'GET') return object('9', handled);
          throw conflict();
        },
        resource,
        logger,
      );
      assert.deepEqual(await reconciler.reconcile('u1'), { kind: 'done' });
      assert.equal(calls(), 1);
      assert.deepEqual(requests, ['PATCH a/status', 'GET myresources/a'], 'no write after the conflict');
      assert.ok(
        logger.lines.some((l) => /its success outcome is not recorded: the object changed while it ran/.test(l)),
      );
    });
  });

  it("a timed-out attempt is recorded at once; the reconcile (the object's turn) lasts until the handler ends", async () => {
    const registry = new Registry();
    let release = () => {};
    let ended = false;
    defineHandler(resource, 'myapp').onCreate(
      async () => {
        await new Promise<void>((resolve) => (release = resolve)); // ignores its signal
        ended = true;
      },
      { registry, timeout: 0.01 },
    );
    const api = objectApi({ metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '5' }, spec: {} });
    const written = api.written;
    const store = new Store();
    store.apply(structuredClone(api.current() ?? {}));
    const env = quietEnv(api.client, { resource });
    const reconciler = new Reconciler(env, registry.handlers, store, { gone: () => {}, stopping: () => false });
    let returned = false;
    const reconcile = reconciler.reconcile('u1').then(() => (returned = true));
    for (let i = 0; i < 100 && written.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(written.length > 0, 'the timed-out attempt was written while its handler still runs');
    assert.match(JSON.stringify(written), /timed out after 0.01s/);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual([ended, returned], [false, false], 'the object keeps its turn');
    release();
    await reconcile;
    assert.equal(ended, true);
  });

  it('a handler that edits its own spec on every update: a burst of runs, then the object waits; a loop Event', async () => {
    const registry = new Registry();
    let runs = 0;
    const h = defineHandler(resource, 'myapp');
    const bump = ({ spec, patch }: { spec: unknown; patch: { spec: Record<string, unknown> } }) => {
      runs++;
      patch.spec.n = Number((spec as { n?: number }).n ?? 0) + 1;
    };
    h.onCreate(bump, { registry });
    h.onUpdate(bump, { registry });
    const store = new Store();
    const api = objectApi({ metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '5' }, spec: {} });
    store.apply(structuredClone(api.current() ?? {}));
    const events = collectEvents();
    const env = quietEnv(api.client, { resource, events, selfUpdates: { burst: 4, refillMs: 60_000 } });
    const reconciler = new Reconciler(env, registry.handlers, store, { gone: () => {}, stopping: () => false });
    const action = await reconciler.reconcile('u1');
    assert.equal(action.kind, 'requeue', 'the object waits for its bucket');
    assert.equal(runs, 1 + 4, 'the create, then the burst of self-caused updates');
    assert.deepEqual(
      events.recorded.map((e) => [e.type, e.reason]),
      [['Warning', 'SelfUpdateLoop']],
    );
    assert.match(events.recorded[0].message, /handler myapp changes the object it handles on every run/);
    // someone else's edit is handled at once, whatever the bucket says
    store.apply(api.edit({ spec: { image: 'other' } }));
    await reconciler.reconcile('u1');
    assert.equal(runs, 6);
  });
});
