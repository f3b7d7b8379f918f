/** Writing an outcome's patch: which answers are retried, how often, and what a 404 or a conflict means. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Conflict, writePatch } from '../../../src/runtime/effects/api-write.js';
import type { ResourceEnv } from '../../../src/runtime/env.js';
import { KubeError, type KubeClient } from '../../../src/runtime/kube/client.js';
import { createLogger } from '../../../src/runtime/effects/log.js';
import { policyEnv, myResourceDescriptor } from '../../helpers/resource-env.js';

const resource = myResourceDescriptor();
const body = { metadata: { name: 'a', namespace: 'ns', uid: 'u', resourceVersion: '5' } };

/** A client whose PATCHes get the given answers in turn (an error, or the object); records the paths and bodies. */
function env(answers: (KubeError | Record<string, unknown>)[]) {
  const calls: string[] = [];
  const bodies: unknown[] = [];
  const client = {
    async request(method: string, path: string, options: { body?: unknown } = {}) {
      calls.push(`${method} ${path}`);
      bodies.push(options.body);
      const answer = answers.shift() ?? { metadata: { resourceVersion: '6' } };
      if (answer instanceof KubeError) throw answer;
      return answer;
    },
  } as unknown as KubeClient;
  const logger = createLogger({ write: () => {} });
  const exec: ResourceEnv = {
    client,
    resource,
    logger,
    signal: new AbortController().signal,
    now: () => new Date(),
    ...policyEnv(),
  };
  return { exec, calls, bodies };
}

/** Retry-After: 0 keeps the test fast; the count of attempts is what matters. */
const busy = (status: number) => new KubeError(`${status}`, status, undefined, 0);

describe('writePatch', () => {
  it('retries 429 and 5xx until the write lands', async () => {
    const { exec, calls } = env([busy(429), busy(503)]);
    const answer = await writePatch(exec, body, { status: { myapp: { phase: 'Done' } } });
    assert.equal(answer?.metadata && (answer.metadata as { resourceVersion: string }).resourceVersion, '6');
    assert.equal(calls.length, 3);
    assert.ok(calls.every((c) => c === 'PATCH /apis/example.com/v1/namespaces/ns/myresources/a/status'));
  });
  it("every request carries the resourceVersion it was decided on; the second of a split write, the first one's answer", async () => {
    const { exec, bodies } = env([{ metadata: { resourceVersion: '8' } }, { metadata: { resourceVersion: '9' } }]);
    await writePatch(exec, body, { status: { myapp: { phase: 'Done' } }, metadata: { annotations: { x: 'y' } } });
    assert.deepEqual(bodies, [
      { metadata: { resourceVersion: '5' }, status: { myapp: { phase: 'Done' } } },
      { metadata: { annotations: { x: 'y' }, resourceVersion: '8' } },
    ]);
  });
  it('a 409 on the precondition is a Conflict, not retried: the state the write was decided on is gone', async () => {
    for (const patch of [{ status: { myapp: { phase: 'Done' } } }, { metadata: { annotations: { x: 'y' } } }]) {
      const { exec, calls } = env([busy(409)]);
      await assert.rejects(writePatch(exec, body, patch), Conflict);
      assert.equal(calls.length, 1);
    }
  });
  it('a request too large for the API server or etcd is not retried', async () => {
    const answers = [
      new KubeError('PATCH x: 500 etcdserver: request is too large', 500, undefined),
      new KubeError(
        'PATCH x: 500 rpc error: code = ResourceExhausted desc = trying to send message larger than max',
        500,
        undefined,
      ),
      new KubeError('PATCH x: 413 Request entity too large: limit is 3145728', 413, undefined),
    ];
    for (const answer of answers) {
      const { exec, calls } = env([answer]);
      await assert.rejects(
        writePatch(exec, body, { status: { myapp: { phase: 'x'.repeat(10) } } }),
        /too large|larger/,
      );
      assert.equal(calls.length, 1, answer.message);
    }
  });
  it('gives up after a bounded number of attempts', async () => {
    const { exec, calls } = env(Array.from({ length: 50 }, () => busy(500)));
    await assert.rejects(writePatch(exec, body, { metadata: { annotations: { x: 'y' } } }), /500/);
    assert.equal(calls.length, 10);
  });
  it('does not retry other client errors', async () => {
    const { exec, calls } = env([busy(422)]);
    await assert.rejects(writePatch(exec, body, { metadata: { annotations: { x: 'y' } } }), /422/);
    assert.equal(calls.length, 1);
  });
  it('a write on a state without a resourceVersion (none to hold it to): 409 is retried', async () => {
    const { exec, calls } = env([busy(409)]);
    await writePatch(exec, { metadata: { name: 'a', namespace: 'ns' } }, { metadata: { annotations: { x: 'y' } } });
    assert.equal(calls.length, 2);
  });
  it('a 404 means the object is gone', async () => {
    const { exec } = env([busy(404)]);
    assert.equal(await writePatch(exec, body, { metadata: { annotations: { x: 'y' } } }), undefined);
  });
});
