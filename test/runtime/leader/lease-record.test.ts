import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  formatMicroTime,
  leasePath,
  newLease,
  parseMicroTime,
  recordOf,
  sameRecord,
  updatedLease,
  type Lease,
  type LeaseRecord,
} from '../../../src/runtime/leader/lease-record.js';

const at = Date.parse('2026-12-03T08:29:13.123Z');
const record: LeaseRecord = {
  holderIdentity: 'pod-a_1',
  leaseDurationSeconds: 15,
  acquireTime: at,
  renewTime: at + 2_000,
  leaseTransitions: 2,
};

describe('MicroTime', () => {
  const cases: { text: string | undefined; want: number | undefined }[] = [
    { text: '2026-12-03T08:29:13.123456Z', want: at },
    { text: '2026-12-03T10:29:13.123000+02:00', want: at },
    { text: '2026-12-03T08:29:13Z', want: at - 123 },
    { text: 'yesterday', want: undefined },
    { text: undefined, want: undefined },
  ];
  for (const c of cases) it(`parses ${c.text}`, () => assert.equal(parseMicroTime(c.text), c.want));

  it('formats with six fractional digits, as the API server requires (2006-01-02T15:04:05.000000Z07:00)', () => {
    assert.equal(formatMicroTime(at), '2026-12-03T08:29:13.123000Z');
    assert.equal(formatMicroTime(Date.parse('2026-01-01T00:00:00Z')), '2026-01-01T00:00:00.000000Z');
    assert.equal(parseMicroTime(formatMicroTime(at)), at);
  });
});

describe('the Lease and its record', () => {
  const ref = { namespace: 'ops', name: 'my-operator' };

  it('a new Lease holds the record in its spec', () => {
    assert.deepEqual(newLease(ref, record), {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'my-operator', namespace: 'ops' },
      spec: {
        holderIdentity: 'pod-a_1',
        leaseDurationSeconds: 15,
        acquireTime: '2026-12-03T08:29:13.123000Z',
        renewTime: '2026-12-03T08:29:15.123000Z',
        leaseTransitions: 2,
      },
    });
    assert.deepEqual(recordOf(newLease(ref, record)), record);
  });

  it('an update keeps metadata (resourceVersion for the optimistic write) and unknown spec fields', () => {
    const observed: Lease = {
      metadata: { name: 'my-operator', namespace: 'ops', resourceVersion: '42', labels: { a: 'b' } },
      spec: { holderIdentity: 'pod-b_2', leaseDurationSeconds: 15, preferredHolder: 'x' },
    };
    const lease = updatedLease(observed, record);
    assert.equal(lease.metadata.resourceVersion, '42');
    assert.deepEqual(lease.metadata.labels, { a: 'b' });
    assert.equal(lease.spec?.preferredHolder, 'x');
    assert.equal(lease.spec?.holderIdentity, 'pod-a_1');
  });

  it('a released record leaves holderIdentity out', () => {
    const observed: Lease = {
      metadata: { name: 'my-operator', resourceVersion: '42' },
      spec: { holderIdentity: 'pod-a_1' },
    };
    const lease = updatedLease(observed, { ...record, holderIdentity: '', leaseDurationSeconds: 1 });
    assert.ok(!('holderIdentity' in (lease.spec ?? {})));
    assert.equal(recordOf(lease).holderIdentity, '');
  });

  it('a Lease without a spec reads as zero values, as client-go reads it', () => {
    assert.deepEqual(recordOf({ metadata: { name: 'x' } }), {
      holderIdentity: '',
      leaseDurationSeconds: 0,
      acquireTime: 0,
      renewTime: 0,
      leaseTransitions: 0,
    });
  });

  it('records compare by every field', () => {
    assert.ok(sameRecord(record, { ...record }));
    const changes = [{ renewTime: at }, { holderIdentity: 'x' }, { leaseTransitions: 3 }, { leaseDurationSeconds: 1 }];
    for (const change of changes) {
      assert.ok(!sameRecord(record, { ...record, ...change }), JSON.stringify(change));
    }
  });

  it('paths', () => {
    assert.equal(leasePath(ref), '/apis/coordination.k8s.io/v1/namespaces/ops/leases/my-operator');
  });
});
