import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, Registry } from '../../src/runtime/index.js';
import type { ResourceEnv } from '../../src/runtime/env.js';
import { applyMergePatch } from '../../src/runtime/json.js';
import { FencedError, KubeError, type KubeClient } from '../../src/runtime/kube/client.js';
import { createLogger } from '../../src/runtime/effects/log.js';
import { encodeProgress, progressAnnotation } from '../../src/runtime/reconcile/progress.js';
import { Controller } from '../../src/runtime/controller.js';
import { Slots } from '../../src/runtime/queue.js';
import { collectEvents, policyEnv, myResourceDescriptor, quietEnv } from '../helpers/resource-env.js';
import { objectApi } from '../helpers/object-api.js';

describe('Controller', () => {
  it('does not bring back an object whose DELETED event arrived while its patch was in flight', async () => {
    const resource = myResourceDescriptor();
    const registry = new Registry();
    defineHandler(resource, 'myapp').onCreate(() => undefined, { registry });
    const body = {
      apiVersion: 'example.com/v1',
      kind: 'MyResource',
      metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '5' },
      spec: {},
    };
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
    const env: ResourceEnv = {
      client,
      resource,
      logger: createLogger({ write: () => {} }),
      signal: new AbortController().signal,
      now: () => new Date(),
      ...policyEnv(),
    };
    const slots = new Slots(1);
    worker = new Controller(env, registry.handlers, slots);
    worker.upsert(structuredClone(body));
    await done;
    await slots.drained();
    assert.equal(worker.store.size, 0);
  });

  it('a handler failed by its limits before an attempt completes the cause in the same patch', async () => {
    const resource = myResourceDescriptor();
    const registry = new Registry();
    let calls = 0;
    defineHandler(resource, 'myapp').onCreate(
      () => {
        calls++;
      },
      { registry, retries: 3 },
    );
    const record = encodeProgress({
      started: '2026-01-01T00:00:00Z',
      purpose: 'create',
      retries: 3,
      delayed: '2026-01-01T00:01:00Z',
      message: 'flaky',
    });
    const body = {
      apiVersion: 'example.com/v1',
      kind: 'MyResource',
      metadata: {
        name: 'a',
        namespace: 'ns',
        uid: 'u1',
        resourceVersion: '5',
        annotations: { [progressAnnotation('myapp')]: record },
      },
      spec: {},
    };
    const api = objectApi(body);
    const patches = api.written as Record<string, any>[];
    const env = quietEnv(api.client, { resource });
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
  it('a write that cannot succeed counts as attempts of the handler (retries end it), backs off exponentially, one line per failure', async () => {
    const resource = myResourceDescriptor();
    const registry = new Registry();
    let calls = 0;
    defineHandler(resource, 'myapp').onCreate(
      () => {
        calls++;
      },
      { registry, retries: 3 },
    );
    const metadata = { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '5' };
    const body = { apiVersion: 'example.com/v1', kind: 'MyResource', metadata, spec: {} };
    const lines: string[] = [];
    const patches: number[] = [];
    const client = {
      async request() {
        patches.push(Date.now());
        throw new KubeError('PATCH: 422 too long', 422, {
          message: 'metadata.annotations: Too long: must have at most 262144 bytes',
        });
      },
    } as unknown as KubeClient;
    const logger = createLogger({ write: (l) => lines.push(l) });
    const events = collectEvents();
    const env: ResourceEnv = {
      client,
      resource,
      logger,
      signal: new AbortController().signal,
      now: () => new Date(),
      ...policyEnv(events),
      backoff: { baseMs: 50, maxMs: 10_000 },
    };
    const slots = new Slots(1);
    const controller = new Controller(env, registry.handlers, slots);
    controller.upsert(structuredClone(body));
    const started = Date.now();
    while (lines.filter((l) => l.includes('ERROR')).length < 5 && Date.now() - started < 10_000)
      await new Promise((r) => setTimeout(r, 10));
    controller.stop();
    await slots.drained();
    assert.equal(calls, 3, 'retries: 3 ended the handler although no attempt could be recorded');
    const failures = lines.filter((l) => l.includes('ERROR'));
    assert.equal(failures.length, 5, `one line per failure:\n${lines.join('\n')}`);
    assert.match(
      failures[0],
      /ERROR myresources ns\/a: handler myapp failed: patch on myresources rejected: the object's annotations would exceed 256 KiB .* \(attempt 1\), retrying in 0.05s \(failure 1 in a row\)/,
    );
    assert.match(
      failures[2],
      /handler myapp failed permanently: .*\(gave up after 3 attempt\(s\)\) \(attempt 3\), not retrying it/,
    );
    assert.match(failures[3], /myresources ns\/a: processing failed, retrying in 0.4s \(failure 4 in a row\)/);
    const gaps = patches.slice(1).map((t, i) => t - patches[i]);
    // attempts at 0, 50, 150, 350, 750 ms: each gap at least the doubling backoff (timers never fire early)
    assert.ok(
      gaps.every((gap, i) => gap >= 50 * 2 ** i - 2),
      `exponential gaps: ${gaps.join(', ')}`,
    );
    const messages = new Set(events.recorded.map((e) => `${e.reason}: ${e.message}`));
    assert.equal(messages.size, 3, [...messages].join('\n')); // the repeated failure, the final one, the completion that cannot be written
  });
  it("a handler's write refused by the lease fence: no attempt counted, no Event, no retry: left to the new leader", async () => {
    const resource = myResourceDescriptor();
    const registry = new Registry();
    let calls = 0;
    defineHandler(resource, 'myapp').onCreate(
      () => {
        calls++;
      },
      { registry },
    );
    const body = {
      apiVersion: 'example.com/v1',
      kind: 'MyResource',
      metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '5' },
      spec: {},
    };
    const client = {
      async request(method: string, path: string) {
        throw new FencedError(method, path, 'this replica no longer holds the lease');
      },
    } as unknown as KubeClient;
    const events = collectEvents();
    const lines: string[] = [];
    const env: ResourceEnv = {
      client,
      resource,
      logger: createLogger({ write: (line) => void lines.push(line) }),
      signal: new AbortController().signal,
      now: () => new Date(),
      ...policyEnv(events),
    };
    const slots = new Slots(1);
    const worker = new Controller(env, registry.handlers, slots);
    worker.upsert(structuredClone(body));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await slots.drained();
    assert.equal(calls, 1);
    assert.deepEqual(events.recorded, []);
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0], /not sent: this replica no longer holds the lease; left to the new leader/);
  });
});
