/**
 * Faults between the runtime and a real API server, injected by a proxy: a dropped watch,
 * `410 Gone`, 409/429/5xx answers to patches, slow answers. Every change is handled exactly once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, Registry } from '../../src/runtime/index.js';
import { Operator } from '../../src/runtime/operator.js';
import { clientFor, eventually, skip, TEST_TIMEOUT } from '../helpers/envtest.js';
import {
  captureLogger,
  create,
  myResource,
  namespace,
  myResources as my,
  myResourceObject,
} from '../helpers/e2e-objects.js';
import { E2eSuite, MYRESOURCES_CRD } from '../helpers/e2e-suite.js';

const suite = new E2eSuite({ crds: [MYRESOURCES_CRD], proxy: true });

const mr = (name: string, image = 'x') => myResourceObject(name, { image });

/** An operator in `ns` talking through the proxy; counts handler calls per object and cause. */
async function proxied(ns: string) {
  const registry = new Registry();
  const calls = new Map<string, number>();
  const count = (key: string) => calls.set(key, (calls.get(key) ?? 0) + 1);
  const h = defineHandler<unknown, { phase?: string; image?: string }>(myResource, 'myapp');
  h.onCreate(
    ({ name, spec }) => {
      count(`create ${name}`);
      return { phase: 'Created', image: (spec as { image: string }).image };
    },
    { registry },
  );
  h.onUpdate(
    ({ name, spec }) => {
      count(`update ${name}`);
      return { phase: 'Updated', image: (spec as { image: string }).image };
    },
    { registry },
  );
  const logger = captureLogger();
  const operator = new Operator({ registry, namespace: ns, client: clientFor(suite.proxy.kubeconfig), logger });
  suite.track(operator);
  await operator.start();
  await eventually('the watch to open', async () =>
    suite.proxy.seen.some((s) => s.path.includes(`/namespaces/${ns}/`) && s.path.includes('watch=')) ? true : undefined,
  );
  return { calls, logger };
}

async function phase(ns: string, name: string, expected: string, image?: string): Promise<void> {
  await eventually(`${name} ${expected}`, async () => {
    const body = await suite.get(my(ns, name));
    const ok = body.status?.myapp?.phase === expected && (!image || body.status.myapp.image === image);
    return ok && body.metadata.annotations?.['kopfgen.dev/last-handled-configuration'] ? true : undefined;
  });
}

describe('faults between the runtime and the API server', { skip }, () => {
  suite.hooks();

  it(
    'a dropped watch resumes: changes made meanwhile are handled once, nothing twice',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'drop');
      const { calls, logger } = await proxied(ns);
      await create(suite.client, my(ns), mr('a'));
      await phase(ns, 'a', 'Created');
      suite.proxy.inject({ watch: true, path: new RegExp(`/namespaces/${ns}/`), delayMs: 1500 }); // keep it down a while
      assert.ok(suite.proxy.dropWatches() >= 1);
      await create(suite.client, my(ns), mr('b'));
      await suite.mergePatch(my(ns, 'a'), { spec: { image: 'y' } });
      await phase(ns, 'b', 'Created');
      await phase(ns, 'a', 'Updated', 'y');
      assert.ok(
        logger.lines.some((l) => l.includes('dropped, resuming from resourceVersion')),
        'resumed the watch, no relist',
      );
      assert.ok(!logger.lines.some((l) => l.includes('relisting')));
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(Object.fromEntries(calls), { 'create a': 1, 'create b': 1, 'update a': 1 });
    },
  );

  it(
    '410 Gone relists: changes made meanwhile are handled once, nothing twice',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'gone');
      const { calls, logger } = await proxied(ns);
      await create(suite.client, my(ns), mr('a'));
      await phase(ns, 'a', 'Created');
      suite.proxy.inject({ watch: true, path: new RegExp(`/namespaces/${ns}/`), gone: true, delayMs: 1000 });
      suite.proxy.dropWatches();
      await create(suite.client, my(ns), mr('c'));
      await suite.mergePatch(my(ns, 'a'), { spec: { image: 'z' } });
      await phase(ns, 'c', 'Created');
      await phase(ns, 'a', 'Updated', 'z');
      assert.ok(suite.proxy.seen.some((s) => s.fault === 'gone' && s.path.includes(`/namespaces/${ns}/`)));
      assert.ok(logger.lines.some((l) => l.includes('410 Gone, relisting')));
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(Object.fromEntries(calls), { 'create a': 1, 'create c': 1, 'update a': 1 });
    },
  );

  it(
    '409 (read and decided again), 429 and 5xx (retried) answers to patches: nothing lost, the handler runs once',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'errors');
      const { calls } = await proxied(ns);
      const path = new RegExp(`/namespaces/${ns}/myresources/p`);
      for (const status of [409, 429, 500, 503]) suite.proxy.inject({ method: 'PATCH', path, status });
      await create(suite.client, my(ns), mr('p'));
      await phase(ns, 'p', 'Created');
      const injected = suite.proxy.seen.filter((s) => path.test(s.path) && s.fault).map((s) => s.status);
      assert.deepEqual(injected, [409, 429, 500, 503]);
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(Object.fromEntries(calls), { 'create p': 1 });
    },
  );

  it('slow answers (list, patch) delay but do not duplicate or lose anything', { timeout: TEST_TIMEOUT }, async () => {
    const ns = await namespace(suite.client, 'slow');
    const path = new RegExp(`/namespaces/${ns}/`);
    suite.proxy.inject({ method: 'GET', watch: false, path, delayMs: 1500 });
    suite.proxy.inject({ method: 'PATCH', path, delayMs: 2000, times: 2 });
    const { calls } = await proxied(ns);
    await create(suite.client, my(ns), mr('s1'));
    await create(suite.client, my(ns), mr('s2'));
    await phase(ns, 's1', 'Created');
    await phase(ns, 's2', 'Created');
    assert.equal(suite.proxy.seen.filter((s) => s.fault === 'slow' && path.test(s.path)).length, 3);
    assert.deepEqual(Object.fromEntries(calls), { 'create s1': 1, 'create s2': 1 });
  });
});
