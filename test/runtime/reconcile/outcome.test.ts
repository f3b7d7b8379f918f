import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PermanentError, TemporaryError } from '../../../src/runtime/index.js';
import {
  applyLimits,
  classify,
  exhausted,
  nextRecord,
  DEFAULT_BACKOFF_SECONDS,
} from '../../../src/runtime/reconcile/outcome.js';
import type { ProgressRecord } from '../../../src/runtime/reconcile/progress.js';

const t0 = new Date('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

/** A generated-style subclass, as `kopfgen generate` emits per handler. */
class MyappTemporaryError extends TemporaryError<{ phase?: string }> {}

describe('classify: errors and errors modes', () => {
  it('a return value is the status', () => {
    assert.deepEqual(classify({ ok: true, value: { phase: 'Starting' } }, {}), {
      kind: 'success',
      status: { phase: 'Starting' },
    });
  });
  it('TemporaryError: its delay, its status; generated subclass and base class alike', () => {
    const sub = classify(
      { ok: false, error: new MyappTemporaryError('wait', { status: { phase: 'Pending' }, delay: 1 }) },
      {},
    );
    assert.deepEqual([sub.kind, sub.delay, sub.status], ['temporary', 1, { phase: 'Pending' }]);
    const base = classify(
      { ok: false, error: new TemporaryError('wait', { status: { phase: 'Shared' } }) },
      { backoff: 5 },
    );
    assert.deepEqual([base.kind, base.delay, base.status], ['temporary', 5, { phase: 'Shared' }]);
  });
  it('TemporaryError without delay nor backoff waits 60 s as in kopf', () => {
    assert.equal(classify({ ok: false, error: new TemporaryError('x') }, {}).delay, DEFAULT_BACKOFF_SECONDS);
    assert.equal(DEFAULT_BACKOFF_SECONDS, 60);
  });
  it('PermanentError keeps its status', () => {
    const out = classify({ ok: false, error: new PermanentError('bad', { status: { phase: 'Failed' } }) }, {});
    assert.deepEqual([out.kind, out.status, out.message], ['permanent', { phase: 'Failed' }, 'bad']);
  });
  it('other errors follow the errors mode', () => {
    const error = new Error('boom');
    assert.deepEqual(
      [classify({ ok: false, error }, {}).kind, classify({ ok: false, error }, {}).delay],
      ['temporary', 60],
    );
    assert.equal(classify({ ok: false, error }, { errors: 'temporary', backoff: 2 }).delay, 2);
    assert.equal(classify({ ok: false, error }, { errors: 'permanent' }).kind, 'permanent');
    assert.equal(classify({ ok: false, error }, { errors: 'ignored' }).kind, 'ignored');
  });
  it('recognises errors from another copy of the runtime module (brand, not instanceof)', () => {
    const foreign = Object.assign(new Error('x'), {
      [Symbol.for('kopfgen.handlerErrorKind')]: 'permanent',
      status: { a: 1 },
    });
    assert.deepEqual(classify({ ok: false, error: foreign }, {}).status, { a: 1 });
  });
});

describe('retry arithmetic', () => {
  const temporary = { kind: 'temporary' as const, delay: 10, message: 'm' };
  it('retries: the attempt that reaches the limit fails permanently', () => {
    assert.equal(applyLimits(temporary, { retries: 3 }, 2, t0, t0).kind, 'temporary');
    const last = applyLimits(temporary, { retries: 3 }, 3, t0, t0);
    assert.deepEqual([last.kind, last.message], ['permanent', 'm (gave up after 3 attempt(s))']);
  });
  it('timeout: a retry that would come after the deadline fails now', () => {
    assert.equal(applyLimits(temporary, { timeout: 30 }, 1, t0, at(15)).kind, 'temporary');
    assert.equal(applyLimits(temporary, { timeout: 30 }, 2, t0, at(25)).kind, 'permanent');
  });
  it('limits checked before an attempt (e.g. after a restart)', () => {
    const record: ProgressRecord = { started: t0.toISOString(), purpose: 'create', retries: 3 };
    assert.equal(exhausted({ retries: 3 }, record, t0), 'gave up after 3 attempt(s)');
    assert.equal(exhausted({ retries: 4 }, record, t0), undefined);
    assert.equal(exhausted({ timeout: 60 }, record, at(61)), 'timed out after 60s');
    assert.equal(exhausted({}, record, at(1e6)), undefined);
  });
  it('progress records: delayed-until, retries, success, failure with message', () => {
    const first = nextRecord(undefined, 'create', { kind: 'temporary', delay: 1.5, message: 'wait' }, t0, t0);
    assert.deepEqual(first, {
      started: t0.toISOString(),
      purpose: 'create',
      retries: 1,
      delayed: at(1.5).toISOString(),
      message: 'wait',
    });
    const second = nextRecord(first, 'create', { kind: 'success' }, t0, at(2));
    assert.deepEqual(second, {
      started: t0.toISOString(),
      purpose: 'create',
      retries: 2,
      stopped: at(2).toISOString(),
      success: true,
    });
    const failed = nextRecord(first, 'create', { kind: 'permanent', message: 'no' }, t0, at(2));
    assert.deepEqual([failed.failure, failed.message, failed.retries], [true, 'no', 2]);
  });
});
