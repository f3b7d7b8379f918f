/** From an outcome to the merge patch that records it, and its split for the /status subresource. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyMergePatch } from '../../../src/runtime/json.js';
import {
  combinePatches,
  emptyPatch,
  outcomePatch,
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
    ];
    for (const { first, second } of cases) {
      const want = applyMergePatch(applyMergePatch(target, first), second);
      assert.deepEqual(applyMergePatch(target, combinePatches(first, second)), want, JSON.stringify([first, second]));
    }
  });
});
