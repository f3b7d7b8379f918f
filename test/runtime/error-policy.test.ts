/** The one error policy: what a reconcile failure leads to. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorPolicy, FAILURE_RETRY_MS } from '../../src/runtime/error-policy.js';
import { KubeError } from '../../src/runtime/kube/client.js';

describe('errorPolicy', () => {
  it('retries the object after a fixed 10 s, whatever failed', () => {
    const errors = [
      new Error('network'), new KubeError('forbidden', 403, undefined), new KubeError('invalid', 422, undefined),
    ];
    for (const error of errors) {
      const want = { kind: 'requeue', afterMs: FAILURE_RETRY_MS };
      assert.deepEqual(errorPolicy({ error, uid: 'u', object: undefined }), want);
    }
    assert.equal(FAILURE_RETRY_MS, 10_000);
  });
});
