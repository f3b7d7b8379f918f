/**
 * `invoke` (kopfgen/testing): a definition's callbacks run on an in-memory object as one reconcile
 * runs them. Each row registers callbacks in a registry of its own and states what the runtime
 * would write: the outcome, `status.<id>`, the records, the completion, the Events; the context a
 * handler sees (`retry`, `diff`, `old`/`new`, `signal`, `ctx.client`); timers and daemons.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defineHandler, defineResource } from '../../src/runtime/api/define.js';
import { PermanentError, TemporaryError } from '../../src/runtime/api/errors.js';
import { Registry, type HandlerOptions } from '../../src/runtime/api/registry.js';
import type { HandlerContext } from '../../src/runtime/api/context.js';
import type { Essence } from '../../src/runtime/api/field-paths.js';
import type { Client } from '../../src/runtime/api/client-api.js';
import { expectOutcome, fakeClient, invoke, NotDue, type InvokeCause } from '../../src/testing/index.js';

interface Thing {
  apiVersion: 'example.com/v1';
  kind: 'Thing';
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: { size?: number; image?: string };
  status?: { main?: { phase?: string; reason?: string } };
}
interface MainStatus {
  phase?: string;
  reason?: string;
}

const things = defineResource<Thing>({
  group: 'example.com',
  version: 'v1',
  plural: 'things',
  kind: 'Thing',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [],
});
const thing = (spec: Thing['spec'], labels?: Record<string, string>): Thing => ({
  apiVersion: 'example.com/v1',
  kind: 'Thing',
  metadata: { name: 'a', namespace: 'default', labels },
  spec,
});

type Fn = (ctx: HandlerContext<Thing, Thing, Essence<Thing>>) => Promise<MainStatus | void>;
function setUp(cause: 'onCreate' | 'onUpdate' | 'onDelete' | 'onResume', fn: Fn, options: HandlerOptions<Thing> = {}) {
  const registry = new Registry();
  const main = defineHandler<Thing, MainStatus>(things, 'main');
  main[cause](fn as never, { ...options, registry });
  return { main, registry };
}

const rows: {
  name: string;
  cause: InvokeCause;
  on: 'onCreate' | 'onUpdate' | 'onDelete' | 'onResume';
  fn: Fn;
  options?: HandlerOptions<Thing>;
  want: {
    kind: string;
    status?: MainStatus & Record<string, unknown>;
    delay?: number;
    message?: RegExp;
    events: number;
  };
}[] = [
  {
    name: 'success',
    cause: 'create',
    on: 'onCreate',
    fn: async () => ({ phase: 'Ready' }),
    want: { kind: 'success', status: { phase: 'Ready' }, events: 0 },
  },
  {
    name: 'TemporaryError with status and delay',
    cause: 'create',
    on: 'onCreate',
    fn: async () => {
      throw new TemporaryError('later', { delay: 7, status: { phase: 'Pending' } });
    },
    want: { kind: 'temporary', status: { phase: 'Pending' }, delay: 7, message: /^later$/, events: 1 },
  },
  {
    name: 'PermanentError with status',
    cause: 'create',
    on: 'onCreate',
    fn: async () => {
      throw new PermanentError('never', { status: { phase: 'Failed' } });
    },
    want: { kind: 'permanent', status: { phase: 'Failed' }, message: /^never$/, events: 1 },
  },
  {
    name: 'another error: the backoff',
    cause: 'create',
    on: 'onCreate',
    fn: async () => {
      throw new Error('boom');
    },
    options: { backoff: 5 },
    want: { kind: 'temporary', delay: 5, message: /boom/, events: 1 },
  },
  {
    name: "errors: 'ignored'",
    cause: 'create',
    on: 'onCreate',
    fn: async () => {
      throw new Error('meh');
    },
    options: { errors: 'ignored' },
    want: { kind: 'ignored', message: /meh/, events: 0 },
  },
  {
    name: 'retries: 1 fails the first failing attempt for good',
    cause: 'create',
    on: 'onCreate',
    fn: async () => {
      throw new TemporaryError('later', { delay: 1 });
    },
    options: { retries: 1 },
    want: { kind: 'permanent', message: /gave up after 1 attempt/, events: 1 },
  },
  {
    name: 'resume',
    cause: 'resume',
    on: 'onResume',
    fn: async () => ({ phase: 'Resumed' }),
    want: { kind: 'success', status: { phase: 'Resumed' }, events: 0 },
  },
  {
    name: 'delete',
    cause: 'delete',
    on: 'onDelete',
    fn: async () => ({ phase: 'Gone' }),
    want: { kind: 'success', status: { phase: 'Gone' }, events: 0 },
  },
];

for (const row of rows) {
  test(`invoke: ${row.name}`, async () => {
    const { main, registry } = setUp(row.on, row.fn, row.options);
    const result = await invoke(main, row.cause, thing({ size: 1 }), { registry });
    assert.equal(result.kind, row.want.kind);
    assert.deepEqual(result.status, row.want.status);
    assert.equal(result.delay, row.want.delay);
    if (row.want.message) assert.match(result.message ?? '', row.want.message);
    assert.equal(result.events.length, row.want.events);
    if (row.want.status) assert.deepEqual(result.object.status?.main, row.want.status);
  });
}

test('a success completes the cause: the last-handled state is written with the status', async () => {
  const { main, registry } = setUp('onCreate', async () => ({ phase: 'Ready' }));
  const result = await invoke(main, 'create', thing({ size: 1 }), { registry });
  assert.ok(result.object.metadata?.annotations?.['kopfgen.dev/last-handled-configuration']);
  assert.equal(result.object.metadata?.annotations?.['kopfgen.dev/main'], undefined, 'the progress purged');
  // Handled: seen again by a restarted operator, nothing is due (no resume callback).
  await assert.rejects(invoke(main, 'resume', result.object, { registry }), NotDue);
});

test('a retry: the next invoke on the returned object is attempt 2, run at its retry time', async () => {
  const seen: number[] = [];
  const { main, registry } = setUp('onCreate', async (ctx) => {
    seen.push(ctx.retry);
    if (ctx.retry < 2) throw new TemporaryError('later', { delay: 600 });
    return { phase: 'Ready' };
  });
  const first = await invoke(main, 'create', thing({}), { registry });
  const second = await invoke(main, 'create', first.object, { registry });
  const third = await invoke(main, 'create', second.object, { registry });
  assert.deepEqual(seen, [0, 1, 2]);
  expectOutcome(third, { kind: 'success', retry: 2, status: { phase: 'Ready' } });
});

test('update: diff, old and new are the essence last handled and now', async () => {
  let context: HandlerContext<Thing, Thing, Essence<Thing>> | undefined;
  const { main, registry } = setUp('onUpdate', async (ctx) => {
    context = ctx;
  });
  await invoke(main, 'update', thing({ size: 2 }), { registry, old: thing({ size: 1 }) });
  assert.deepEqual(context?.diff, [['change', ['spec', 'size'], 1, 2]]);
  assert.deepEqual([context?.old?.spec, context?.new?.spec], [{ size: 1 }, { size: 2 }]);
  assert.equal(context?.cause, 'update');
});

test('field: old and new are the field values', async () => {
  const registry = new Registry();
  const main = defineHandler<Thing, MainStatus>(things, 'main');
  let seen: unknown[] = [];
  main.onField('spec.size', async (ctx) => void (seen = [ctx.old, ctx.new]), { registry });
  await invoke(main, 'field', thing({ size: 3 }), { registry, old: thing({ size: 1 }) });
  assert.deepEqual(seen, [1, 3]);
});

test('filters: a handler whose labels do not match is not due', async () => {
  const { main, registry } = setUp('onCreate', async () => ({ phase: 'Ready' }), { labels: { tier: 'web' } });
  await assert.rejects(invoke(main, 'create', thing({}), { registry }), NotDue);
  const ok = await invoke(main, 'create', thing({}, { tier: 'web' }), { registry });
  assert.equal(ok.kind, 'success');
});

test('timeout: the signal aborts and the attempt fails for good', async () => {
  const { main, registry } = setUp(
    'onCreate',
    (ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(undefined))),
    { timeout: 0.05 },
  );
  const result = await invoke(main, 'create', thing({}), { registry });
  expectOutcome(result, { kind: 'permanent', message: /timed out after 0.05s/ });
});

test('the patch argument is written, and reported apart from the status', async () => {
  const { main, registry } = setUp('onCreate', async (ctx) => {
    ctx.patch.metadata.labels = { seen: 'yes' };
    return { phase: 'Ready' };
  });
  const result = await invoke(main, 'create', thing({}), { registry });
  assert.deepEqual(result.patch, { metadata: { labels: { seen: 'yes' } } });
  assert.equal(result.object.metadata?.labels?.seen, 'yes');
});

test('ctx.client: the fake by default, inspectable after the run', async () => {
  const { main, registry } = setUp('onCreate', async (ctx) => {
    const client = (ctx as unknown as { client: Client }).client;
    await client.create(
      { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' },
      { metadata: { name: `${ctx.name}-config`, namespace: ctx.namespace }, data: { size: String(ctx.spec?.size) } },
    );
  });
  const result = await invoke(main, 'create', thing({ size: 4 }), { registry });
  const fake = result.client;
  assert.equal(fake.requests.length, 1);
  const client = fakeClient();
  await invoke(main, 'create', thing({ size: 5 }), { registry, client });
  assert.deepEqual(
    client.objects({ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' }).map((o) => o.data),
    [{ size: '5' }],
  );
});

test('timer: one tick; daemon: runs until its signal', async () => {
  const registry = new Registry();
  const main = defineHandler<Thing, MainStatus>(things, 'main');
  main.onTimer(async (ctx) => ({ phase: `tick ${ctx.spec?.size}` }), { interval: 60, registry });
  let stopped = false;
  main.onDaemon(
    (ctx) =>
      new Promise<MainStatus>((resolve) =>
        ctx.signal.addEventListener('abort', () => {
          stopped = true;
          resolve({ phase: 'Stopped' });
        }),
      ),
    { registry },
  );
  const tick = await invoke(main, 'timer', thing({ size: 9 }), { registry });
  expectOutcome(tick, { kind: 'success', status: { phase: 'tick 9' } });
  const stop = new AbortController();
  const daemon = invoke(main, 'daemon', thing({}), { registry, signal: stop.signal });
  setTimeout(() => stop.abort(), 10);
  const ended = await daemon;
  assert.ok(stopped);
  assert.equal(ended.cause, 'daemon');
});

test('sensitive fields: diff, old and new hold digests, as the operator conceals them', async () => {
  let context: HandlerContext<Thing> | undefined;
  const { main, registry } = setUp(
    'onUpdate',
    async (ctx) => {
      context = ctx;
    },
    { sensitive: ['spec.image'] },
  );
  const result = await invoke(main, 'update', thing({ image: 'secret-b' }), {
    registry,
    old: thing({ image: 'secret-a' }),
  });
  assert.equal(context?.diff.length, 1);
  assert.deepEqual(context?.diff[0]?.[1], ['spec', 'image']);
  assert.doesNotMatch(JSON.stringify([context?.diff, context?.old, context?.new]), /secret-/);
  assert.doesNotMatch(JSON.stringify(result.object.metadata?.annotations), /secret-/);
});

interface Part {
  apiVersion: 'example.com/v1';
  kind: 'Part';
  metadata?: { name?: string; namespace?: string; uid?: string };
  status?: { ready?: number };
}
const parts = defineResource<Part>({
  group: 'example.com',
  version: 'v1',
  plural: 'parts',
  kind: 'Part',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [],
});
const part = (ready: number): Part => ({
  apiVersion: 'example.com/v1',
  kind: 'Part',
  metadata: { name: 'p', namespace: 'default' },
  status: { ready },
});

/** A child handler as the webapp example writes one: a deleted part is made again, a part's readiness mirrored. */
function childSetUp(options: HandlerOptions<Thing> = {}) {
  const registry = new Registry();
  const main = defineHandler<Thing, MainStatus>(things, 'main');
  const seen: string[] = [];
  main.onChild(
    parts,
    async (ctx) => {
      seen.push(`${ctx.childEvent} ${ctx.childName} ${ctx.child === undefined ? 'gone' : 'here'}`);
      if (!ctx.child) {
        await ctx.client.create(parts, { metadata: { name: ctx.childName, namespace: ctx.namespace } });
        return { phase: 'Repairing' };
      }
      if ((ctx.child.status?.ready ?? 0) < 0) throw new TemporaryError('not counted yet', { delay: 3 });
      return { phase: `ready ${ctx.child.status?.ready}` };
    },
    { ...options, registry },
  );
  return { main, registry, seen };
}

const childRows: {
  name: string;
  event: 'ADDED' | 'MODIFIED' | 'DELETED';
  child: Part;
  want: { kind: string; status?: MainStatus; delay?: number; seen: string; events: number; made: number };
}[] = [
  {
    name: 'a change: the readiness mirrored into status.main',
    event: 'MODIFIED',
    child: part(3),
    want: { kind: 'success', status: { phase: 'ready 3' }, seen: 'MODIFIED p here', events: 0, made: 0 },
  },
  {
    name: 'added',
    event: 'ADDED',
    child: part(0),
    want: { kind: 'success', status: { phase: 'ready 0' }, seen: 'ADDED p here', events: 0, made: 0 },
  },
  {
    name: 'deleted: child undefined, its name kept; the handler makes it again',
    event: 'DELETED',
    child: part(1),
    want: { kind: 'success', status: { phase: 'Repairing' }, seen: 'DELETED p gone', events: 0, made: 1 },
  },
  {
    name: 'a temporary failure: its delay, a Warning Event',
    event: 'MODIFIED',
    child: part(-1),
    want: { kind: 'temporary', delay: 3, seen: 'MODIFIED p here', events: 1, made: 0 },
  },
];

for (const row of childRows) {
  test(`invoke child: ${row.name}`, async () => {
    const { main, registry, seen } = childSetUp();
    const result = await invoke(main, 'child', thing({ size: 1 }), {
      registry,
      child: row.child,
      childEvent: row.event,
    });
    assert.equal(result.cause, 'child');
    assert.equal(result.kind, row.want.kind);
    assert.deepEqual(result.status, row.want.status);
    assert.equal(result.delay, row.want.delay);
    assert.deepEqual(seen, [row.want.seen]);
    assert.equal(result.events.length, row.want.events);
    assert.deepEqual(result.object.status?.main, row.want.status);
    assert.equal(result.client.objects(parts).length, row.want.made);
  });
}

test('invoke child: not due for another kind, filters that do not match, or an owner marked for deletion', async () => {
  const { main, registry } = childSetUp({ labels: { on: 'yes' } });
  const other = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
  const on = thing({}, { on: 'yes' });
  await assert.rejects(invoke(main, 'child', on, { registry, child: other }), NotDue);
  await assert.rejects(invoke(main, 'child', thing({}), { registry, child: part(1) }), NotDue);
  const deleting = { ...on, metadata: { ...on.metadata, deletionTimestamp: new Date(0).toISOString() } };
  await assert.rejects(invoke(main, 'child', deleting, { registry, child: part(1) }), NotDue);
  await assert.rejects(invoke(main, 'child', on, { registry }), TypeError);
  const ran = await invoke(main, 'child', on, { registry, child: part(2) });
  expectOutcome(ran, { kind: 'success', status: { phase: 'ready 2' } });
});

test('memo: the handlers get the memo given, so the test reads what they stored and carries it on', async () => {
  const registry = new Registry();
  const main = defineHandler<Thing, MainStatus>(things, 'main');
  const bump = (ctx: { memo: object }) => {
    const memo = ctx.memo as { count?: number };
    memo.count = (memo.count ?? 0) + 1;
  };
  main.onCreate(bump, { registry });
  main.onUpdate(bump, { registry });
  const memo: Record<string, unknown> = {};
  const created = await invoke(main, 'create', thing({ size: 1 }), { registry, memo });
  assert.equal(memo.count, 1);
  await invoke(main, 'update', thing({ size: 2 }), { registry, memo, old: created.object });
  assert.equal(memo.count, 2);
  // Without one: an empty memo of its own per invoke.
  let fresh: object | undefined;
  main.onDelete((ctx) => void (fresh = ctx.memo), { registry });
  await invoke(main, 'delete', thing({}), { registry });
  assert.deepEqual(fresh, {});
});
