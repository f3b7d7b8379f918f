/** From an outcome to the merge patch that records it, and its split for the /status subresource. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyMergePatch } from '../../../src/runtime/json.js';
import {
  combinePatches,
  emptyPatch,
  handlerFinalizers,
  outcomePatch,
  replacingPatch,
  splitPatch,
  type ObjectPatch,
} from '../../../src/runtime/reconcile/patches.js';
import { encodeProgress, type ProgressRecord } from '../../../src/runtime/reconcile/progress.js';
import { DEFAULT_MARKS } from '../../../src/runtime/reconcile/marks.js';

const t0 = new Date('2026-01-01T00:00:00Z');

describe('outcome patch', () => {
  const record: ProgressRecord = { started: t0.toISOString(), purpose: 'create', retries: 1, success: true };
  it('merges the status into status.<id>, with the handler patch edits, even on failure', () => {
    const patch = emptyPatch();
    patch.status.other = { x: 1 };
    patch.status.myapp = { kept: true };
    patch.metadata.labels = { stage: 'two' };
    const out = outcomePatch(
      'myapp',
      'myapp',
      { kind: 'temporary', status: { phase: 'Pending' } },
      patch,
      record,
      DEFAULT_MARKS,
    );
    assert.deepEqual(out.status, { other: { x: 1 }, myapp: { kept: true, phase: 'Pending' } });
    assert.deepEqual(out.metadata?.labels, { stage: 'two' });
    assert.equal(out.metadata?.annotations?.['kopfgen.dev/myapp'], encodeProgress(record));
  });
  it('splits status to the subresource when there is one', () => {
    const out = outcomePatch(
      'myapp',
      'myapp',
      { kind: 'success', status: { phase: 'Starting' } },
      emptyPatch(),
      record,
      DEFAULT_MARKS,
    );
    const split = splitPatch(out, true);
    assert.deepEqual(split.status, { status: { myapp: { phase: 'Starting' } } });
    assert.equal(split.main?.status, undefined);
    assert.deepEqual(splitPatch(out, false), { main: out });
  });
});

describe('the handler patch carries every key', () => {
  const record: ProgressRecord = { started: t0.toISOString(), purpose: 'create', retries: 1, success: true };
  const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'u-cm', controller: true };
  it('ownerReferences, other metadata, top-level keys and nulls reach the object patch', () => {
    const patch = emptyPatch();
    Object.assign(patch, { data: { a: '1', b: null } });
    patch.metadata.ownerReferences = [owner];
    patch.metadata.annotations = { note: 'x', gone: null };
    patch.spec.replicas = null;
    const out = outcomePatch(
      'myapp',
      'myapp',
      { kind: 'success', status: { reason: null } },
      patch,
      record,
      DEFAULT_MARKS,
    );
    assert.deepEqual(out.metadata?.ownerReferences, [owner]);
    assert.deepEqual(out.data, { a: '1', b: null });
    assert.deepEqual(out.spec, { replicas: null });
    assert.deepEqual(out.status, { myapp: { reason: null } });
    assert.equal(out.metadata?.annotations?.gone, null);
    assert.equal(out.metadata?.annotations?.note, 'x');
    assert.equal(out.metadata?.finalizers, undefined, 'no finalizers written unless the handler set them');
  });
  it("a finalizers patch keeps the operator's own finalizer as the object has it", () => {
    const own = DEFAULT_MARKS.finalizer;
    // given: what the handler asked for, the object's finalizers now; want: the list written.
    const cases: { requested: string[] | null; current: string[]; want: string[] | null }[] = [
      { requested: ['example.com/cleanup'], current: [own], want: ['example.com/cleanup', own] },
      { requested: ['example.com/cleanup'], current: [], want: ['example.com/cleanup'] },
      { requested: ['example.com/cleanup', own], current: [], want: ['example.com/cleanup'] },
      { requested: [], current: [own, 'example.com/cleanup'], want: [own] },
      { requested: null, current: [own], want: [own] },
      { requested: null, current: ['example.com/cleanup'], want: null },
    ];
    for (const { requested, current, want } of cases) {
      assert.deepEqual(handlerFinalizers(requested, current, own), want, JSON.stringify({ requested, current }));
      const patch = emptyPatch();
      patch.metadata.finalizers = requested;
      const out = outcomePatch('myapp', 'myapp', { kind: 'success' }, patch, record, DEFAULT_MARKS, current);
      assert.deepEqual(out.metadata?.finalizers, want);
    }
  });
});

describe("status: 'replace'", () => {
  // given: status.<id> now and the payload; want: the object's status.<id> after the patch.
  const cases: { previous: unknown; next: unknown; want: unknown }[] = [
    { previous: { phase: 'Pending', reason: 'db' }, next: { phase: 'Ok' }, want: { phase: 'Ok' } },
    {
      previous: { phase: 'Pending', endpoint: { host: 'a', port: 1 } },
      next: { endpoint: { host: 'b' } },
      want: { endpoint: { host: 'b' } },
    },
    { previous: undefined, next: { phase: 'Ok' }, want: { phase: 'Ok' } },
    { previous: { phase: 'Pending' }, next: { phase: 'Ok', reason: null }, want: { phase: 'Ok' } },
    { previous: 'scalar', next: { phase: 'Ok' }, want: { phase: 'Ok' } },
  ];
  for (const { previous, next, want } of cases) {
    it(`${JSON.stringify(previous)} replaced by ${JSON.stringify(next)}`, () => {
      const target = { status: { myapp: previous, other: 1 } };
      const after = applyMergePatch(target, { status: { myapp: replacingPatch(previous, next) } });
      assert.deepEqual(after, { status: { myapp: want, other: 1 } });
    });
  }
});

describe('combinePatches', () => {
  it('one patch that equals applying the first, then the second', () => {
    const target = {
      metadata: { annotations: { a: '1', b: '2' }, labels: { x: 'y' }, finalizers: ['f'] },
      spec: { image: 'nginx', replicas: 1 },
      status: { myapp: { phase: 'Pending', reason: 'db' } },
    };
    const cases: { first: ObjectPatch; second: ObjectPatch }[] = [
      { first: { status: { myapp: { phase: 'Ok' } } }, second: { metadata: { annotations: { a: null, c: '3' } } } },
      {
        first: { metadata: { annotations: { a: '9' }, labels: { x: null } } },
        second: { metadata: { annotations: { a: null } } },
      },
      {
        first: { spec: { replicas: 2 } },
        second: { spec: { replicas: null, image: 'httpd' }, status: { other: { n: 1 } } },
      },
      { first: { metadata: { finalizers: [] } }, second: { metadata: { finalizers: ['g'], resourceVersion: '5' } } },
      { first: {}, second: {} },
      {
        first: { data: { a: '1' }, metadata: { ownerReferences: [{ uid: 'x' }] } },
        second: { data: { a: null, b: '2' }, metadata: { ownerReferences: null } },
      },
    ];
    for (const { first, second } of cases) {
      const want = applyMergePatch(applyMergePatch(target, first), second);
      assert.deepEqual(applyMergePatch(target, combinePatches(first, second)), want, JSON.stringify([first, second]));
    }
  });
});
