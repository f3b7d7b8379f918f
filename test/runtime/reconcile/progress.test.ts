/** Progress records in annotations: names within Kubernetes' limits, read back, purged. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  encodeProgress,
  handlerKey,
  progressAnnotation,
  purgeProgress,
  readProgress,
  type ProgressRecord,
} from '../../../src/runtime/reconcile/progress.js';

const t0 = new Date('2026-01-01T00:00:00Z');

describe('progress annotations', () => {
  it('uses the handler id when it is a valid name', () => {
    assert.equal(progressAnnotation(handlerKey({ id: 'myapp', cause: 'create' })), 'kopfgen.dev/myapp');
    assert.equal(progressAnnotation(handlerKey({ id: 'myapp', cause: 'resume' })), 'kopfgen.dev/myapp.resume');
  });
  it('hashes ids longer than 63 characters or with unsafe characters, within the limit and stable', () => {
    const long = 'a-very-long-handler-id-that-goes-on-and-on-beyond-sixty-three-characters-total';
    assert.ok(long.length >= 64);
    const key = progressAnnotation(long);
    const name = key.slice('kopfgen.dev/'.length);
    assert.ok(name.length <= 63, name);
    assert.match(name, /^[A-Za-z0-9]([-._A-Za-z0-9]*[A-Za-z0-9])?$/);
    assert.equal(progressAnnotation(long), key);
    assert.notEqual(progressAnnotation(`${long}x`), key);
    assert.match(progressAnnotation('field/spec:x').slice(12), /^field.spec.x-[0-9a-f]{10}$/);
  });
  it('reads back what it writes; the purge keeps failures (marked done)', () => {
    const ok: ProgressRecord = { started: t0.toISOString(), purpose: 'create', retries: 1, success: true };
    const bad: ProgressRecord = {
      started: t0.toISOString(),
      purpose: 'create',
      retries: 2,
      failure: true,
      message: 'why',
    };
    const long = 'x'.repeat(80);
    const body = {
      metadata: {
        annotations: {
          [progressAnnotation('a')]: encodeProgress(ok),
          [progressAnnotation(long)]: encodeProgress(bad),
          other: 'v',
        },
      },
    };
    assert.deepEqual(readProgress(body, long), bad);
    const purge = purgeProgress(body);
    assert.equal(purge[progressAnnotation('a')], null);
    assert.deepEqual(JSON.parse(purge[progressAnnotation(long)] ?? ''), { ...bad, done: true });
    assert.equal('other' in purge, false);
  });
});
