/** defineIndex's store (api/indexes.ts): entries replaced per object, removed with it, retained after a relist. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineIndex, IndexStore } from '../../../src/runtime/api/indexes.js';
import { Registry } from '../../../src/runtime/api/registry.js';
import { builtins } from '../../../src/runtime/builtin-kinds.js';

interface Pod {
  metadata: { name: string };
  secrets: string[];
}

describe('IndexStore', () => {
  const bySecret = () =>
    new IndexStore<string, string>('by-secret', (pod: Pod) =>
      Object.fromEntries(pod.secrets.map((s) => [s, pod.metadata.name])),
    );

  it('answers every object that gave a key; an update replaces its entries, a removal drops them', () => {
    const index = bySecret();
    index.upsert('1', { metadata: { name: 'a' }, secrets: ['s1', 's2'] });
    index.upsert('2', { metadata: { name: 'b' }, secrets: ['s2'] });
    assert.deepEqual([index.get('s1'), index.get('s2'), index.size], [['a'], ['a', 'b'], 2]);
    index.upsert('1', { metadata: { name: 'a' }, secrets: ['s3'] });
    assert.deepEqual([index.get('s1'), index.get('s2'), index.get('s3')], [[], ['b'], ['a']]);
    assert.equal(index.has('s1'), false, 'a key nobody gives any more is gone');
    index.remove('2');
    assert.deepEqual(index.keys(), ['s3']);
  });

  it('a relist keeps only what it listed; ready once listed, not after a reset', () => {
    const index = bySecret();
    index.upsert('1', { metadata: { name: 'a' }, secrets: ['s1'] });
    index.upsert('2', { metadata: { name: 'b' }, secrets: ['s1'] });
    assert.equal(index.ready, false);
    index.retain(new Set(['2']));
    index.listed();
    assert.deepEqual([index.get('s1'), index.ready], [['b'], true]);
    index.reset();
    assert.deepEqual([index.size, index.ready], [0, false]);
  });

  it('defineIndex registers the index and declares list and watch on its kind', () => {
    const registry = new Registry();
    const index = defineIndex(builtins.configMaps, (cm) => ({ [cm.metadata?.name ?? '']: true }), {
      registry,
      id: 'names',
    });
    assert.equal(index.id, 'names');
    assert.deepEqual(
      registry.access.map((a) => [a.resource.plural, a.verbs]),
      [['configmaps', ['list', 'watch']]],
    );
    assert.deepEqual(
      registry.secondaryKinds().map((k) => k.plural),
      ['configmaps'],
    );
  });
});
