/** Warning Events about handler failures: which outcomes post one, and what it says. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineResource } from '../../../src/runtime/index.js';
import { eventWorthy, postEvent } from '../../../src/runtime/effects/events.js';
import { createLogger } from '../../../src/runtime/effects/log.js';
import type { ResourceEnv } from '../../../src/runtime/env.js';
import { KubeError, type KubeClient } from '../../../src/runtime/kube/client.js';
import type { Outcome } from '../../../src/runtime/reconcile/outcome.js';

const resource = defineResource({
  group: 'example.com', version: 'v1', plural: 'myresources', kind: 'MyResource', scope: 'Namespaced',
  statusSubresource: true, printerColumns: [],
});
const body = { apiVersion: 'example.com/v1', kind: 'MyResource', metadata: { name: 'a', namespace: 'ns', uid: 'u1' } };

function env(answer: (path: string, event: unknown) => unknown) {
  const lines: string[] = [];
  const client = {
    async request(_method: string, path: string, options: { body: unknown }) {
      return answer(path, options.body);
    },
  };
  const exec: ResourceEnv = {
    client: client as unknown as KubeClient, resource, logger: createLogger({ write: (l) => lines.push(l) }),
    signal: new AbortController().signal, now: () => new Date('2026-01-01T00:00:00Z'),
  };
  return { exec, lines };
}

describe('eventWorthy', () => {
  it('failures post an Event, except an attempt cut short by the shutdown', () => {
    const cases: { given: Outcome; want: boolean }[] = [
      { given: { kind: 'success' }, want: false },
      { given: { kind: 'ignored' }, want: false },
      { given: { kind: 'temporary', delay: 5 }, want: true },
      { given: { kind: 'temporary', delay: 0, interrupted: true }, want: false },
      { given: { kind: 'permanent' }, want: true },
    ];
    for (const { given, want } of cases) assert.equal(eventWorthy(given), want, JSON.stringify(given));
  });
});

describe('postEvent', () => {
  it('posts a Warning naming the handler, the object and the retry', async () => {
    let posted: { path: string; event: Record<string, unknown> } | undefined;
    const { exec } = env((path, event) => (posted = { path, event: event as Record<string, unknown> }));
    await postEvent(exec, body, 'myapp', { kind: 'temporary', delay: 5, message: 'db down' });
    assert.equal(posted?.path, '/api/v1/namespaces/ns/events');
    assert.deepEqual(
      [posted?.event.type, posted?.event.reason, posted?.event.message],
      ['Warning', 'myappFailed', 'Handler myapp failed temporarily: db down, retry in 5s'],
    );
    assert.deepEqual(posted?.event.involvedObject, {
      apiVersion: 'example.com/v1', kind: 'MyResource', name: 'a', namespace: 'ns', uid: 'u1',
      resourceVersion: undefined,
    });
  });
  it('a failure to post is only logged', async () => {
    const { exec, lines } = env(() => {
      throw new KubeError('POST: 403 forbidden', 403, undefined);
    });
    await postEvent(exec, body, 'myapp', { kind: 'permanent', message: 'bad' });
    assert.match(lines.join('\n'), /could not post the Event for handler myapp on ns\/a: POST: 403 forbidden/);
  });
});
