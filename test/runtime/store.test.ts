/** The store: the newest state per object; older states dropped; the operator's own answers adopted. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isNewer, Store } from '../../src/runtime/store.js';

const at = (rv: string) => ({ metadata: { resourceVersion: rv } });
const obj = (uid: string, rv: string) => ({
  kind: 'MyResource',
  metadata: { uid, resourceVersion: rv, managedFields: [{}] },
});

describe('isNewer', () => {
  it('orders states by resourceVersion numerically (etcd revisions), any difference otherwise', () => {
    const cases: { given: [string, string]; want: boolean }[] = [
      { given: ['10', '9'], want: true },
      { given: ['9', '10'], want: false }, // an intermediate event of our own patch is older than its answer
      { given: ['10', '10'], want: false },
      { given: ['b', 'a'], want: true },
    ];
    for (const { given, want } of cases) assert.equal(isNewer(at(given[0]), at(given[1])), want, given.join(' vs '));
  });
});

describe('Store', () => {
  it('keeps a state only if it is newer than the one known, without managedFields', () => {
    const store = new Store();
    assert.equal(store.apply(obj('a', '5')), 'a');
    assert.equal(store.apply(obj('a', '5')), undefined, 'the same state again (a relist)');
    assert.equal(store.apply(obj('a', '4')), undefined, 'an older state');
    assert.equal(store.apply(obj('a', '6')), 'a');
    assert.equal(store.get('a')?.metadata?.resourceVersion, '6');
    assert.equal(store.get('a')?.metadata?.managedFields, undefined);
  });
  it('an object is initial from its first sight until it settles, and again after it was forgotten', () => {
    const store = new Store();
    store.apply(obj('a', '1'));
    assert.equal(store.isInitial('a'), true);
    store.apply(obj('a', '2'));
    assert.equal(store.isInitial('a'), true, 'a newer state is not a new first sight');
    store.settle('a');
    store.apply(obj('a', '3'));
    assert.equal(store.isInitial('a'), false);
    store.delete('a');
    store.apply(obj('a', '4'));
    assert.equal(store.isInitial('a'), true);
  });
  it('retain forgets what a relist no longer lists', () => {
    const store = new Store();
    for (const uid of ['a', 'b', 'c']) store.apply(obj(uid, '1'));
    assert.deepEqual(store.retain(new Set(['b'])), ['a', 'c']);
    assert.deepEqual(store.uids(), ['b']);
  });
  it('adopts an answer that is newer or the same, keeps apiVersion/kind, and never resurrects a deleted object', () => {
    const store = new Store();
    store.apply(obj('a', '5'));
    store.adopt('a', { metadata: { uid: 'a', resourceVersion: '7' } });
    assert.deepEqual([store.get('a')?.kind, store.get('a')?.metadata?.resourceVersion], ['MyResource', '7']);
    store.adopt('a', { metadata: { uid: 'a', resourceVersion: '6' } });
    assert.equal(store.get('a')?.metadata?.resourceVersion, '7', 'an older answer than a newer event');
    store.delete('a');
    store.adopt('a', { metadata: { uid: 'a', resourceVersion: '8' } });
    assert.equal(store.get('a'), undefined);
  });
});
