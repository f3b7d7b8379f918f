/** JSON helpers: RFC 7386 merge patches, pruned fields. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyMergePatch, combineMergePatches, prunedFields } from '../../src/runtime/json.js';

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

describe('pruned fields', () => {
  it('names the fields the server pruned', () => {
    const written = { status: { myapp: { phase: 'Starting', extra: 1 } } };
    const answer = { status: { myapp: { phase: 'Starting' } } };
    assert.deepEqual(prunedFields(written, answer), ['status.myapp.extra']);
  });
});
