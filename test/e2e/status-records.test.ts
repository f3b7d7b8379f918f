/**
 * Records in status.kopfgen (a descriptor with statusRecords, a CRD whose status keeps unknown
 * fields), against a real API server: one /status write per handled object carries the handler's
 * status with its records; an update gets its exact diff from the essence kept there; records an
 * operator left in annotations are read, not handled again, and moved to status on the next write.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, defineResource, Registry, type DiffItem } from '../../src/runtime/index.js';
import { KubeClient, type RequestOptions } from '../../src/runtime/kube/client.js';
import { Operator } from '../../src/runtime/operator.js';
import { eventually, skip, TEST_TIMEOUT } from '../helpers/envtest.js';
import { captureLogger, create, namespace, myResources as my } from '../helpers/e2e-objects.js';
import { E2eSuite, MYRESOURCES_CRD } from '../helpers/e2e-suite.js';

const suite = new E2eSuite({ crds: [MYRESOURCES_CRD] });

const LAST = 'kopfgen.dev/last-handled-configuration';

const descriptor = (statusRecords: boolean) =>
  defineResource<{ spec: { image: string } }>({
    group: 'example.com',
    version: 'v1',
    plural: 'myresources',
    kind: 'MyResource',
    scope: 'Namespaced',
    statusSubresource: true,
    statusRecords,
    printerColumns: [],
  });

/** An operator on `ns` counting its handler calls and the writes it sends to objects. */
async function operator(ns: string, statusRecords: boolean) {
  const registry = new Registry();
  const calls: string[] = [];
  const diffs: (readonly DiffItem[])[] = [];
  const h = defineHandler(descriptor(statusRecords), 'myapp');
  h.onCreate(
    ({ name }) => {
      calls.push(`create ${name}`);
      return { phase: 'Created' };
    },
    { registry },
  );
  h.onUpdate(
    ({ name, diff }) => {
      calls.push(`update ${name}`);
      diffs.push(diff);
      return { phase: 'Updated' };
    },
    { registry },
  );
  const client = await KubeClient.fromDefault();
  const writes: string[] = [];
  /** Counts the writes to objects of `counted`, and of the fenced clients the operator's terms make of it. */
  const count = (counted: KubeClient): KubeClient => {
    const request = counted.request.bind(counted);
    counted.request = <T>(method: string, path: string, options?: RequestOptions) => {
      if (method === 'PATCH' && path.includes('/myresources/'))
        writes.push(path.slice(path.indexOf('/myresources/') + 13));
      return request<T>(method, path, options);
    };
    const fenced = counted.fenced.bind(counted);
    counted.fenced = (fence) => count(fenced(fence));
    return counted;
  };
  count(client);
  const op = new Operator({ registry, namespace: ns, logger: captureLogger(), client });
  await op.start();
  return { op, calls, diffs, writes };
}

const body = (name: string, image: string, annotations?: Record<string, string>) => ({
  apiVersion: 'example.com/v1',
  kind: 'MyResource',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { image },
});
const patchImage = (ns: string, name: string, image: string) => suite.mergePatch(my(ns, name), { spec: { image } });
const phase = (ns: string, name: string, want: string) => suite.untilPhase(`${name} ${want}`, my(ns, name), want);

describe('records in status.kopfgen', { skip }, () => {
  suite.hooks();

  it('one /status write per handled object; an update gets its exact diff', { timeout: TEST_TIMEOUT }, async () => {
    const ns = await namespace(suite.client, 'records');
    const { op, calls, diffs, writes } = await operator(ns, true);
    try {
      await create(suite.client, my(ns), body('a', 'nginx:1', { team: 'x' }));
      await phase(ns, 'a', 'Created');
      await new Promise((r) => setTimeout(r, 1000)); // a second write would show by now
      assert.deepEqual(writes, ['a/status']);
      const created = await suite.get(my(ns, 'a'));
      assert.ok(created.status.kopfgen[LAST], 'the essence is in status');
      assert.equal(created.status.kopfgen['kopfgen.dev/myapp'], undefined, 'the progress record purged');
      assert.deepEqual(created.metadata.annotations, { team: 'x' }, 'no records in annotations');

      await patchImage(ns, 'a', 'nginx:2');
      await phase(ns, 'a', 'Updated');
      await new Promise((r) => setTimeout(r, 1000));
      assert.deepEqual(calls, ['create a', 'update a']);
      assert.deepEqual(diffs, [[['change', ['spec', 'image'], 'nginx:1', 'nginx:2']]]);
      assert.deepEqual(writes, ['a/status', 'a/status']);
    } finally {
      await op.stop();
    }
  });

  it(
    'records left in annotations: not handled again, moved to status on the next write',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'records-move');
      const before = await operator(ns, false);
      try {
        await create(suite.client, my(ns), body('m', 'nginx:1'));
        await phase(ns, 'm', 'Created');
        await eventually('the annotation records', async () =>
          (await suite.get(my(ns, 'm'))).metadata.annotations?.[LAST] ? true : undefined,
        );
      } finally {
        await before.op.stop();
      }
      const after = await operator(ns, true);
      try {
        await new Promise((r) => setTimeout(r, 1500));
        assert.deepEqual(after.calls, [], 'handled before: nothing to do');
        await patchImage(ns, 'm', 'nginx:2');
        await phase(ns, 'm', 'Updated');
        assert.deepEqual(after.calls, ['update m']);
        assert.deepEqual(after.diffs, [[['change', ['spec', 'image'], 'nginx:1', 'nginx:2']]]);
        const moved = await eventually('the records moved', async () => {
          const current = await suite.get(my(ns, 'm'));
          return current.metadata.annotations?.[LAST] === undefined && current.status.kopfgen?.[LAST]
            ? current
            : undefined;
        });
        assert.match(moved.status.kopfgen[LAST], /nginx:2/);
      } finally {
        await after.op.stop();
      }
    },
  );
});
