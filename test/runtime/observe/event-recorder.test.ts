/**
 * The recorder's effect against a scripted client, then against a real API server: 200 identical Warnings on one
 * object leave exactly one Event, whose count is what the spam filter let through, and the true count once a
 * token is back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Logger } from '../../../src/runtime/api/context.js';
import { KubeError, type RequestOptions } from '../../../src/runtime/kube/client.js';
import { COMBINED_PREFIX, type CoreEvent, type EventInput } from '../../../src/runtime/observe/event-correlator.js';
import { EventRecorder, referenceOf } from '../../../src/runtime/observe/event-recorder.js';
import { createMetrics } from '../../../src/runtime/observe/metrics.js';
import { skip, START_TIMEOUT, startCluster, stopCluster, TEST_TIMEOUT, type Cluster } from '../../helpers/envtest.js';

const t0 = new Date('2026-01-01T00:00:00Z');

function recordingLogger() {
  const lines: string[] = [];
  const log = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  const logger: Logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
  return { lines, logger };
}

interface Call {
  method: string;
  path: string;
  options: RequestOptions;
}

/** A client whose answers the test scripts: `fail(call)` returns an error to throw, or nothing for success. */
function scriptedClient(fail: (call: Call) => Error | undefined = () => undefined) {
  const calls: Call[] = [];
  return {
    calls,
    client: {
      async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
        const call = { method, path, options };
        calls.push(call);
        await new Promise((resolve) => setTimeout(resolve, 1));
        const error = fail(call);
        if (error) throw error;
        return {} as T;
      },
    },
  };
}

const input = (uid: string, message = 'Handler myapp failed temporarily: boom', name = 'a'): EventInput => ({
  object: { apiVersion: 'v1', kind: 'ConfigMap', name, namespace: 'ns', uid },
  type: 'Warning',
  reason: 'myappFailed',
  message,
});

const summary = (calls: Call[]) =>
  calls.map((c) => {
    const count = c.method === 'PATCH' ? ` ${(c.options.body as { count: number }).count}` : '';
    return `${c.method} ${c.path}${count}`;
  });

describe('referenceOf', () => {
  it('the involvedObject of a resource as read', () => {
    const body = {
      apiVersion: 'example.com/v1',
      kind: 'MyResource',
      metadata: { name: 'a', namespace: 'ns', uid: 'u', resourceVersion: '7', labels: { x: 'y' } },
      spec: {},
    };
    assert.deepEqual(referenceOf(body), {
      apiVersion: 'example.com/v1',
      kind: 'MyResource',
      name: 'a',
      namespace: 'ns',
      uid: 'u',
      resourceVersion: '7',
    });
  });
});

describe('EventRecorder against a scripted client', () => {
  it('creates once, then patches the count with a merge patch, in order', async () => {
    const { calls, client } = scriptedClient();
    const metrics = createMetrics({ processMetrics: false });
    const recorder = new EventRecorder({ client, logger: recordingLogger().logger, metrics, now: () => t0 });
    for (let i = 0; i < 3; i++) recorder.record(input('u1'));
    await recorder.flush();
    const name = (calls[0].options.body as CoreEvent).metadata.name;
    assert.deepEqual(summary(calls), [
      'POST /api/v1/namespaces/ns/events',
      `PATCH /api/v1/namespaces/ns/events/${name} 2`,
      `PATCH /api/v1/namespaces/ns/events/${name} 3`,
    ]);
    assert.equal(calls[1].options.contentType, 'application/merge-patch+json');
    const message = input('u1').message;
    assert.deepEqual(calls[2].options.body, { count: 3, lastTimestamp: '2026-01-01T00:00:00Z', message });
    assert.match(await metrics.scrape(), /kopfgen_events_total\{action="patched"\} 2/);
  });

  it('a patch answered 404 creates the Event again with the count so far; a create answered 409 is done', async () => {
    const { calls, client } = scriptedClient((call) => {
      if (call.method === 'PATCH') return new KubeError('gone', 404, {});
      if ((call.options.body as CoreEvent).count === 1) return new KubeError('exists', 409, {});
      return undefined;
    });
    const { lines, logger } = recordingLogger();
    const recorder = new EventRecorder({ client, logger, now: () => t0 });
    recorder.record(input('u1'));
    recorder.record(input('u1'));
    await recorder.flush();
    assert.deepEqual(
      calls.map((c) => c.method),
      ['POST', 'PATCH', 'POST'],
    );
    assert.equal((calls[2].options.body as CoreEvent).count, 2);
    assert.deepEqual(lines, []);
  });

  it('a failed write is logged with the object and counted, never thrown; later Events still go out', async () => {
    let down = true;
    const { calls, client } = scriptedClient(() => (down ? new Error('connect ECONNREFUSED') : undefined));
    const { lines, logger } = recordingLogger();
    const metrics = createMetrics({ processMetrics: false });
    const recorder = new EventRecorder({ client, logger, metrics, now: () => t0 });
    recorder.record(input('u1'));
    await recorder.flush();
    down = false;
    recorder.record(input('u2', 'other', 'b'));
    await recorder.flush();
    assert.equal(calls.length, 2);
    assert.deepEqual(lines, [
      'warn could not write the Warning Event myappFailed on ConfigMap ns/a: connect ECONNREFUSED',
    ]);
    const text = await metrics.scrape();
    assert.match(text, /kopfgen_events_total\{action="failed"\} 1/);
    assert.match(text, /kopfgen_events_total\{action="created"\} 1/);
  });

  it('drops beyond the queue bound and what the spam filter refuses, with a debug line each', async () => {
    const { calls, client } = scriptedClient();
    const { lines, logger } = recordingLogger();
    const metrics = createMetrics({ processMetrics: false });
    const recorder = new EventRecorder({ client, logger, metrics, maxQueue: 2, now: () => t0 });
    for (let i = 0; i < 5; i++) recorder.record(input(`u${i}`, 'm', `o${i}`));
    await recorder.flush();
    assert.equal(calls.length, 2);
    assert.equal(lines.filter((l) => l.startsWith('debug Event dropped, 2 waiting')).length, 3);
    const spam = new EventRecorder({ client, logger, correlation: { burst: 1 }, now: () => t0 });
    spam.record(input('s'));
    spam.record(input('s'));
    await spam.flush();
    assert.ok(lines.includes('debug Event dropped by the spam filter: myappFailed on ConfigMap ns/a (count 2)'));
    assert.match(await metrics.scrape(), /kopfgen_events_total\{action="dropped"\} 3/);
  });

  it('flush(timeout) says false while a write hangs, true once all are written', async () => {
    let release = () => {};
    const hanging = new Promise<void>((resolve) => (release = resolve));
    const client = {
      async request<T>(): Promise<T> {
        await hanging;
        return {} as T;
      },
    };
    const recorder = new EventRecorder({ client, logger: recordingLogger().logger });
    recorder.record(input('u1'));
    assert.equal(await recorder.flush(20), false);
    release();
    assert.equal(await recorder.flush(1000), true);
    assert.equal(await recorder.flush(), true);
  });
});

describe('EventRecorder against a real API server', { skip }, () => {
  let cluster: Cluster | undefined;
  /** Unique per run: KOPFGEN_E2E_KUBECONFIG may name a cluster used before. */
  const ns = `observe-events-${Date.now().toString(36)}`;

  before(
    () => {
      cluster = startCluster();
      cluster.kubectl('create', 'namespace', ns);
    },
    { timeout: START_TIMEOUT },
  );
  after(() => stopCluster(cluster));

  async function configMap(name: string) {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns } };
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const made = await cluster!.client.request<{ metadata: { uid: string } }>('POST', path, { body });
    return { apiVersion: 'v1', kind: 'ConfigMap', name, namespace: ns, uid: made.metadata.uid };
  }

  async function eventsOf(uid: string) {
    const list = await cluster!.client.request<{ items: CoreEvent[] }>('GET', `/api/v1/namespaces/${ns}/events`, {
      query: { fieldSelector: `involvedObject.uid=${uid}` },
    });
    return list.items;
  }

  const timeout = TEST_TIMEOUT;

  it('200 identical Warnings: one Event, count 25 (the burst), 201 after a refill', { timeout }, async () => {
    const object = await configMap('burst');
    let now = t0;
    const metrics = createMetrics({ processMetrics: false });
    const { lines, logger } = recordingLogger();
    const recorder = new EventRecorder({ client: cluster!.client, logger, metrics, now: () => now });
    const warning = { object, type: 'Warning' as const, reason: 'myappFailed', message: 'Handler myapp failed: boom' };
    for (let i = 0; i < 200; i++) recorder.record(warning);
    await recorder.flush();
    let events = await eventsOf(object.uid);
    assert.equal(events.length, 1);
    const [{ count, reason, message, type }] = events;
    assert.deepEqual([count, reason, message, type], [25, 'myappFailed', warning.message, 'Warning']);
    assert.deepEqual([events[0].source.component, events[0].involvedObject.name], ['kopfgen', 'burst']);
    const text = await metrics.scrape();
    assert.match(text, /kopfgen_events_total\{action="created"\} 1\n/);
    assert.match(text, /kopfgen_events_total\{action="patched"\} 24\n/);
    assert.match(text, /kopfgen_events_total\{action="dropped"\} 175\n/);
    now = new Date(t0.getTime() + 300_000);
    recorder.record(warning);
    await recorder.flush();
    events = await eventsOf(object.uid);
    assert.deepEqual(
      events.map((e) => [e.count, e.lastTimestamp]),
      [[201, '2026-01-01T00:05:00Z']],
    );
    assert.equal(lines.filter((l) => l.startsWith('warn')).length, 0);
  });

  it('burst above 200: 200 identical Warnings, one Event, count 200; deleted, it returns', { timeout }, async () => {
    const object = await configMap('unlimited');
    const { logger } = recordingLogger();
    const recorder = new EventRecorder({ client: cluster!.client, logger, correlation: { burst: 1000 } });
    const warning = { object, type: 'Warning' as const, reason: 'myappFailed', message: 'Handler myapp failed: boom' };
    for (let i = 0; i < 200; i++) recorder.record(warning);
    await recorder.flush();
    const [event, ...rest] = await eventsOf(object.uid);
    assert.deepEqual([event.count, rest.length], [200, 0]);
    await cluster!.client.request('DELETE', `/api/v1/namespaces/${ns}/events/${event.metadata.name}`);
    recorder.record(warning);
    await recorder.flush();
    const again = await eventsOf(object.uid);
    assert.deepEqual(
      again.map((e) => [e.metadata.name, e.count]),
      [[event.metadata.name, 201]],
    );
  });

  it('11 different messages for one reason: 9 Events, then one combined Event with count 2', { timeout }, async () => {
    const object = await configMap('similar');
    const recorder = new EventRecorder({ client: cluster!.client, logger: recordingLogger().logger });
    for (let i = 1; i <= 11; i++) {
      recorder.record({ object, type: 'Warning', reason: 'myappFailed', message: `attempt ${i}` });
    }
    await recorder.flush();
    const events = (await eventsOf(object.uid)).map((e) => `${e.count} ${e.message}`).sort();
    assert.deepEqual(
      events,
      [
        `1 attempt 1`,
        ...[2, 3, 4, 5, 6, 7, 8, 9].map((i) => `1 attempt ${i}`),
        `2 ${COMBINED_PREFIX}attempt 11`,
      ].sort(),
    );
  });
});
