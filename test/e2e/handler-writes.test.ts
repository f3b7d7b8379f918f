/**
 * What a handler writes lands on a real API server as its types promise: `null` clears a status
 * field an earlier error set (and `status: 'replace'` drops it without naming it), an
 * ownerReference and a finalizer of the handler's own land beside the operator's finalizer, and
 * a handler's own spec edit is an update (kopf stores the state before the handler).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, Registry, TemporaryError } from '../../src/runtime/index.js';
import { Operator } from '../../src/runtime/operator.js';
import { FINALIZER } from '../../src/runtime/reconcile/essence.js';
import { eventually, skip, TEST_TIMEOUT } from '../helpers/envtest.js';
import {
  captureLogger,
  create,
  myResource,
  namespace,
  type Body,
  myResources as my,
  myResourceObject,
} from '../helpers/e2e-objects.js';
import { E2eSuite, MYRESOURCES_CRD } from '../helpers/e2e-suite.js';

const suite = new E2eSuite({ crds: [MYRESOURCES_CRD] });

type MyappStatus = { phase?: string; reason?: string };
/** What `kopfgen generate` emits for the myapp handler (the e2e tests do not depend on the generator). */
class MyappTemporaryError extends TemporaryError<MyappStatus> {}

async function operate(registry: Registry, ns: string) {
  const operator = new Operator({ registry, namespace: ns, logger: captureLogger() });
  suite.track(operator);
  await operator.start();
}

const web = (name: string) => myResourceObject(name, { image: 'nginx' });

describe('handler writes end to end', { skip }, () => {
  suite.hooks();

  it(
    'a success clears the reason an error set: by null (merge), or by leaving it out (replace)',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'clear');
      const registry = new Registry();
      const failFirst = (retry: number) => {
        if (retry === 0)
          throw new MyappTemporaryError('waiting for the database', {
            delay: 1,
            status: { phase: 'Pending', reason: 'waiting-for-db' },
          });
      };
      defineHandler<typeof myResource.__resource, MyappStatus>(myResource, 'myapp').onCreate(
        ({ retry }) => {
          failFirst(retry);
          return { phase: 'Ok', reason: null };
        },
        { registry },
      );
      defineHandler<typeof myResource.__resource, MyappStatus>(myResource, 'whole').onCreate(
        ({ retry }) => {
          failFirst(retry);
          return { phase: 'Ok' };
        },
        { registry, status: 'replace' },
      );
      await operate(registry, ns);
      await create(suite.client, my(ns), web('web'));
      const status = await eventually('both handlers succeeded', async () => {
        const current = await suite.get(my(ns, 'web'));
        const s = current.status ?? {};
        return s.myapp?.phase === 'Ok' && s.whole?.phase === 'Ok' ? s : undefined;
      });
      assert.deepEqual(status.myapp, { phase: 'Ok' }, 'null deleted the reason');
      assert.deepEqual(status.whole, { phase: 'Ok' }, "'replace' deleted the reason it was not given");
    },
  );

  it(
    "an ownerReference and the handler's own finalizer land beside the operator's finalizer",
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'owners');
      const registry = new Registry();
      const owner = await create(suite.client, `/api/v1/namespaces/${ns}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'owner' },
        data: { a: '1' },
      });
      const reference = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: String(owner.metadata.uid) };
      const h = defineHandler<typeof myResource.__resource, MyappStatus>(myResource, 'myapp');
      h.onCreate(
        ({ patch }) => {
          patch.metadata.ownerReferences = [reference];
          patch.metadata.finalizers = ['example.com/cleanup'];
          return { phase: 'Owned' };
        },
        { registry },
      );
      h.onDelete(() => undefined, { registry });
      await operate(registry, ns);
      await create(suite.client, my(ns), web('owned'));
      const body = await eventually('the create handler ran', async () => {
        const current = await suite.get(my(ns, 'owned'));
        return current.status?.myapp?.phase === 'Owned' ? current : undefined;
      });
      assert.deepEqual(
        body.metadata.ownerReferences.map((r: Body) => [r.kind, r.name, r.uid]),
        [['ConfigMap', 'owner', reference.uid]],
      );
      assert.deepEqual([...body.metadata.finalizers].sort(), ['example.com/cleanup', FINALIZER].sort());
      // Release the object for the namespace's deletion: the custom finalizer is the test's to remove.
      await suite.mergePatch(my(ns, 'owned'), {
        metadata: { finalizers: [FINALIZER], resourceVersion: body.metadata.resourceVersion },
      });
    },
  );

  it("a create handler's own spec edit is an update, as in kopf", { timeout: TEST_TIMEOUT }, async () => {
    const ns = await namespace(suite.client, 'self-edit');
    const registry = new Registry();
    const updates: string[] = [];
    const h = defineHandler<typeof myResource.__resource, MyappStatus>(myResource, 'myapp');
    h.onCreate(
      ({ patch }) => {
        patch.spec.replicas = 3;
      },
      { registry },
    );
    h.onUpdate(
      ({ diff, old, new: now }) => {
        updates.push(`${JSON.stringify(diff)} ${old?.spec?.replicas}->${now?.spec?.replicas}`);
      },
      { registry },
    );
    await operate(registry, ns);
    await create(suite.client, my(ns), web('edited')); // replicas defaults to 1 (the CRD says so)
    await eventually('the update ran', async () => (updates.length > 0 ? true : undefined));
    await new Promise((r) => setTimeout(r, 1000));
    assert.deepEqual(updates, ['[["change",["spec","replicas"],1,3]] 1->3']);
  });
});
