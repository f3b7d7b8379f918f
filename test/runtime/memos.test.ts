import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, Registry } from '../../src/runtime/index.js';
import type { ResourceEnv } from '../../src/runtime/env.js';
import { applyMergePatch } from '../../src/runtime/json.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import { createLogger } from '../../src/runtime/effects/log.js';
import { Controller } from '../../src/runtime/controller.js';
import { Memos } from '../../src/runtime/memos.js';
import { Slots } from '../../src/runtime/queue.js';
import { myResourceDescriptor, policyEnv } from '../helpers/resource-env.js';

type Bag = Record<string, unknown>;

describe('Memos', () => {
  it('gives each object a shallow copy of the root, the same one on every call, until forgotten', () => {
    const shared = { hits: 0 };
    const root: Bag = { shared, flag: 'root' };
    const memos = new Memos(root);
    const a = memos.of('a') as Bag;
    const given: { uid: string; want: boolean }[] = [
      { uid: 'a', want: true },
      { uid: 'b', want: false },
    ];
    for (const { uid, want } of given) assert.equal(memos.of(uid) === a, want, uid);
    a.flag = 'object a';
    a.own = 1;
    assert.deepEqual(root, { shared, flag: 'root' }, "an object's own keys never reach the root");
    assert.equal(a.shared, shared, 'shallow: the values are the root’s own');
    assert.equal((memos.of('b') as Bag).flag, 'root');
    assert.equal(memos.size, 2);
    memos.forget('a');
    assert.equal(memos.size, 1);
    assert.notEqual(memos.of('a'), a, 'a forgotten object starts over from the root');
  });

  it('place makes the object’s memo the given one', () => {
    const root: Bag = { x: 1 };
    const memos = new Memos(root);
    const given: Bag = {};
    memos.place('u', given);
    assert.equal(memos.of('u'), given);
  });
});

describe('Controller: memo', () => {
  it('the handlers of one object share its memo, a copy of the root, dropped when the object is gone', async () => {
    const resource = myResourceDescriptor();
    const registry = new Registry();
    const seen: Bag[] = [];
    const remember = (ctx: { memo: object }) => {
      const memo = ctx.memo as Bag;
      memo.count = Number(memo.count ?? 0) + 1;
      (memo.log as string[]).push(String(memo.count));
      seen.push(memo);
    };
    defineHandler(resource, 'first').onCreate(remember, { registry });
    defineHandler(resource, 'second').onCreate(remember, { registry });
    const body = {
      apiVersion: 'example.com/v1',
      kind: 'MyResource',
      metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '5' },
      spec: {},
    };
    let version = 5;
    let state: unknown = structuredClone(body);
    const client = {
      async request(_method: string, _path: string, options: { body: unknown }) {
        state = applyMergePatch(state, options.body);
        (state as { metadata: Bag }).metadata.resourceVersion = String(++version);
        return structuredClone(state);
      },
    } as unknown as KubeClient;
    const log: string[] = [];
    const root: Bag = { log };
    const memos = new Memos(root);
    const env: ResourceEnv = {
      client,
      resource,
      logger: createLogger({ write: () => {} }),
      signal: new AbortController().signal,
      now: () => new Date(),
      ...policyEnv(),
      memos,
    };
    const slots = new Slots(1);
    const worker = new Controller(env, registry.handlers, slots);
    worker.upsert(structuredClone(body));
    await slots.drained();
    assert.equal(seen.length, 2);
    assert.equal(seen[0], seen[1], 'one memo for both handlers');
    assert.equal(seen[0]?.count, 2);
    assert.deepEqual(log, ['1', '2'], "the root's values are shared (a shallow copy)");
    assert.deepEqual(Object.keys(root), ['log'], 'the root keeps only its own keys');
    assert.equal(memos.size, 1);
    worker.delete(body);
    assert.equal(memos.size, 0);
  });
});
