/** Where records are kept: the view decide reads, and each patch placed where the resource keeps them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubernetesObject } from '../../../src/runtime/api/kube-types.js';
import { DEFAULT_MARKS } from '../../../src/runtime/reconcile/marks.js';
import type { ObjectPatch } from '../../../src/runtime/reconcile/patches.js';
import {
  placeRecords,
  prunedRecords,
  recordsPlace,
  recordsView,
  type RecordsPlace,
} from '../../../src/runtime/reconcile/records.js';

const LAST = 'kopfgen.dev/last-handled-configuration';
const PROGRESS = 'kopfgen.dev/myapp';

function object(annotations?: Record<string, string>, status?: Record<string, unknown>): KubernetesObject {
  return { metadata: { name: 'a', ...(annotations ? { annotations } : {}) }, ...(status ? { status } : {}) };
}

describe('records', () => {
  it('recordsPlace: status only with a status subresource and statusRecords', () => {
    const rows: [{ statusSubresource: boolean; statusRecords?: boolean }, RecordsPlace][] = [
      [{ statusSubresource: true, statusRecords: true }, 'status'],
      [{ statusSubresource: true }, 'annotations'],
      [{ statusSubresource: true, statusRecords: false }, 'annotations'],
      [{ statusSubresource: false, statusRecords: true }, 'annotations'],
    ];
    for (const [given, want] of rows) assert.equal(recordsPlace(given), want, JSON.stringify(given));
  });

  it('recordsView: status records laid into the annotations; the place written to wins a tie', () => {
    const rows: {
      name: string;
      given: KubernetesObject;
      place: RecordsPlace;
      want: Record<string, string> | undefined;
    }[] = [
      { name: 'none anywhere', given: object(), place: 'status', want: undefined },
      {
        name: 'ours from status, beside the user annotations',
        given: object({ team: 'x' }, { myapp: {}, kopfgen: { [LAST]: '{}', [PROGRESS]: '{"retries":1}' } }),
        place: 'status',
        want: { team: 'x', [LAST]: '{}', [PROGRESS]: '{"retries":1}' },
      },
      {
        name: 'another operator’s keys and non-strings in status.kopfgen are not ours',
        given: object(undefined, { kopfgen: { 'beta.example.com/myapp': '{}', [LAST]: 7 } }),
        place: 'status',
        want: undefined,
      },
      {
        name: 'both places, records kept in status: the status copy wins',
        given: object({ [LAST]: 'old' }, { kopfgen: { [LAST]: 'new' } }),
        place: 'status',
        want: { [LAST]: 'new' },
      },
      {
        name: 'both places, records kept in annotations: the annotation wins',
        given: object({ [LAST]: 'new' }, { kopfgen: { [LAST]: 'old' } }),
        place: 'annotations',
        want: { [LAST]: 'new' },
      },
    ];
    for (const { name, given, place, want } of rows) {
      const view = recordsView(given, DEFAULT_MARKS, place);
      assert.deepEqual(view.metadata?.annotations, want ?? given.metadata?.annotations, name);
      if (want === undefined) assert.equal(view, given, `${name}: the same object`);
    }
  });

  it('placeRecords: records move to status.kopfgen; an old copy in the other place is cleared', () => {
    const outcome: ObjectPatch = {
      metadata: { annotations: { [PROGRESS]: null, [LAST]: '{"spec":{}}', team: 'x' } },
      status: { myapp: { phase: 'Done' } },
    };
    const rows: {
      name: string;
      patch: ObjectPatch;
      current: KubernetesObject;
      place: RecordsPlace;
      want: ObjectPatch;
    }[] = [
      {
        name: 'status: one /status patch, the user annotation stays on the object',
        patch: outcome,
        current: object(),
        place: 'status',
        want: {
          metadata: { annotations: { team: 'x' } },
          status: { myapp: { phase: 'Done' }, kopfgen: { [PROGRESS]: null, [LAST]: '{"spec":{}}' } },
        },
      },
      {
        name: 'status: records only, no metadata left',
        patch: { metadata: { annotations: { [LAST]: 'e' } }, status: { myapp: {} } },
        current: object(),
        place: 'status',
        want: { status: { myapp: {}, kopfgen: { [LAST]: 'e' } } },
      },
      {
        name: 'status: an annotation left by annotation storage is cleared',
        patch: { metadata: { annotations: { [LAST]: 'e' } } },
        current: object({ [LAST]: 'old' }),
        place: 'status',
        want: { metadata: { annotations: { [LAST]: null } }, status: { kopfgen: { [LAST]: 'e' } } },
      },
      {
        name: 'status: a finalizer patch with its precondition is left alone',
        patch: { metadata: { finalizers: ['f'], resourceVersion: '5' } },
        current: object(),
        place: 'status',
        want: { metadata: { finalizers: ['f'], resourceVersion: '5' } },
      },
      {
        name: 'annotations: unchanged when status holds none of its records',
        patch: outcome,
        current: object(),
        place: 'annotations',
        want: outcome,
      },
      {
        name: 'annotations: a copy in status is cleared',
        patch: { metadata: { annotations: { [LAST]: 'e' } } },
        current: object(undefined, { kopfgen: { [LAST]: 'old' } }),
        place: 'annotations',
        want: { metadata: { annotations: { [LAST]: 'e' } }, status: { kopfgen: { [LAST]: null } } },
      },
    ];
    for (const { name, patch, current, place, want } of rows) {
      assert.deepEqual(placeRecords(patch, current, DEFAULT_MARKS, place), want, name);
    }
  });

  it('prunedRecords: the keys written to status that the answer lacks', () => {
    const placed: ObjectPatch = { status: { kopfgen: { [LAST]: 'e', [PROGRESS]: null } } };
    assert.deepEqual(prunedRecords(placed, object(undefined, { kopfgen: { [LAST]: 'e' } }), DEFAULT_MARKS), []);
    assert.deepEqual(prunedRecords(placed, object(undefined, { myapp: {} }), DEFAULT_MARKS), [LAST]);
    assert.deepEqual(prunedRecords({ status: { myapp: {} } }, object(), DEFAULT_MARKS), []);
  });
});
