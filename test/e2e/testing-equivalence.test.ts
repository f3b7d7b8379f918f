/**
 * `invoke` (kopfgen/testing) against the real runtime on a real API server: for each row of the
 * runtime's decide table that ends in a handler outcome (causes create, update with a field handler,
 * resume, delete, a delete handler failing for good; success, TemporaryError and PermanentError with
 * status, an ignored error, `retries` turning a temporary failure permanent, `timeout` passed before
 * the retry, the retry, a handler's own patch, filters), the same
 * callbacks run once through `invoke` and once in an operator (`startOperator`) on envtest, and
 * both must come to the same outcome: the same outcome log line (kind, delay, message, cause), the
 * same `status.<id>`, the same Warning Event message, the same handler patch written.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  defineHandler,
  defineResource,
  PermanentError,
  Registry,
  TemporaryError,
  type HandlerDefinition,
} from '../../src/runtime/index.js';
import { invoke, startOperator, type Invoked, type RunningOperator } from '../../src/testing/index.js';
import { MyResourceDescriptor, type MyResource } from '../../examples/myresource/generated/index.js';
import { START_TIMEOUT, skip, startCluster, stopCluster, TEST_TIMEOUT, type Cluster } from '../helpers/envtest.js';
import { namespace } from '../helpers/e2e-objects.js';

type Status = { phase?: string; note?: string };
type Def = HandlerDefinition<MyResource, Status>;

const registry = new Registry();
/** One handler id per row, its callbacks matching only objects labelled with the row's name. */
function row(id: string): { def: Def; options: { registry: Registry; labels: Record<string, string> } } {
  return {
    def: defineHandler<MyResource, Status>(MyResourceDescriptor, id),
    options: { registry, labels: { row: id } },
  };
}

const success = row('success');
success.def.onCreate(async (ctx) => ({ phase: 'Ready', note: ctx.spec?.image }), success.options);
const temporary = row('temporary');
temporary.def.onCreate(async () => {
  throw new TemporaryError('waiting', { delay: 600, status: { phase: 'Pending' } });
}, temporary.options);
const permanent = row('permanent');
permanent.def.onCreate(async () => {
  throw new PermanentError('refused', { status: { phase: 'Failed' } });
}, permanent.options);
const ignored = row('ignored');
ignored.def.onCreate(
  async () => {
    throw new Error('not mine to mind');
  },
  { ...ignored.options, errors: 'ignored' },
);
const limited = row('limited');
limited.def.onCreate(
  async () => {
    throw new TemporaryError('again', { delay: 600, status: { phase: 'Retrying' } });
  },
  { ...limited.options, retries: 1 },
);
const retried = row('retried');
retried.def.onCreate(async (ctx) => {
  if (ctx.retry === 0) throw new TemporaryError('not yet', { delay: 120, status: { phase: 'Pending', note: 'first' } });
  return { phase: 'Ready', note: null };
}, retried.options);
const expired = row('expired');
expired.def.onCreate(
  async () => {
    throw new TemporaryError('slow', { delay: 5, status: { phase: 'Waiting' } });
  },
  { ...expired.options, timeout: 10 },
);
const patched = row('patched');
patched.def.onCreate(async (ctx) => {
  ctx.patch.metadata.labels = { touched: 'yes' };
  return { phase: 'Labelled' };
}, patched.options);
const updated = row('updated');
updated.def.onCreate(async () => ({ phase: 'Created' }), updated.options);
updated.def.onUpdate(async (ctx) => ({ phase: 'Updated', note: JSON.stringify(ctx.diff) }), updated.options);
updated.def.onField(
  'spec.replicas',
  async (ctx) => ({ note: `${String(ctx.old)}→${String(ctx.new)}` }),
  updated.options,
);
const resumed = row('resumed');
resumed.def.onCreate(async () => ({ phase: 'Created' }), resumed.options);
resumed.def.onResume(async (ctx) => ({ phase: 'Resumed', note: String(ctx.retry) }), resumed.options);
const deleted = row('deleted');
deleted.def.onCreate(async () => ({ phase: 'Created' }), deleted.options);
deleted.def.onDelete(async () => ({ phase: 'Deleting' }), deleted.options);
const refusing = row('refusing');
refusing.def.onCreate(async () => ({ phase: 'Created' }), refusing.options);
refusing.def.onDelete(async () => {
  throw new PermanentError('cannot clean up', { status: { phase: 'Stuck' } });
}, refusing.options);

const object = (id: string, ns: string, spec: MyResource['spec'] = { image: 'nginx', replicas: 1 }): MyResource => ({
  apiVersion: 'example.com/v1',
  kind: 'MyResource',
  metadata: { name: id, namespace: ns, labels: { row: id } },
  spec,
});

/** The outcome lines of one handler, as both write them (logOutcome), in order. */
function outcomeLines(logs: readonly string[], id: string, name: string): string[] {
  return logs.filter(
    (line) => line.includes(`handler=${id} `) && line.includes(`name=${name} `) && / outcome=/.test(line),
  );
}

const statusOf = (o: unknown, id: string): unknown => Reflect.get(Object(Reflect.get(Object(o), 'status')), id);

let cluster: Cluster | undefined;
let op: RunningOperator | undefined;
let ns = '';

describe('invoke equals the runtime on a real API server', { skip }, () => {
  before(
    async () => {
      cluster = startCluster();
      ns = await namespace(cluster.client, 'equivalence');
      op = await startOperator(registry, {
        kubeconfig: cluster.kubeconfig,
        crds: ['crds/myresource.yaml'],
        namespace: ns,
      });
    },
    { timeout: START_TIMEOUT },
  );
  after(async () => {
    await op?.stop();
    stopCluster(cluster);
  });

  const running = () => {
    if (!op) throw new Error('the operator did not start');
    return op;
  };

  /** Creates the row's object in the cluster, waits for as many outcome lines as `unit` has, compares them. */
  async function compare(id: string, unit: Invoked<MyResource, Status>) {
    const o = running();
    await o.create(MyResourceDescriptor, object(id, ns));
    await waitLines(id, outcomeLines(unit.logs, id, id).length);
    const live = await o.get(MyResourceDescriptor, id, { namespace: ns });
    assert.deepEqual(outcomeLines(o.logs, id, id), outcomeLines(unit.logs, id, id));
    assert.deepEqual(statusOf(live, id), statusOf(unit.object, id));
    return live;
  }

  async function waitLines(id: string, count: number) {
    const o = running();
    const deadline = Date.now() + 30_000;
    while (outcomeLines(o.logs, id, id).length < count) {
      if (Date.now() > deadline)
        throw new Error(`no ${count} outcome line(s) for ${id}: ${o.logs.slice(-5).join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  for (const [id, def] of [
    ['success', success.def],
    ['temporary', temporary.def],
    ['permanent', permanent.def],
    ['ignored', ignored.def],
    ['limited', limited.def],
    ['patched', patched.def],
  ] as const) {
    it(`create: ${id}`, { timeout: TEST_TIMEOUT }, async () => {
      const unit = await invoke(def, 'create', object(id, ns), { registry });
      const live = await compare(id, unit);
      assert.deepEqual(live?.metadata?.labels, unit.object.metadata?.labels);
      // Events are posted in the background (aggregated): wait for as many as invoke reports.
      let mine: string[] = [];
      for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
        const events = await running().client.request<{
          items: { message: string; involvedObject: { name: string } }[];
        }>('GET', `/api/v1/namespaces/${ns}/events`);
        mine = events.items.filter((e) => e.involvedObject.name === id).map((e) => e.message);
        if (mine.length >= unit.events.length) break;
      }
      assert.deepEqual(
        mine,
        unit.events.map((e) => e.message),
      );
    });
  }

  it(
    'create: the retry (the second attempt, after the delay) clears a field with null',
    { timeout: TEST_TIMEOUT },
    async () => {
      const first = await invoke(retried.def, 'create', object('retried', ns), { registry });
      const second = await invoke(retried.def, 'create', first.object, { registry });
      const o = running();
      await compare('retried', first);
      o.advance(120);
      // Any event of the object makes the reconcile look again: the retry is due on the moved clock.
      await o.patch(MyResourceDescriptor, 'retried', { metadata: { annotations: { poke: '1' } } }, { namespace: ns });
      await waitLines('retried', 2);
      const live = await o.get(MyResourceDescriptor, 'retried', { namespace: ns });
      assert.deepEqual(outcomeLines(o.logs, 'retried', 'retried'), [
        ...outcomeLines(first.logs, 'retried', 'retried'),
        ...outcomeLines(second.logs, 'retried', 'retried'),
      ]);
      assert.deepEqual(statusOf(live, 'retried'), statusOf(second.object, 'retried'));
    },
  );

  it('timeout: past it, the handler fails for good without running again', { timeout: TEST_TIMEOUT }, async () => {
    const o = running();
    const started = o.now();
    const first = await invoke(expired.def, 'create', object('expired', ns), { registry, now: started });
    const second = await invoke(expired.def, 'create', first.object, {
      registry,
      now: new Date(started.getTime() + 20_000),
    });
    await compare('expired', first);
    o.advance(20);
    await o.patch(MyResourceDescriptor, 'expired', { metadata: { annotations: { poke: '1' } } }, { namespace: ns });
    await waitLines('expired', 2);
    const live = await o.get(MyResourceDescriptor, 'expired', { namespace: ns });
    assert.deepEqual(outcomeLines(o.logs, 'expired', 'expired'), [
      ...outcomeLines(first.logs, 'expired', 'expired'),
      ...outcomeLines(second.logs, 'expired', 'expired'),
    ]);
    assert.match(outcomeLines(second.logs, 'expired', 'expired')[0] ?? '', /failed permanently: timed out after 10s/);
    assert.deepEqual(statusOf(live, 'expired'), statusOf(second.object, 'expired'));
  });

  it('update with a field handler: diff, old and new', { timeout: TEST_TIMEOUT }, async () => {
    const before = object('updated', ns);
    const after = object('updated', ns, { image: 'httpd', replicas: 3 });
    const created = await invoke(updated.def, 'create', before, { registry });
    const unit = await invoke(
      updated.def,
      'update',
      { ...after, status: created.object.status },
      { registry, old: before },
    );
    const o = running();
    await compare('updated', created);
    const done = outcomeLines(created.logs, 'updated', 'updated').length;
    await o.patch(MyResourceDescriptor, 'updated', { spec: { image: 'httpd', replicas: 3 } }, { namespace: ns });
    await waitLines('updated', done + outcomeLines(unit.logs, 'updated', 'updated').length);
    const live = await o.get(MyResourceDescriptor, 'updated', { namespace: ns });
    assert.deepEqual(
      outcomeLines(o.logs, 'updated', 'updated').slice(done),
      outcomeLines(unit.logs, 'updated', 'updated'),
    );
    assert.deepEqual(statusOf(live, 'updated'), statusOf(unit.object, 'updated'));
  });

  for (const [id, def, why] of [
    ['deleted', deleted.def, 'succeeds'],
    ['refusing', refusing.def, 'fails for good, and the object is released all the same'],
  ] as const)
    it(`delete: the delete handler ${why}`, { timeout: TEST_TIMEOUT }, async () => {
      const created = await invoke(def, 'create', object(id, ns), { registry });
      const unit = await invoke(def, 'delete', created.object, { registry });
      const o = running();
      await compare(id, created);
      const done = outcomeLines(created.logs, id, id).length;
      await o.delete(MyResourceDescriptor, id, { namespace: ns });
      await waitLines(id, done + 1);
      assert.deepEqual(outcomeLines(o.logs, id, id).slice(done), outcomeLines(unit.logs, id, id));
      assert.deepEqual(unit.object.metadata?.finalizers, [], 'invoke: the finalizer released');
      // The runtime released it too: the object goes once its finalizer is off.
      for (const deadline = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 100))) {
        if ((await o.get(MyResourceDescriptor, id, { namespace: ns })) === undefined) break;
        if (Date.now() > deadline) assert.fail(`${id} is still there 30 s after its delete handler ran`);
      }
    });

  it('startOperator refuses a resource the cluster does not serve, naming it', { timeout: TEST_TIMEOUT }, async () => {
    const other = new Registry();
    const gizmos = defineResource({ ...MyResourceDescriptor, plural: 'gizmos', kind: 'Gizmo' });
    defineHandler(gizmos, 'main').onCreate(async () => undefined, { registry: other });
    await assert.rejects(
      startOperator(other, { kubeconfig: cluster?.kubeconfig, namespace: ns, cacheSyncTimeoutSeconds: 5 }),
      /gizmos/,
    );
  });

  it('resume: a restarted operator resumes the handled object', { timeout: TEST_TIMEOUT }, async () => {
    const created = await invoke(resumed.def, 'create', object('resumed', ns), { registry });
    const unit = await invoke(resumed.def, 'resume', created.object, { registry });
    await compare('resumed', created);
    await running().stop();
    op = await startOperator(registry, { kubeconfig: cluster?.kubeconfig, namespace: ns });
    await waitLines('resumed', 1);
    const live = await running().get(MyResourceDescriptor, 'resumed', { namespace: ns });
    assert.deepEqual(outcomeLines(running().logs, 'resumed', 'resumed'), outcomeLines(unit.logs, 'resumed', 'resumed'));
    assert.deepEqual(statusOf(live, 'resumed'), statusOf(unit.object, 'resumed'));
  });
});
