/** The kstatus rules: where an object stands after a write, and the conditions and observed generation that say so. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubernetesObject } from '../../../src/runtime/api/kube-types.js';
import type { RegisteredHandler } from '../../../src/runtime/api/registry.js';
import { myResourceDescriptor } from '../../helpers/resource-env.js';
import {
  conditionsPatch,
  handlerReason,
  readinessOf,
  setCondition,
  withConditions,
  type Condition,
  type ConditionSettings,
  type ConditionUpdate,
  type Readiness,
  type ReadinessInput,
} from '../../../src/runtime/reconcile/conditions.js';
import { DEFAULT_MARKS } from '../../../src/runtime/reconcile/marks.js';
import type { ProgressRecord } from '../../../src/runtime/reconcile/progress.js';

const T0 = '2026-01-01T00:00:00Z';
const NOW = new Date('2026-01-01T00:05:00.123Z');
const NOW_TEXT = '2026-01-01T00:05:00Z';
const AUTO: ConditionSettings = { conditions: true, observedGeneration: true, readiness: 'auto' };

const record = (fields: Partial<ProgressRecord>): ProgressRecord => ({
  started: T0,
  purpose: 'create',
  retries: 1,
  ...fields,
});
const retrying = record({ delayed: '2026-01-01T00:06:00Z', message: 'database not ready' });
const succeeded = record({ stopped: T0, success: true });
const failedRecord = record({ stopped: T0, failure: true, message: 'bad spec' });

function object(status?: Record<string, unknown>, generation = 2): KubernetesObject {
  return { metadata: { name: 'a', generation }, ...(status ? { status } : {}) };
}

const cond = (type: string, status: Condition['status'], reason: string, at = T0, message = ''): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: at,
});

describe('conditions', () => {
  it('readinessOf: the rules table, from the records of the running cause', () => {
    const base: ReadinessInput = { cause: 'create', handlers: [], completes: false, generation: 2 };
    const rows: { name: string; given: ReadinessInput; want: Readiness | undefined }[] = [
      {
        name: 'the handler written retries: Reconciling with its TemporaryError message',
        given: { ...base, handlers: [{ id: 'ensure', record: retrying }], current: 'ensure' },
        want: { kind: 'reconciling', reason: 'Create:ensure', message: 'database not ready' },
      },
      {
        name: 'one handler done, the next still due: Reconciling names the handler due',
        given: {
          ...base,
          handlers: [
            { id: 'first', record: succeeded },
            { id: 'second', record: undefined },
          ],
          current: 'first',
          cause: 'update',
        },
        want: { kind: 'reconciling', reason: 'Update:second', message: 'waiting for handler second' },
      },
      {
        name: 'another handler retries while the one written succeeded: its retry is reported',
        given: {
          ...base,
          handlers: [
            { id: 'a', record: succeeded },
            { id: 'b', record: retrying },
          ],
          current: 'a',
        },
        want: { kind: 'reconciling', reason: 'Create:b', message: 'database not ready' },
      },
      {
        name: 'a permanent failure: Stalled, with the generation observed',
        given: { ...base, handlers: [{ id: 'ensure', record: failedRecord }], current: 'ensure' },
        want: { kind: 'stalled', reason: 'Create:ensure', message: 'handler ensure: bad spec', generation: 2 },
      },
      {
        name: 'a failure stays Stalled when the cause completes',
        given: {
          ...base,
          handlers: [
            { id: 'a', record: failedRecord },
            { id: 'b', record: succeeded },
          ],
          completes: true,
        },
        want: { kind: 'stalled', reason: 'Create:a', message: 'handler a: bad spec', generation: 2 },
      },
      {
        name: 'every handler succeeded: Ready for the generation handled',
        given: { ...base, handlers: [{ id: 'ensure', record: succeeded }], completes: true },
        want: {
          kind: 'ready',
          reason: 'CreateHandled',
          message: 'every handler of the create succeeded',
          generation: 2,
        },
      },
      {
        name: 'a completion without handlers (an update nobody handles): Ready',
        given: { ...base, cause: 'update', completes: true, generation: 5 },
        want: {
          kind: 'ready',
          reason: 'UpdateHandled',
          message: 'every handler of the update succeeded',
          generation: 5,
        },
      },
      {
        name: 'a failure done with an earlier cause does not stall this one',
        given: { ...base, handlers: [{ id: 'a', record: { ...failedRecord, done: true } }], completes: true },
        want: {
          kind: 'ready',
          reason: 'CreateHandled',
          message: 'every handler of the create succeeded',
          generation: 2,
        },
      },
      {
        name: 'a deletion says nothing (kstatus reads Terminating from the deletionTimestamp)',
        given: { ...base, cause: 'delete', handlers: [{ id: 'a', record: retrying }] },
        want: undefined,
      },
    ];
    for (const { name, given, want } of rows) assert.deepEqual(readinessOf(given), want, name);
  });

  it('handlerReason: within metav1.Condition reason pattern', () => {
    const rows: [string, string][] = [
      ['ensure', 'Create:ensure'],
      ['my-app.v2', 'Create:my_app_v2'],
      ['sub/child', 'Create:sub_child'],
    ];
    for (const [id, want] of rows) {
      assert.equal(handlerReason('create', id), want, id);
      assert.match(want, /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/);
    }
  });

  it('setCondition: lastTransitionTime changes only with the status (meta.SetStatusCondition)', () => {
    const rows: { name: string; given: Condition[]; update: ConditionUpdate; want: Condition[] }[] = [
      {
        name: 'a new type is appended, its transition now',
        given: [cond('Other', 'True', 'X')],
        update: { type: 'Ready', status: 'True', reason: 'Done' },
        want: [cond('Other', 'True', 'X'), cond('Ready', 'True', 'Done', NOW_TEXT)],
      },
      {
        name: 'same status, new reason and message: the transition time stays',
        given: [cond('Ready', 'False', 'Old')],
        update: { type: 'Ready', status: 'False', reason: 'New', message: 'why' },
        want: [cond('Ready', 'False', 'New', T0, 'why')],
      },
      {
        name: 'a status change is a transition',
        given: [cond('Ready', 'False', 'Old')],
        update: { type: 'Ready', status: 'True', reason: 'Done' },
        want: [cond('Ready', 'True', 'Done', NOW_TEXT)],
      },
    ];
    for (const { name, given, update, want } of rows) assert.deepEqual(setCondition(given, update, NOW), want, name);
  });

  it('conditionsPatch: the fields a write carries, only those that change', () => {
    const reconciling: Readiness = { kind: 'reconciling', reason: 'Create:a', message: 'wait' };
    const ready: Readiness = { kind: 'ready', reason: 'CreateHandled', message: 'done', generation: 2 };
    const stalled: Readiness = { kind: 'stalled', reason: 'Create:a', message: 'bad', generation: 2 };
    const withGen = (c: Condition, generation = 2): Condition => ({ ...c, observedGeneration: generation });
    const rows: {
      name: string;
      body: KubernetesObject;
      readiness: Readiness | undefined;
      updates?: ConditionUpdate[];
      settings?: ConditionSettings;
      want: ReturnType<typeof conditionsPatch>;
    }[] = [
      {
        name: 'first retry: Reconciling True, Ready Unknown, observedGeneration untouched',
        body: object(),
        readiness: reconciling,
        want: {
          conditions: [
            withGen(cond('Reconciling', 'True', 'Create:a', NOW_TEXT, 'wait')),
            withGen(cond('Ready', 'Unknown', 'Create:a', NOW_TEXT, 'wait')),
          ],
        },
      },
      {
        name: 'done: Reconciling removed, Ready True, observedGeneration set',
        body: object({ conditions: [cond('Reconciling', 'True', 'Create:a'), cond('Ready', 'Unknown', 'Create:a')] }),
        readiness: ready,
        want: {
          conditions: [withGen(cond('Ready', 'True', 'CreateHandled', NOW_TEXT, 'done'))],
          observedGeneration: 2,
        },
      },
      {
        name: 'failed: Stalled True, Ready False, Reconciling removed, the generation observed',
        body: object({ conditions: [cond('Reconciling', 'True', 'Create:a')], observedGeneration: 1 }),
        readiness: stalled,
        want: {
          conditions: [
            withGen(cond('Stalled', 'True', 'Create:a', NOW_TEXT, 'bad')),
            withGen(cond('Ready', 'False', 'Create:a', NOW_TEXT, 'bad')),
          ],
          observedGeneration: 2,
        },
      },
      {
        name: 'nothing changes: nothing to add to the write',
        body: object({
          conditions: [withGen(cond('Ready', 'True', 'CreateHandled', T0, 'done'))],
          observedGeneration: 2,
        }),
        readiness: ready,
        want: undefined,
      },
      {
        name: "a handler's own condition merged; its Ready ignored under auto readiness",
        body: object({
          conditions: [withGen(cond('Ready', 'True', 'CreateHandled', T0, 'done'))],
          observedGeneration: 2,
        }),
        readiness: ready,
        updates: [
          { type: 'Degraded', status: 'True', reason: 'NoQuorum', message: '1 of 3' },
          { type: 'Ready', status: 'False', reason: 'Mine' },
        ],
        want: {
          conditions: [
            withGen(cond('Ready', 'True', 'CreateHandled', T0, 'done')),
            withGen(cond('Degraded', 'True', 'NoQuorum', NOW_TEXT, '1 of 3')),
          ],
        },
      },
      {
        name: 'manual readiness: Ready is the handler’s, Reconciling still the runtime’s',
        body: object(),
        readiness: reconciling,
        updates: [{ type: 'Ready', status: 'False', reason: 'DeploymentUnavailable' }],
        settings: { ...AUTO, readiness: 'manual' },
        want: {
          conditions: [
            withGen(cond('Ready', 'False', 'DeploymentUnavailable', NOW_TEXT)),
            withGen(cond('Reconciling', 'True', 'Create:a', NOW_TEXT, 'wait')),
          ],
        },
      },
      {
        name: 'observedGeneration only (no conditions in the schema)',
        body: object({ observedGeneration: 1 }),
        readiness: ready,
        settings: { ...AUTO, conditions: false },
        want: { observedGeneration: 2 },
      },
    ];
    for (const { name, body, readiness, updates = [], settings = AUTO, want } of rows)
      assert.deepEqual(conditionsPatch(body, readiness, updates, settings, NOW), want, name);
  });

  it('withConditions: laid into the outcome write; the patch untouched where the schema has neither field', () => {
    const resource = myResourceDescriptor();
    const handler: RegisteredHandler = { resource, id: 'ensure', cause: 'create', options: {}, fn: () => undefined };
    const outcome = {
      status: { ensure: { phase: 'Waiting' } },
      metadata: { annotations: { 'kopfgen.dev/ensure': JSON.stringify(retrying) } },
    };
    const write = {
      cause: 'create' as const,
      handlers: [handler],
      marks: DEFAULT_MARKS,
      outcome,
      current: 'ensure',
      completes: false,
      seen: object(),
    };
    const none: ConditionSettings = { conditions: false, observedGeneration: false, readiness: 'auto' };
    assert.equal(withConditions(object(), outcome, none, NOW, write), outcome);
    const patched = withConditions(object(), outcome, AUTO, NOW, write);
    assert.deepEqual(patched.metadata, outcome.metadata);
    assert.deepEqual(patched.status, {
      ensure: { phase: 'Waiting' },
      conditions: [
        { ...cond('Reconciling', 'True', 'Create:ensure', NOW_TEXT, 'database not ready'), observedGeneration: 2 },
        { ...cond('Ready', 'Unknown', 'Create:ensure', NOW_TEXT, 'database not ready'), observedGeneration: 2 },
      ],
    });
  });
});
