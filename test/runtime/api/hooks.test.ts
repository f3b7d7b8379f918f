/** onStartup/onCleanup register operator-level hooks in order, named by id, the function or their place. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { onCleanup, onStartup, Registry } from '../../../src/runtime/index.js';

describe('hooks', () => {
  it('register in order into the registry given, with their ids', () => {
    const registry = new Registry();
    onStartup(async function connect() {}, { registry });
    onStartup(() => undefined, { registry, id: 'warm-cache' });
    onStartup(() => undefined, { registry });
    onCleanup(() => undefined, { registry });
    assert.deepEqual(
      registry.startup.map((h) => h.id),
      ['connect', 'warm-cache', 'startup-3'],
    );
    assert.deepEqual(
      registry.cleanup.map((h) => h.id),
      ['cleanup-1'],
    );
  });
});
