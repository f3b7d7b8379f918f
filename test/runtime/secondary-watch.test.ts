/**
 * The watch of owned and indexed kinds (secondary-watch.ts): which owner hears of which change (its
 * controller owner reference, by group and kind), repeated states dropped, a deletion missed while
 * disconnected told after the relist, an owner that lets go hearing it as a deletion, indexes fed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IndexStore } from '../../src/runtime/api/indexes.js';
import type { ChildNews } from '../../src/runtime/children.js';
import { createLogger } from '../../src/runtime/effects/log.js';
import { SecondaryWatch, type ChildOwner } from '../../src/runtime/secondary-watch.js';

const told: string[] = [];
const owner = (group: string, kind: string): ChildOwner => ({
  resource: { group, kind },
  childChanged: (uid: string, news: ChildNews) =>
    void told.push(`${kind} ${uid}: ${news.event} ${news.name}${news.object ? '' : ' (gone)'}`),
});

function cm(
  name: string,
  uid: string,
  resourceVersion: string,
  controller?: { apiVersion: string; kind: string; uid: string },
) {
  const ownerReferences = controller ? [{ ...controller, name: 'p', controller: true }] : undefined;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, uid, resourceVersion, ownerReferences },
    data: { k: name },
  };
}

describe('SecondaryWatch', () => {
  it('tells the controlling owner of each change, once per new state; others hear nothing', () => {
    told.length = 0;
    const index = new IndexStore<string, string>('by-data', (o: { data: { k: string } }) => ({ [o.data.k]: 'x' }));
    const watch = new SecondaryWatch(
      'configmaps/v1',
      [owner('example.com', 'WebApp'), owner('other.io', 'Thing')],
      [{ id: 'by-data', store: index }],
      createLogger({ write: () => {} }),
    );
    const web = { apiVersion: 'example.com/v1', kind: 'WebApp', uid: 'w1' };
    watch.upsert(cm('a', 'c1', '1', web), 'ADDED');
    watch.upsert(cm('a', 'c1', '1', web), 'ADDED'); // a relist's repeat
    watch.upsert(cm('a', 'c1', '2', web), 'MODIFIED');
    watch.upsert(cm('b', 'c2', '3', { apiVersion: 'example.com/v2', kind: 'WebApp', uid: 'w2' }), 'ADDED'); // any version
    watch.upsert(cm('c', 'c3', '4', { apiVersion: 'apps/v1', kind: 'Deployment', uid: 'd1' }), 'ADDED'); // not handled here
    watch.upsert(cm('d', 'c4', '5'), 'ADDED'); // no controller
    watch.upsert(cm('b', 'c2', '6', { apiVersion: 'other.io/v1', kind: 'Thing', uid: 't1' }), 'MODIFIED'); // changed hands
    watch.delete(cm('a', 'c1', '7', web));
    assert.deepEqual(index.keys().sort(), ['b', 'c', 'd']);
    watch.listed(new Set(['c3', 'c4'])); // c2 went while the watch was down
    assert.deepEqual(told, [
      'WebApp w1: ADDED a',
      'WebApp w1: MODIFIED a',
      'WebApp w2: ADDED b',
      'WebApp w2: DELETED b (gone)',
      'Thing t1: MODIFIED b',
      'WebApp w1: DELETED a (gone)',
      'Thing t1: DELETED b (gone)',
    ]);
    assert.deepEqual([index.keys().sort(), index.ready, watch.size], [['c', 'd'], true, 2]);
  });
});
