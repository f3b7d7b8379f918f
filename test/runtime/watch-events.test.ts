/** onEvent: every raw event of a matching object, in order per object; errors logged, nothing written. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, Registry } from '../../src/runtime/index.js';
import { WatchEvents } from '../../src/runtime/watch-events.js';
import { spawnFixture } from '../helpers/spawn-fixture.js';
import { myResourceDescriptor } from '../helpers/resource-env.js';

describe('WatchEvents', () => {
  it('delivers each event with its type, in order, only for matching objects; an error is logged', async () => {
    const registry = new Registry();
    const seen: string[] = [];
    defineHandler(myResourceDescriptor(), 'audit').onEvent(
      async (ctx) => {
        await new Promise((r) => setTimeout(r, ctx.type === 'ADDED' ? 20 : 0)); // a slow first call keeps its place
        seen.push(`${ctx.type ?? 'listed'}:${ctx.name}`);
        if (ctx.type === 'MODIFIED') throw new Error('audit sink down');
      },
      { registry, labels: { audited: 'yes' } },
    );
    const fixture = spawnFixture();
    const events = new WatchEvents(fixture.env, registry.handlers);
    const body = fixture.body();
    const audited = { ...body, metadata: { ...body.metadata, labels: { audited: 'yes' } } };
    const other = { ...body, metadata: { ...body.metadata, name: 'b', uid: 'u2' } };
    events.deliver(audited, undefined);
    events.deliver(audited, 'ADDED');
    events.deliver(other, 'ADDED');
    events.deliver(audited, 'MODIFIED');
    events.deliver(audited, 'DELETED');
    await events.drained();
    assert.deepEqual(seen, ['listed:a', 'ADDED:a', 'MODIFIED:a', 'DELETED:a']);
    assert.ok(fixture.lines.some((line) => line.includes('event handler audit failed (MODIFIED): audit sink down')));
    assert.equal(fixture.body().metadata?.resourceVersion, '1', 'nothing written');
  });
});
