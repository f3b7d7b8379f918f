/**
 * `invoke` returns the conditions an outcome sets, as the runtime writes them for a resource whose
 * status schema has `conditions` and `observedGeneration`: Reconciling while a retry is pending, Ready
 * once the handler succeeded, Stalled after a PermanentError; a handler's own `ctx.conditions`
 * merged in, and `Ready` left to the handlers under `readiness: 'manual'`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defineHandler, defineResource } from '../../src/runtime/api/define.js';
import { PermanentError, TemporaryError } from '../../src/runtime/api/errors.js';
import { Registry } from '../../src/runtime/api/registry.js';
import { invoke } from '../../src/testing/index.js';

interface Lamp {
  apiVersion: 'example.com/v1';
  kind: 'Lamp';
  metadata?: { name?: string; namespace?: string; generation?: number };
  spec?: { mode?: string };
  status?: {
    main?: { phase?: string };
    observedGeneration?: number;
    conditions?: { type: 'Ready' | 'Reconciling' | 'Stalled' | 'Lit'; status: 'True' | 'False' | 'Unknown' }[];
  };
}

const lamps = defineResource<Lamp>({
  group: 'example.com',
  version: 'v1',
  plural: 'lamps',
  kind: 'Lamp',
  scope: 'Namespaced',
  statusSubresource: true,
  statusConditions: true,
  statusObservedGeneration: true,
  printerColumns: [],
});
const lamp = (mode: string): Lamp => ({
  apiVersion: 'example.com/v1',
  kind: 'Lamp',
  metadata: { name: 'a', namespace: 'default', generation: 3 },
  spec: { mode },
});

function setUp(readiness: 'auto' | 'manual' = 'auto') {
  const registry = new Registry();
  const main = defineHandler<Lamp, { phase?: string }>(lamps, 'main');
  main.onCreate(
    (ctx) => {
      ctx.conditions.set('Lit', { status: 'True', reason: 'Switched', message: 'on' });
      if (readiness === 'manual') ctx.conditions.set('Ready', { status: 'False', reason: 'WarmingUp' });
      if (ctx.spec.mode === 'fail') throw new PermanentError('burnt out');
      if (ctx.spec.mode === 'retry' && ctx.retry === 0) throw new TemporaryError('no power yet', { delay: 5 });
      return { phase: 'On' };
    },
    { registry, readiness },
  );
  return { main, registry };
}

const summary = (conditions: { type: string; status: string; reason: string }[] | undefined) =>
  conditions?.map((c) => `${c.type}=${c.status} ${c.reason}`);

test('invoke: Reconciling while the retry is pending, then Ready for the generation handled', async () => {
  const { main, registry } = setUp();
  const first = await invoke(main, 'create', lamp('retry'), { registry });
  assert.equal(first.kind, 'temporary');
  assert.deepEqual(summary(first.conditions), [
    'Lit=True Switched',
    'Reconciling=True Create:main',
    'Ready=Unknown Create:main',
  ]);
  assert.equal(first.conditions?.find((c) => c.type === 'Reconciling')?.message, 'no power yet');
  assert.equal(first.object.status?.observedGeneration, undefined, 'not observed while reconciling');
  const second = await invoke(main, 'create', first.object, { registry });
  assert.equal(second.kind, 'success');
  assert.deepEqual(summary(second.conditions), ['Lit=True Switched', 'Ready=True CreateHandled']);
  assert.equal(second.object.status?.observedGeneration, 3);
  const lit = (r: typeof first) => r.conditions?.find((c) => c.type === 'Lit')?.lastTransitionTime;
  assert.equal(lit(second), lit(first), 'Lit did not change status: its transition time stays');
});

test('invoke: a PermanentError is Stalled, Ready False, the generation observed', async () => {
  const { main, registry } = setUp();
  const result = await invoke(main, 'create', lamp('fail'), { registry });
  assert.deepEqual(summary(result.conditions), [
    'Lit=True Switched',
    'Stalled=True Create:main',
    'Ready=False Create:main',
  ]);
  assert.match(result.conditions?.find((c) => c.type === 'Stalled')?.message ?? '', /burnt out/);
  assert.equal(result.object.status?.observedGeneration, 3);
});

test("invoke: readiness 'manual' leaves Ready to the handler", async () => {
  const { main, registry } = setUp('manual');
  const result = await invoke(main, 'create', lamp('ok'), { registry });
  assert.deepEqual(summary(result.conditions), ['Lit=True Switched', 'Ready=False WarmingUp']);
  assert.equal(result.object.status?.observedGeneration, 3);
});

test('invoke: a resource without conditions in its schema gets none written', async () => {
  const registry = new Registry();
  const plain = defineResource<Lamp>({ ...lamps, statusConditions: false, statusObservedGeneration: false });
  const main = defineHandler<Lamp, { phase?: string }>(plain, 'main');
  main.onCreate(() => ({ phase: 'On' }), { registry });
  const result = await invoke(main, 'create', lamp('ok'), { registry });
  assert.deepEqual(result.conditions, []);
  assert.equal(result.written.status?.observedGeneration, undefined);
});
