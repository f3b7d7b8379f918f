/** The webhook configurations and a CRD's conversion built from registrations (configurations.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { PRESENT } from '../../../src/runtime/api/filters.js';
import type { RegisteredWebhook } from '../../../src/runtime/api/registry.js';
import { crdConversion, webhookConfigurations, webhookPath } from '../../../src/runtime/webhooks/configurations.js';
import { resource } from '../../helpers/manifest-fixtures.js';

const w = (kind: 'validate' | 'mutate', id: string, options: RegisteredWebhook['options'] = {}): RegisteredWebhook => ({
  resource: resource(),
  id,
  kind,
  fn: () => undefined,
  options,
});

it('one configuration per kind, webhooks sorted, rules and settings from the registration', () => {
  const [validating, mutating] = webhookConfigurations(
    [
      w('validate', 'Z_last', {
        operations: ['DELETE'],
        failurePolicy: 'Ignore',
        timeoutSeconds: 3,
        subresource: 'status',
      }),
      w('validate', 'a', { labels: { tier: 'web', seen: PRESENT, any: () => true } }),
      w('mutate', 'm', { sideEffects: 'NoneOnDryRun' }),
    ],
    'my-op',
    { service: { name: 'svc', namespace: 'ops' } },
    { caBundle: 'Q0E=' },
  );
  assert.equal(validating.kind, 'ValidatingWebhookConfiguration');
  const hooks = validating.webhooks as Record<string, any>[];
  assert.deepEqual(
    hooks.map((h) => h.name),
    ['a.validate.myresources.example.com', 'z-last.validate-status.myresources.example.com'],
  );
  assert.deepEqual(hooks[0].objectSelector, {
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['web'] },
      { key: 'seen', operator: 'Exists' },
    ],
  });
  assert.deepEqual(hooks[1].rules, [
    {
      apiGroups: ['example.com'],
      apiVersions: ['v1'],
      operations: ['DELETE'],
      resources: ['myresources/status'],
      scope: 'Namespaced',
    },
  ]);
  assert.deepEqual([hooks[1].failurePolicy, hooks[1].timeoutSeconds, hooks[1].sideEffects], ['Ignore', 3, 'None']);
  assert.deepEqual(hooks[1].clientConfig, {
    service: { name: 'svc', namespace: 'ops', path: '/validate/example.com/v1/myresources/status/z-last', port: 443 },
    caBundle: 'Q0E=',
  });
  assert.deepEqual([hooks[0].admissionReviewVersions, hooks[0].matchPolicy], [['v1'], 'Equivalent']);
  assert.equal(mutating.kind, 'MutatingWebhookConfiguration');
  assert.equal((mutating.webhooks as Record<string, any>[])[0].sideEffects, 'NoneOnDryRun');
  assert.equal(webhookPath(w('mutate', 'm')), '/mutate/example.com/v1/myresources/m');
});

it("a CRD's spec.conversion points at /convert/<crd>", () => {
  assert.deepEqual(crdConversion('widgets.example.com', { url: 'https://127.0.0.1:9443/' }, 'Q0E='), {
    strategy: 'Webhook',
    webhook: {
      clientConfig: { url: 'https://127.0.0.1:9443/convert/widgets.example.com', caBundle: 'Q0E=' },
      conversionReviewVersions: ['v1'],
    },
  });
});

it('handler ids are normalized to RFC 1123 path segments in every mode; two that normalize alike are refused', () => {
  const url = { url: 'https://127.0.0.1:9443' };
  const [config] = webhookConfigurations([w('validate', 'create_fn')], 'op', url);
  const [entry] = (config.webhooks as Record<string, unknown>[]) ?? [];
  assert.deepEqual(entry.clientConfig, { url: 'https://127.0.0.1:9443/validate/example.com/v1/myresources/create-fn' });
  assert.equal(entry.name, 'create-fn.validate.myresources.example.com');
  assert.throws(
    () => webhookConfigurations([w('validate', 'create_fn'), w('validate', 'Create-Fn')], 'op', url),
    /validate handlers create_fn and Create-Fn of myresources\.example\.com v1 would share the webhook path/,
  );
});

it('withdrawn on a clean stop (persistentOnly): each kind keeps its object with only the persistent webhooks', () => {
  const url = { url: 'https://127.0.0.1:9443' };
  const webhooks = [
    w('validate', 'strict', { persistent: true }),
    w('validate', 'lenient'),
    w('validate', 'not_persistent', { persistent: false }),
    w('mutate', 'defaults'),
  ];
  const cases: { given: RegisteredWebhook[]; want: [string, string[]][] }[] = [
    {
      given: webhooks,
      want: [
        ['ValidatingWebhookConfiguration', ['strict.validate.myresources.example.com']],
        ['MutatingWebhookConfiguration', []],
      ],
    },
    { given: [w('mutate', 'defaults')], want: [['MutatingWebhookConfiguration', []]] },
    { given: [], want: [] },
  ];
  for (const { given, want } of cases) {
    const got = webhookConfigurations(given, 'op', url, { persistentOnly: true }).map((c): [string, string[]] => [
      String(c.kind),
      (c.webhooks as { name: string }[]).map((h) => h.name),
    ]);
    assert.deepEqual(got, want);
  }
  // Without it, every webhook is written; a kind without registrations has no object either way.
  assert.deepEqual(
    webhookConfigurations(webhooks, 'op', url).map((c) => (c.webhooks as unknown[]).length),
    [3, 1],
  );
});
