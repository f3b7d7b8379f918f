/**
 * Child handlers (children.ts): a run per owner, handler and child, never two at once, news arriving
 * meanwhile coalesced into one more run with the newest state; the result written to status.<id>;
 * nothing for an owner being deleted, a kind the handler does not own, or an owner its filters leave
 * out; a temporary failure runs again after its delay.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChildContext } from '../../src/runtime/api/context.js';
import { defineHandler, Registry, TemporaryError } from '../../src/runtime/index.js';
import { builtins, type ConfigMap } from '../../src/runtime/builtin-kinds.js';
import { Children, type ChildNews } from '../../src/runtime/children.js';
import { spawnFixture } from '../helpers/spawn-fixture.js';
import { myResourceDescriptor } from '../helpers/resource-env.js';

async function until(done: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const news = (name: string, rv: string, event: ChildNews['event'] = 'MODIFIED'): ChildNews => ({
  kind: 'configmaps/v1',
  uid: `uid-${name}`,
  name,
  event,
  object:
    event === 'DELETED' ? undefined : { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: rv } },
});

describe('Children', () => {
  it('one run at a time per child, the newest news coalesced; the result lands in status.<id>', async () => {
    const registry = new Registry();
    const seen: string[] = [];
    let release: () => void = () => undefined;
    const active = new Set<string>();
    let overlapped = false;
    defineHandler<unknown, { last?: string }>(myResourceDescriptor(), 'mirror').onChild(
      builtins.configMaps,
      async (ctx: ChildContext<unknown, unknown, ConfigMap>) => {
        overlapped ||= active.has(ctx.childName);
        active.add(ctx.childName);
        seen.push(`${ctx.childName} ${ctx.childEvent} ${ctx.child?.metadata?.resourceVersion ?? '-'}`);
        if (seen.length === 1) await new Promise<void>((resolve) => (release = resolve));
        active.delete(ctx.childName);
        return { last: `${ctx.childName}@${ctx.child?.metadata?.resourceVersion ?? 'gone'}` };
      },
      { registry },
    );
    const fixture = spawnFixture();
    const children = new Children(fixture.env, registry.handlers, fixture.host);
    children.deliver('u1', news('a', '1', 'ADDED'));
    await until(() => seen.length === 1);
    children.deliver('u1', news('a', '2'));
    children.deliver('u1', news('a', '3'));
    children.deliver('u1', news('b', '4', 'DELETED')); // another child: its own run, at once
    await until(() => seen.length === 2);
    release();
    await until(() => seen.length === 3);
    await children.drained();
    assert.deepEqual(seen, ['a ADDED 1', 'b DELETED -', 'a MODIFIED 3']);
    assert.equal(overlapped, false, 'runs for one child never overlap (b, another child, ran while a waited)');
    assert.deepEqual(fixture.body().status, { mirror: { last: 'a@3' } });
  });

  it('nothing for an owner being deleted, another kind, an owner its filters leave out', async () => {
    const registry = new Registry();
    let calls = 0;
    const count = () => void calls++;
    const handler = defineHandler(myResourceDescriptor(), 'mirror');
    handler.onChild(builtins.configMaps, count, { registry, labels: { managed: 'yes' } });
    handler.onChild(builtins.secrets, count, { registry });
    const fixture = spawnFixture();
    const children = new Children(fixture.env, registry.handlers, fixture.host);
    children.deliver('u1', news('a', '1')); // filtered out: no label
    children.deliver('u1', { ...news('s', '1'), kind: 'deployments.apps/v1' }); // owned by no handler
    fixture.edit({ metadata: { labels: { managed: 'yes' } } });
    fixture.markDeleted();
    children.deliver('u1', news('a', '2')); // the owner is going away
    await children.drained();
    assert.equal(calls, 0);
    assert.deepEqual(children.kinds(), new Set(['configmaps/v1', 'secrets/v1']));
  });

  it('a temporary failure runs again with the same news after its delay', async () => {
    const registry = new Registry();
    let calls = 0;
    defineHandler(myResourceDescriptor(), 'repair').onChild(
      builtins.configMaps,
      () => {
        calls++;
        if (calls === 1) throw new TemporaryError('not yet', { delay: 0.05 });
      },
      { registry },
    );
    const fixture = spawnFixture();
    const children = new Children(fixture.env, registry.handlers, fixture.host);
    children.deliver('u1', news('a', '1', 'DELETED'));
    await until(() => calls === 2);
    await children.drained();
    children.stopAll();
    children.deliver('u1', news('a', '2'));
    await children.drained();
    assert.equal(calls, 2, 'nothing after stopAll');
  });

  it("news of an owner not listed yet is kept until the owners' first list, then delivered", async () => {
    const registry = new Registry();
    const seen: string[] = [];
    defineHandler(myResourceDescriptor(), 'mirror').onChild(
      builtins.configMaps,
      (ctx) => void seen.push(`${ctx.childName} ${ctx.child?.metadata?.resourceVersion}`),
      { registry },
    );
    const fixture = spawnFixture();
    let listed = false;
    const host = { ...fixture.host, current: (uid: string) => (listed ? fixture.host.current(uid) : undefined) };
    const children = new Children(fixture.env, registry.handlers, host);
    children.deliver('u1', news('a', '1', 'ADDED'));
    children.deliver('u1', news('a', '2'));
    await children.drained();
    assert.deepEqual(seen, []);
    listed = true;
    children.ownersListed();
    await until(() => seen.length === 1);
    await children.drained();
    assert.deepEqual(seen, ['a 2'], 'the newest news, once');
    listed = false;
    children.deliver('u1', news('a', '3')); // after the first list, an unknown owner is not handled
    listed = true;
    children.ownersListed();
    await children.drained();
    assert.deepEqual(seen, ['a 2']);
  });
});
