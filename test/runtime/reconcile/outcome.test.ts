import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PermanentError, TemporaryError } from '../../../src/runtime/index.js';
import { applyMergePatch, combineMergePatches, prunedFields } from '../../../src/runtime/json.js';
import { applyLimits, classify, exhausted, nextRecord, DEFAULT_BACKOFF_SECONDS } from '../../../src/runtime/reconcile/outcome.js';
import { emptyPatch, outcomePatch, splitPatch } from '../../../src/runtime/reconcile/patches.js';
import { handlerKey, progressAnnotation, purgeProgress, readProgress, encodeProgress, type ProgressRecord } from '../../../src/runtime/reconcile/progress.js';

const t0 = new Date('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

/** A generated-style subclass, as `kopfgen generate` emits per handler. */
class MyappTemporaryError extends TemporaryError<{ phase?: string }> {}

describe('classify: errors and errors modes', () => {
  it('a return value is the status', () => {
    assert.deepEqual(classify({ ok: true, value: { phase: 'Starting' } }, {}), { kind: 'success', status: { phase: 'Starting' } });
  });
  it('TemporaryError: its delay, its status; generated subclass and base class alike', () => {
    const sub = classify({ ok: false, error: new MyappTemporaryError('wait', { status: { phase: 'Pending' }, delay: 1 }) }, {});
    assert.deepEqual([sub.kind, sub.delay, sub.status], ['temporary', 1, { phase: 'Pending' }]);
    const base = classify({ ok: false, error: new TemporaryError('wait', { status: { phase: 'Shared' } }) }, { backoff: 5 });
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
    assert.deepEqual([classify({ ok: false, error }, {}).kind, classify({ ok: false, error }, {}).delay], ['temporary', 60]);
    assert.equal(classify({ ok: false, error }, { errors: 'temporary', backoff: 2 }).delay, 2);
    assert.equal(classify({ ok: false, error }, { errors: 'permanent' }).kind, 'permanent');
    assert.equal(classify({ ok: false, error }, { errors: 'ignored' }).kind, 'ignored');
  });
  it('recognises errors from another copy of the runtime module (brand, not instanceof)', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('kopfgen.handlerErrorKind')]: 'permanent', status: { a: 1 } });
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
    assert.deepEqual(first, { started: t0.toISOString(), purpose: 'create', retries: 1, delayed: at(1.5).toISOString(), message: 'wait' });
    const second = nextRecord(first, 'create', { kind: 'success' }, t0, at(2));
    assert.deepEqual(second, { started: t0.toISOString(), purpose: 'create', retries: 2, stopped: at(2).toISOString(), success: true });
    const failed = nextRecord(first, 'create', { kind: 'permanent', message: 'no' }, t0, at(2));
    assert.deepEqual([failed.failure, failed.message, failed.retries], [true, 'no', 2]);
  });
});

describe('outcome patch', () => {
  const record: ProgressRecord = { started: t0.toISOString(), purpose: 'create', retries: 1, success: true };
  it('merges the status into status.<id>, with the handler patch edits, even on failure', () => {
    const patch = emptyPatch();
    patch.status.other = { x: 1 };
    patch.status.myapp = { kept: true };
    patch.metadata.labels = { stage: 'two' };
    const out = outcomePatch('myapp', 'myapp', { kind: 'temporary', status: { phase: 'Pending' } }, patch, record);
    assert.deepEqual(out.status, { other: { x: 1 }, myapp: { kept: true, phase: 'Pending' } });
    assert.deepEqual(out.metadata?.labels, { stage: 'two' });
    assert.equal(out.metadata?.annotations?.['kopfgen.dev/myapp'], encodeProgress(record));
  });
  it('splits status to the subresource when there is one', () => {
    const out = outcomePatch('myapp', 'myapp', { kind: 'success', status: { phase: 'Starting' } }, emptyPatch(), record);
    const split = splitPatch(out, true);
    assert.deepEqual(split.status, { status: { myapp: { phase: 'Starting' } } });
    assert.equal(split.main?.status, undefined);
    assert.deepEqual(splitPatch(out, false), { main: out });
  });
  it('names the fields the server pruned', () => {
    const written = { status: { myapp: { phase: 'Starting', extra: 1 } } };
    const answer = { status: { myapp: { phase: 'Starting' } } };
    assert.deepEqual(prunedFields(written, answer), ['status.myapp.extra']);
  });
});

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
    const bad: ProgressRecord = { started: t0.toISOString(), purpose: 'create', retries: 2, failure: true, message: 'why' };
    const long = 'x'.repeat(80);
    const body = { metadata: { annotations: { [progressAnnotation('a')]: encodeProgress(ok), [progressAnnotation(long)]: encodeProgress(bad), other: 'v' } } };
    assert.deepEqual(readProgress(body, long), bad);
    const purge = purgeProgress(body);
    assert.equal(purge[progressAnnotation('a')], null);
    assert.deepEqual(JSON.parse(purge[progressAnnotation(long)] ?? ''), { ...bad, done: true });
    assert.equal('other' in purge, false);
  });
});

describe('merge patches (RFC 7386)', () => {
  it('applies nested changes and deletions without touching its inputs', () => {
    const target = { a: { b: { c: 1, d: 2 }, e: [1] }, f: 'x' };
    const patch = { a: { b: { c: null, g: { h: 3 } }, e: [2] }, f: null };
    const before = JSON.stringify([target, patch]);
    assert.deepEqual(applyMergePatch(target, patch), { a: { b: { d: 2, g: { h: 3 } }, e: [2] } });
    assert.equal(JSON.stringify([target, patch]), before);
  });
  it('combining two patches equals applying one after the other', () => {
    const target = { a: { b: 1, c: { d: 2 } }, x: 1 };
    const first = { a: { b: null, c: { e: 3 } }, y: 2 };
    const second = { a: { c: { d: null }, f: 4 }, x: null };
    const combined = combineMergePatches(first, second);
    assert.deepEqual(applyMergePatch(target, combined), applyMergePatch(applyMergePatch(target, first), second));
    assert.deepEqual(first, { a: { b: null, c: { e: 3 } }, y: 2 }, 'inputs untouched');
  });
});
