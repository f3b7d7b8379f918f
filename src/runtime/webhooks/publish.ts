/**
 * Tells the API server where the webhooks are and which CA to trust: the operator's own webhook
 * configurations (self-signed mode: the CA is made at run time, so only the running operator can
 * write the `caBundle`; kopf's `configuration_manager`), and the `spec.conversion` of each CRD whose
 * conversion functions are registered (in every mode: the CRD is the operator's, and a partial CRD
 * cannot be applied from a manifest). Every replica writes the same objects (the CA is shared), so
 * concurrent writes agree. A configuration is patched, or created when absent (404 → create,
 * 409 → patch again), as kopf pre-creates its managed configurations. `withdrawWebhooks` is the
 * other end, on a clean stop with `--webhook-cleanup`.
 */
import type { Logger } from '../api/context.js';
import type { Registry } from '../api/registry.js';
import { KubeError, type KubeClient } from '../kube/client.js';
import {
  CONFIGURATION_RESOURCES,
  crdConversion,
  webhookConfigurations,
  type WebhookEndpoint,
} from './configurations.js';

export interface PublishOptions {
  client: KubeClient;
  registry: Registry;
  /** The configurations' name. */
  name: string;
  endpoint: WebhookEndpoint;
  /** The CA's PEM, when known; without it the API server trusts what cert-manager injects. */
  ca?: string;
  /** Write the webhook configurations too (self-signed mode), not only the CRDs' conversion. */
  configurations: boolean;
  logger: Logger;
}

const ADMISSION_API = '/apis/admissionregistration.k8s.io/v1';
const MERGE = 'application/merge-patch+json';

async function applyConfiguration(client: KubeClient, object: Record<string, unknown>, resource: string) {
  const metadata = object.metadata as { name: string };
  const path = `${ADMISSION_API}/${resource}/${metadata.name}`;
  const patch = { metadata: object.metadata, webhooks: object.webhooks };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await client.request('PATCH', path, { body: patch, contentType: MERGE });
      return;
    } catch (error) {
      if (!(error instanceof KubeError && error.status === 404)) throw error;
    }
    try {
      await client.request('POST', `${ADMISSION_API}/${resource}`, { body: object });
      return;
    } catch (error) {
      // Another replica created it meanwhile: patch that one.
      if (!(error instanceof KubeError && error.status === 409)) throw error;
    }
  }
}

/** Writes what the registry needs; throws the first request that fails (a startup problem). */
export async function publishWebhooks(options: PublishOptions): Promise<void> {
  const { client, registry, endpoint, logger } = options;
  const caBundle = options.ca === undefined ? undefined : Buffer.from(options.ca).toString('base64');
  if (options.configurations) {
    for (const object of webhookConfigurations(registry.webhooks, options.name, endpoint, { caBundle })) {
      const kind = object.kind === 'ValidatingWebhookConfiguration' ? 'validate' : 'mutate';
      await applyConfiguration(client, object, CONFIGURATION_RESOURCES[kind]);
      logger.info(`${String(object.kind)} ${options.name} written (${(object.webhooks as unknown[]).length} webhooks)`);
    }
  }
  for (const crd of registry.conversions.keys()) {
    const conversion = crdConversion(crd, endpoint, caBundle);
    // A merge patch keeps keys it does not name: null the other kind of endpoint so exactly one remains.
    const webhook = conversion.webhook as { clientConfig: Record<string, unknown> };
    webhook.clientConfig = { url: null, service: null, ...webhook.clientConfig };
    await client.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`, {
      body: { spec: { conversion } },
      contentType: MERGE,
    });
    logger.info(`the CRD ${crd} converts through this operator's webhook`);
  }
}

export interface WithdrawOptions {
  client: KubeClient;
  registry: Registry;
  name: string;
  endpoint: WebhookEndpoint;
  ca?: string;
  logger: Logger;
}

/**
 * On a clean stop with `--webhook-cleanup`: each configuration this operator wrote is patched to hold
 * only its `persistent` webhooks (kopf's `configuration_manager` on exit). The object itself stays (an
 * empty list calls nothing), so the next start patches it as before. A configuration already gone is
 * nothing to withdraw; any other refusal is thrown for the caller to report.
 */
export async function withdrawWebhooks(options: WithdrawOptions): Promise<void> {
  const { client, registry, endpoint, logger } = options;
  const caBundle = options.ca === undefined ? undefined : Buffer.from(options.ca).toString('base64');
  const left = webhookConfigurations(registry.webhooks, options.name, endpoint, { caBundle, persistentOnly: true });
  for (const object of left) {
    const kind = object.kind === 'ValidatingWebhookConfiguration' ? 'validate' : 'mutate';
    const webhooks = object.webhooks as unknown[];
    try {
      // A merge patch replaces a list whole: what is left is exactly the persistent webhooks.
      await client.request('PATCH', `${ADMISSION_API}/${CONFIGURATION_RESOURCES[kind]}/${options.name}`, {
        body: { webhooks },
        contentType: MERGE,
        timeoutMs: 5_000,
      });
    } catch (error) {
      if (error instanceof KubeError && error.status === 404) continue;
      throw error;
    }
    logger.info(`${String(object.kind)} ${options.name} withdrawn (${webhooks.length} persistent webhooks kept)`);
  }
}
