import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, defineResource, Registry } from '../src/runtime/index.js';
import type { ExecEnv } from '../src/runtime/execute.js';
import { applyMergePatch } from '../src/runtime/json.js';
import type { KubeClient } from '../src/runtime/kube.js';
import { createLogger } from '../src/runtime/log.js';
import { encodeProgress, progressAnnotation } from '../src/runtime/progress.js';
import { isNewer, ResourceWorker, Slots } from '../src/runtime/worker.js';

const at = (rv: string) => ({ metadata: { resourceVersion: rv } });

describe('worker building blocks', () => {
  it('orders states by resourceVersion numerically (etcd revisions), any difference otherwise', () => {
    assert.equal(isNewer(at('10'), at('9')), true);
    assert.equal(isNewer(at('9'), at('10')), false, 'an intermediate event of our own patch is older than its answer');
    assert.equal(isNewer(at('10'), at('10')), false);
    assert.equal(isNewer(at('b'), at('a')), true);
  });
  it('bounds the work in flight and reports when it drained', async () => {
    const slots = new Slots(2);
    let running = 0;
    let peak = 0;
    const job = async () => {
      await slots.acquire();
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 10));
      running--;
      slots.release();
    };
    const jobs = Array.from({ length: 7 }, job);
    await new Promise((r) => setTimeout(r, 1));
    const drained = slots.drained();
    await Promise.all(jobs);
    await drained;
    assert.equal(peak, 2);
    assert.equal(running, 0);
  });
});

describe('ResourceWorker', () => {
  it('does not bring back an object whose DELETED event arrived while its patch was in flight', async () => {
    const resource = defineResource({ group: 'example.com', version: 'v1', plural: 'myresources', kind: 'MyResource', scope: 'Namespaced', statusSubresource: true, printerColumns: [] });
    const registry = new Registry();
    defineHandler(resource, 'myapp').onCreate(() => undefined, { registry });
    const body = { apiVersion: 'example.com/v1', kind: 'MyResource', metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '5' }, spec: {} };
    let worker!: ResourceWorker;
    let patched!: () => void;
    const done = new Promise<void>((resolve) => (patched = resolve));
    const client = {
      async request(_method: string, _path: string, options: { body: unknown }) {
        worker.delete(body); // the watch delivers DELETED before the PATCH's answer comes back
        const answer = applyMergePatch(body, options.body) as { metadata: Record<string, unknown> };
        answer.metadata.resourceVersion = '6';
        setImmediate(patched);
        return answer;
      },
    } as unknown as KubeClient;
    const env: ExecEnv = { client, resource, logger: createLogger({ write: () => {} }), signal: new AbortController().signal, now: () => new Date() };
    const slots = new Slots(1);
    worker = new ResourceWorker(env, registry.handlers, slots);
    worker.upsert(structuredClone(body));
    await done;
    await slots.drained();
    assert.equal(worker.objects.size, 0);
  });

  it('a handler failed by its limits before an attempt completes the cause in the same patch', async () => {
    const resource = defineResource({ group: 'example.com', version: 'v1', plural: 'myresources', kind: 'MyResource', scope: 'Namespaced', statusSubresource: true, printerColumns: [] });
    const registry = new Registry();
    let calls = 0;
    defineHandler(resource, 'myapp').onCreate(() => { calls++; }, { registry, retries: 3 });
    const record = encodeProgress({ started: '2026-01-01T00:00:00Z', purpose: 'create', retries: 3, delayed: '2026-01-01T00:01:00Z', message: 'flaky' });
    const body = { apiVersion: 'example.com/v1', kind: 'MyResource', metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '5', annotations: { [progressAnnotation('myapp')]: record } }, spec: {} };
    const patches: Record<string, any>[] = [];
    let rv = 5;
    let state: Record<string, unknown> = body;
    const client = {
      async request(method: string, _path: string, options: { body: Record<string, any> }) {
        if (method !== 'PATCH') return {}; // the Event
        patches.push(options.body);
        state = applyMergePatch(state, options.body) as Record<string, unknown>;
        (state.metadata as Record<string, unknown>).resourceVersion = String(++rv);
        return structuredClone(state);
      },
    } as unknown as KubeClient;
    const env: ExecEnv = { client, resource, logger: createLogger({ write: () => {} }), signal: new AbortController().signal, now: () => new Date() };
    const slots = new Slots(1);
    const worker = new ResourceWorker(env, registry.handlers, slots);
    worker.upsert(structuredClone(body));
    await new Promise((r) => setTimeout(r, 50));
    await slots.drained();
    assert.equal(calls, 0);
    assert.equal(patches.length, 1, JSON.stringify(patches));
    const annotations = patches[0].metadata.annotations;
    assert.equal(JSON.parse(annotations[progressAnnotation('myapp')]).message, 'gave up after 3 attempt(s)');
    assert.ok(annotations['kopfgen.dev/last-handled-configuration']);
  });
});
