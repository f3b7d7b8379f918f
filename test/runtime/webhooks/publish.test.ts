/** What a clean stop with `--webhook-cleanup` sends (publish.ts `withdrawWebhooks`), against a recorded client. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { RegisteredWebhook } from '../../../src/runtime/api/registry.js';
import { Registry } from '../../../src/runtime/api/registry.js';
import { createLogger } from '../../../src/runtime/effects/log.js';
import { KubeError, type KubeClient } from '../../../src/runtime/kube/client.js';
import { withdrawWebhooks } from '../../../src/runtime/webhooks/publish.js';
import { resource } from '../../helpers/manifest-fixtures.js';

const w = (kind: 'validate' | 'mutate', id: string, options: RegisteredWebhook['options'] = {}): RegisteredWebhook => ({
  resource: resource(),
  id,
  kind,
  fn: () => undefined,
  options,
});

/** A client that records each request and answers it by `answer` (an error status, or success). */
function recorded(answer: (path: string) => number | undefined) {
  const requests: string[] = [];
  const client = {
    request: (method: string, path: string, options: { body?: unknown; contentType?: string } = {}) => {
      requests.push(`${method} ${path} ${options.contentType ?? ''} ${JSON.stringify(options.body)}`);
      const status = answer(path);
      return status === undefined ? Promise.resolve({}) : Promise.reject(new KubeError(`status ${status}`, status, {}));
    },
  } as unknown as KubeClient;
  return { client, requests };
}

const VALIDATING = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/op';
const MUTATING = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/op';
const MERGE = 'application/merge-patch+json';

it('each configuration is merge-patched to its persistent webhooks; one already gone is skipped; a refusal is thrown', async () => {
  const registry = new Registry();
  registry.webhooks.push(w('validate', 'strict', { persistent: true }), w('validate', 'lenient'), w('mutate', 'm'));
  const strict = {
    name: 'strict.validate.myresources.example.com',
    admissionReviewVersions: ['v1'],
    clientConfig: { url: 'https://127.0.0.1:9443/validate/example.com/v1/myresources/strict' },
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    rules: [
      {
        apiGroups: ['example.com'],
        apiVersions: ['v1'],
        operations: ['CREATE', 'UPDATE'],
        resources: ['myresources'],
        scope: 'Namespaced',
      },
    ],
    sideEffects: 'None',
    timeoutSeconds: 10,
  };
  const cases: { name: string; answer: (path: string) => number | undefined; want: string[]; throws?: RegExp }[] = [
    {
      name: 'both present',
      answer: () => undefined,
      want: [
        `PATCH ${VALIDATING} ${MERGE} ${JSON.stringify({ webhooks: [strict] })}`,
        `PATCH ${MUTATING} ${MERGE} {"webhooks":[]}`,
      ],
    },
    {
      name: 'the validating one deleted by hand: nothing to withdraw there',
      answer: (path) => (path === VALIDATING ? 404 : undefined),
      want: [
        `PATCH ${VALIDATING} ${MERGE} ${JSON.stringify({ webhooks: [strict] })}`,
        `PATCH ${MUTATING} ${MERGE} {"webhooks":[]}`,
      ],
    },
    {
      name: 'no RBAC to patch: the caller reports it',
      answer: () => 403,
      want: [`PATCH ${VALIDATING} ${MERGE} ${JSON.stringify({ webhooks: [strict] })}`],
      throws: /status 403/,
    },
  ];
  for (const { name, answer, want, throws } of cases) {
    const { client, requests } = recorded(answer);
    const withdraw = withdrawWebhooks({
      client,
      registry,
      name: 'op',
      endpoint: { url: 'https://127.0.0.1:9443' },
      logger: createLogger({ level: 'error', write: () => undefined }),
    });
    if (throws) await assert.rejects(withdraw, throws, name);
    else await withdraw;
    assert.deepEqual(requests, want, name);
  }
});
