/**
 * Child handlers (children.ts): one run at a time per owner and handler, news arriving meanwhile
 * coalesced into one more run with the newest state of each child (one call per child, one write of
 * the merged results, none when nothing changes); runs bounded by the operator's slots; the result
 * written to status.<id>; nothing for an owner being deleted, a kind the handler does not own, an owner
 * its filters leave out, or a child in another namespace; a temporary failure runs again after its delay.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChildContext } from '../../src/runtime/api/context.js';
import { defineHandler, Registry, TemporaryError } from '../../src/runtime/index.js';
import { builtins, type ConfigMap } from '../../src/runtime/builtin-kinds.js';
import { Children, type ChildNews } from '../../src/runtime/children.js';
import { Slots } from '../../src/runtime/queue.js';
import type { KubernetesObject } from '../../src/runtime/api/kube-types.js';
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
  it('one run at a time per owner and handler, the newest news of each child coalesced; the result lands in status.<id>', async () => {
    const registry = new Registry();
    const seen: string[] = [];
    let release: () => void = () => undefined;
    const active = new Set<string>();
    let overlapped = false;
    defineHandler<unknown, { last?: string }>(myResourceDescriptor(), 'mirror').onChild(
      builtins.configMaps,
      async (ctx: ChildContext<unknown, unknown, ConfigMap>) => {
        overlapped ||= active.size > 0;
        active.add(ctx.childName);
        seen.push(`${ctx.childName} ${ctx.childEvent} ${ctx.child?.metadata?.resourceVersion ?? '-'}`);
        if (seen.length === 1) await new Promise<void>((resolve) => (release = resolve));
        active.delete(ctx.childName);
        return { last: `${ctx.childName}@${ctx.child?.metadata?.resourceVersion ?? 'gone'}` };
      },
      { registry },
    );
    const fixture = spawnFixture();
    const children = new Children(fixture.env, registry.handlers, fixture.host, new Slots(4));
    children.deliver('u1', news('a', '1', 'ADDED'));
    await until(() => seen.length === 1);
    children.deliver('u1', news('a', '2'));
    children.deliver('u1', news('a', '3'));
    children.deliver('u1', news('b', '4', 'DELETED')); // another child: the same owner's next run
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(seen.length, 1, 'nothing else runs for the owner while its run waits');
    release();
    await until(() => seen.length === 3);
    await children.drained();
    assert.deepEqual(seen, ['a ADDED 1', 'a MODIFIED 3', 'b DELETED -']);
    assert.equal(overlapped, false, 'calls for one owner and handler never overlap');
    assert.deepEqual(fixture.body().status, { mirror: { last: 'b@gone' } });
    assert.equal(fixture.written.length, 2, 'one write per run');
  });

  it('nothing for an owner being deleted, another kind, an owner its filters leave out', async () => {
    const registry = new Registry();
    let calls = 0;
    const count = () => void calls++;
    const handler = defineHandler(myResourceDescriptor(), 'mirror');
    handler.onChild(builtins.configMaps, count, { registry, labels: { managed: 'yes' } });
    handler.onChild(builtins.secrets, count, { registry });
    const fixture = spawnFixture();
    const children = new Children(fixture.env, registry.handlers, fixture.host, new Slots(4));
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
    const children = new Children(fixture.env, registry.handlers, fixture.host, new Slots(4));
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
    const children = new Children(fixture.env, registry.handlers, host, new Slots(4));
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

  it('a burst of news for many children: few runs, one call per child with the newest state, few writes; the same status again is not written', async () => {
    const registry = new Registry();
    const calls: string[] = [];
    const changed: (readonly string[])[] = [];
    let release: () => void = () => undefined;
    defineHandler<unknown, Record<string, string>>(myResourceDescriptor(), 'seen').onChild(
      builtins.configMaps,
      async (ctx: ChildContext<unknown, unknown, ConfigMap>) => {
        calls.push(`${ctx.childName}@${ctx.child?.metadata?.resourceVersion ?? '-'} in ${String(ctx.childNamespace)}`);
        changed.push(ctx.changedChildren);
        if (calls.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return { [ctx.childName]: ctx.child ? 'present' : 'gone' };
      },
      { registry },
    );
    const fixture = spawnFixture();
    const children = new Children(fixture.env, registry.handlers, fixture.host, new Slots(4));
    const inNs = (n: ChildNews): ChildNews => ({ ...n, namespace: 'ns' });
    children.deliver('u1', inNs(news('c0', '1', 'ADDED')));
    await until(() => calls.length === 1);
    for (let round = 2; round <= 4; round++)
      for (let i = 0; i < 100; i++) children.deliver('u1', inNs(news(`c${i}`, String(round))));
    children.deliver('u1', { ...news('elsewhere', '9'), namespace: 'other' }); // not the owner's namespace
    release();
    await until(() => calls.length === 101);
    await children.drained();
    assert.equal(calls[1], 'c0@4 in ns', 'each child once, with its newest news');
    assert.deepEqual(changed[1]?.length, 100, 'every call of the run sees which children changed');
    assert.equal(fixture.written.length, 2, '300 news, two runs, two writes');
    assert.equal(Object.keys(JSON.parse(JSON.stringify(fixture.body().status)).seen).length, 100);
    for (let i = 0; i < 100; i++) children.deliver('u1', inNs(news(`c${i}`, '5')));
    await until(() => calls.length === 201);
    await children.drained();
    assert.equal(fixture.written.length, 2, 'the same status is not written again');
  });

  it("child runs take the operator's slots: none starts while every slot is taken", async () => {
    const registry = new Registry();
    let calls = 0;
    defineHandler(myResourceDescriptor(), 'mirror').onChild(builtins.configMaps, () => void calls++, { registry });
    const fixture = spawnFixture();
    const slots = new Slots(1);
    await slots.acquire();
    const children = new Children(fixture.env, registry.handlers, fixture.host, slots);
    children.deliver('u1', news('a', '1'));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(calls, 0);
    slots.release();
    await until(() => calls === 1);
    await children.drained();
  });

  it('a result write that meets a newer state backs off and lands on the newest; never dropped', async () => {
    const registry = new Registry();
    defineHandler<unknown, Record<string, string>>(myResourceDescriptor(), 'mirror').onChild(
      builtins.configMaps,
      (ctx) => ({ [ctx.childName]: 'seen' }),
      { registry },
    );
    const fixture = spawnFixture();
    // the host lags behind the server for a while: every write meets a newer state until the store catches up
    let stale: KubernetesObject | undefined = fixture.body();
    for (let i = 0; i < 3; i++) fixture.edit({ metadata: { labels: { edit: String(i) } } });
    const host = { ...fixture.host, current: () => stale ?? fixture.host.current('u1') };
    setTimeout(() => (stale = undefined), 300);
    const children = new Children(fixture.env, registry.handlers, host, new Slots(4));
    children.deliver('u1', news('a', '1'));
    await until(() => fixture.written.length > 0);
    await children.drained();
    assert.deepEqual(fixture.body().status, { mirror: { a: 'seen' } });
    assert.equal(fixture.lines.filter((line) => line.includes('failed')).length, 0, fixture.lines.join('\n'));
  });

  it('a run that fails outside the handler goes through the error policy and runs again after its backoff', async () => {
    const registry = new Registry();
    let calls = 0;
    defineHandler<unknown, Record<string, string>>(myResourceDescriptor(), 'mirror').onChild(
      builtins.configMaps,
      (ctx) => {
        calls++;
        return { [ctx.childName]: `call ${calls}` };
      },
      { registry },
    );
    const fixture = spawnFixture();
    fixture.env.backoff = { baseMs: 20, maxMs: 20 };
    let failing = true;
    const host = {
      ...fixture.host,
      adopt: (uid: string, answer: KubernetesObject | undefined) => {
        if (failing) {
          failing = false;
          throw new Error('the store refused it');
        }
        fixture.host.adopt(uid, answer);
      },
    };
    const children = new Children(fixture.env, registry.handlers, host, new Slots(4));
    children.deliver('u1', news('a', '1'));
    await until(() => calls === 2);
    await children.drained();
    await until(() => fixture.written.length === 2);
    assert.deepEqual(fixture.body().status, { mirror: { a: 'call 2' } });
    assert.ok(
      fixture.lines.some((line) =>
        /writing the result of child handler mirror \(1 children\) failed, running it again/.test(line),
      ),
      fixture.lines.join('\n'),
    );
  });
});
