import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, defineResource, Registry } from '../../src/runtime/index.js';
import type { ResourceEnv } from '../../src/runtime/env.js';
import { applyMergePatch } from '../../src/runtime/json.js';
import { KubeError, type KubeClient } from '../../src/runtime/kube/client.js';
import { createLogger } from '../../src/runtime/effects/log.js';
import { encodeProgress, progressAnnotation } from '../../src/runtime/reconcile/progress.js';
import { Controller } from '../../src/runtime/controller.js';
import { Slots } from '../../src/runtime/queue.js';

describe('Controller', () => {
  it('does not bring back an object whose DELETED event arrived while its patch was in flight', async () => {
    const resource = defineResource({ group: 'example.com', version: 'v1', plural: 'myresources', kind: 'MyResource', scope: 'Namespaced', statusSubresource: true, printerColumns: [] });
    const registry = new Registry();
    defineHandler(resource, 'myapp').onCreate(() => undefined, { registry });
    const body = { apiVersion: 'example.com/v1', kind: 'MyResource', metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '5' }, spec: {} };
    let worker!: Controller;
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
    const env: ResourceEnv = { client, resource, logger: createLogger({ write: () => {} }), signal: new AbortController().signal, now: () => new Date() };
    const slots = new Slots(1);
    worker = new Controller(env, registry.handlers, slots);
    worker.upsert(structuredClone(body));
    await done;
    await slots.drained();
    assert.equal(worker.store.size, 0);
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
    const env: ResourceEnv = { client, resource, logger: createLogger({ write: () => {} }), signal: new AbortController().signal, now: () => new Date() };
    const slots = new Slots(1);
    const worker = new Controller(env, registry.handlers, slots);
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

describe('Controller: failures', () => {
  it('a write that cannot succeed goes through the error policy: one line, the object retried later', async () => {
    const resource = defineResource({
      group: 'example.com', version: 'v1', plural: 'myresources', kind: 'MyResource', scope: 'Namespaced',
      statusSubresource: true, printerColumns: [],
    });
    const registry = new Registry();
    let calls = 0;
    defineHandler(resource, 'myapp').onCreate(() => { calls++; }, { registry });
    const metadata = { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '5' };
    const body = { apiVersion: 'example.com/v1', kind: 'MyResource', metadata, spec: {} };
    const lines: string[] = [];
    const client = {
      async request() {
        throw new KubeError('PATCH: 422 too long', 422, undefined);
      },
    } as unknown as KubeClient;
    const logger = createLogger({ write: (l) => lines.push(l) });
    const env: ResourceEnv = { client, resource, logger, signal: new AbortController().signal, now: () => new Date() };
    const slots = new Slots(1);
    const controller = new Controller(env, registry.handlers, slots);
    controller.upsert(structuredClone(body));
    await new Promise((r) => setTimeout(r, 20));
    await slots.drained();
    controller.stop();
    assert.equal(calls, 1);
    const failures = lines.filter((l) => l.includes('processing failed'));
    assert.equal(failures.length, 1, lines.join('\n'));
    const want = /ERROR processing failed, retrying in 10s: PATCH: 422 too long resource=myresources uid=u1/;
    assert.match(failures[0], want);
  });
});
