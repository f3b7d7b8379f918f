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

/** A client whose PATCHes get the given answers in turn (an error, or the object); records the paths. */
function env(answers: (KubeError | Record<string, unknown>)[]) {
  const calls: string[] = [];
  const client = {
    async request(method: string, path: string) {
      calls.push(`${method} ${path}`);
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
  return { exec, calls };
}

/** Retry-After: 0 keeps the test fast; the count of attempts is what matters. */
const busy = (status: number) => new KubeError(`${status}`, status, undefined, 0);

describe('writePatch', () => {
  it('retries 409, 429 and 5xx until the write lands', async () => {
    const { exec, calls } = env([busy(409), busy(429), busy(503)]);
    const answer = await writePatch(exec, body, { status: { myapp: { phase: 'Done' } } });
    assert.equal(answer?.metadata && (answer.metadata as { resourceVersion: string }).resourceVersion, '6');
    assert.equal(calls.length, 4);
    assert.ok(calls.every((c) => c === 'PATCH /apis/example.com/v1/namespaces/ns/myresources/a/status'));
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
  it('a 409 on a write with a resourceVersion is a conflict, not retried', async () => {
    const { exec, calls } = env([busy(409)]);
    await assert.rejects(writePatch(exec, body, { metadata: { finalizers: [], resourceVersion: '5' } }), Conflict);
    assert.equal(calls.length, 1);
  });
  it('a 404 means the object is gone', async () => {
    const { exec } = env([busy(404)]);
    assert.equal(await writePatch(exec, body, { metadata: { annotations: { x: 'y' } } }), undefined);
  });
});
