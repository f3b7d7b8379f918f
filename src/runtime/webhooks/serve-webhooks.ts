/**
 * The webhooks of one operator process: the certificate source (files, or self-signed with the CA in
 * a Secret), the HTTPS server, and what the API server must be told (publish.ts). Called by the
 * operator before leader election, so every replica serves.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../api/context.js';
import type { Registry } from '../api/registry.js';
import type { Memo } from '../api/memo.js';
import { messageOf } from '../error-message.js';
import type { JsonSchema } from '../admission/schema-data.js';
import { isPlainObject } from '../json.js';
import { KubeError, type KubeClient } from '../kube/client.js';
import { fileCertificates, selfSignedCertificates, type CertificateSource } from './certificates.js';
import { conversionPath, webhookPath, type WebhookEndpoint } from './configurations.js';
import { publishWebhooks, withdrawWebhooks } from './publish.js';
import { startWebhookServer, type WebhookServer } from './webhook-server.js';

export interface WebhookOptions {
  /** The HTTPS port (controller-runtime's default is 9443); 0 picks a free one (read it from `operator.webhooks`). */
  port: number;
  /** Default all interfaces. */
  host?: string;
  /**
   * `{ dir }`: `tls.crt`/`tls.key` (and `ca.crt`) from a directory, re-read every `reloadSeconds`
   * (default 10), the last pair that loaded kept in `keptDir` (default a directory of the temporary
   * directory, which a pod's emptyDir keeps across container restarts) to serve when the files stop
   * loading. `{ selfSigned: true }`: a CA kept in the Secret `<name>-webhook-ca` of the
   * operator's namespace (made once, shared by replicas), or in memory with `inMemory` (no cluster writes).
   */
  certificates: { dir: string; reloadSeconds?: number; keptDir?: string } | { selfSigned: true; inMemory?: boolean };
  /**
   * Where the API server reaches this server: a Service, or a URL (a local API server in development).
   * Needed to write the self-signed `caBundle` into the configurations and a CRD's `spec.conversion`.
   */
  endpoint?: WebhookEndpoint;
  /** The webhook configurations' name, and the prefix of the CA Secret (default: `kopfgen-` and a hash of the registrations). */
  name?: string;
  /**
   * On a clean stop, withdraw the webhooks from the configurations this operator wrote (self-signed
   * mode), keeping only the `persistent` ones, before the server closes (kopf's behaviour on exit).
   * Off by default: every replica serves the same configurations, so one replica's stop (a rolling
   * update's old pod, after the new one published) would withdraw the checks the others still serve.
   */
  cleanup?: boolean;
  /**
   * PEM CA certificate(s) to verify callers' client certificates with (`--webhook-client-ca <file>`): the
   * server then asks callers for one, and admission callbacks get the verified one as `ctx.sslpeer` (kopf's
   * `WebhookServer(cafile=…)`). A caller without one is still served; one that does not verify gets a 401.
   */
  clientCa?: string;
}

/** Replicas of one operator share the name; another operator's registrations give another. */
export function defaultWebhookName(registry: Registry): string {
  const parts = [...registry.webhooks.map(webhookPath), ...[...registry.conversions.keys()].map(conversionPath)].sort();
  return `kopfgen-${createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 12)}`;
}

/** The names a serving certificate must carry for `endpoint` (a Service's DNS names, a URL's host). */
export function endpointHosts(endpoint: WebhookEndpoint | undefined): string[] {
  if (!endpoint) return ['localhost', '127.0.0.1'];
  if ('url' in endpoint) return [new URL(endpoint.url).hostname.replace(/^\[|\]$/g, ''), 'localhost', '127.0.0.1'];
  const { name, namespace } = endpoint.service;
  return [`${name}.${namespace}.svc`, `${name}.${namespace}.svc.cluster.local`, `${name}.${namespace}`, name];
}

export interface WebhookContext {
  client: KubeClient;
  registry: Registry;
  logger: Logger;
  /** The operator's own namespace (where the CA Secret lives). */
  namespace: string;
  /** The operator's memo, given to the admission callbacks. */
  memo?: Memo;
}

/**
 * The structural schema of every version of the CRDs the registrations name, read from the cluster
 * (what the API server validates with, so the check before a typed callback is the cluster's own).
 * A CRD that cannot be read (a built-in kind, no `get` on CRDs) is logged once and left unchecked.
 */
async function clusterSchemas(
  client: KubeClient,
  registry: Registry,
  logger: Logger,
): Promise<Map<string, Record<string, JsonSchema>>> {
  const crds = new Set([
    ...registry.webhooks.filter((w) => w.kind === 'mutate').map((w) => `${w.resource.plural}.${w.resource.group}`),
    ...registry.conversions.keys(),
  ]);
  const schemas = new Map<string, Record<string, JsonSchema>>();
  for (const crd of crds) {
    if (!crd.includes('.') || crd.endsWith('.')) continue; // a core-group kind has no CRD
    try {
      const answer = await client.request<unknown>(
        'GET',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`,
        {
          timeoutMs: 10_000,
        },
      );
      const versions: unknown = Reflect.get(Object(Reflect.get(Object(answer), 'spec')), 'versions');
      const byVersion: Record<string, JsonSchema> = {};
      for (const version of Array.isArray(versions) ? versions : []) {
        const name: unknown = Reflect.get(Object(version), 'name');
        const schema: unknown = Reflect.get(Object(Reflect.get(Object(version), 'schema')), 'openAPIV3Schema');
        if (typeof name === 'string' && isPlainObject(schema)) byVersion[name] = schema;
      }
      schemas.set(crd, byVersion);
    } catch (error) {
      if (!(error instanceof KubeError)) throw error;
      logger.warn(
        `webhooks: the CRD ${crd} cannot be read (${messageOf(error)}): objects reach its typed callbacks unchecked`,
      );
    }
  }
  return schemas;
}

export async function serveWebhooks(options: WebhookOptions, context: WebhookContext): Promise<WebhookServer> {
  const { client, registry, logger } = context;
  const name = options.name ?? defaultWebhookName(registry);
  const certs = options.certificates;
  let source: CertificateSource;
  if ('dir' in certs) {
    source = await fileCertificates({
      dir: certs.dir,
      reloadMs: (certs.reloadSeconds ?? 10) * 1000,
      lastGoodDir: certs.keptDir,
      fallbackHosts: endpointHosts(options.endpoint),
      logger,
    });
  } else {
    source = await selfSignedCertificates({
      hosts: endpointHosts(options.endpoint),
      secret: certs.inMemory ? undefined : { client, namespace: context.namespace, name: `${name}-webhook-ca` },
      logger,
    });
  }
  const schemas = await clusterSchemas(client, registry, logger);
  const server = await startWebhookServer({
    schemas,
    port: options.port,
    host: options.host,
    registry,
    certificates: source,
    logger,
    clientCa: options.clientCa,
    memo: context.memo,
  });
  const endpoint = options.endpoint;
  const writes = endpoint !== undefined && !('dir' in certs) && registry.webhooks.length > 0;
  if (options.cleanup && !writes && registry.webhooks.length > 0)
    logger.warn(
      'webhooks: --webhook-cleanup applies to the configurations the operator writes (self-signed, with ' +
        "--webhook-service or --webhook-url); these are the manifests' and stay as they are on stop",
    );
  if (endpoint === undefined) {
    if (!('dir' in certs) && (registry.webhooks.length > 0 || registry.conversions.size > 0))
      logger.warn(
        'webhooks: no endpoint (--webhook-service or --webhook-url) to write the self-signed caBundle for; ' +
          'the API server must be configured to trust this server some other way',
      );
    return server;
  }
  const publish = () =>
    publishWebhooks({
      client,
      registry,
      name,
      endpoint,
      ca: source.current().ca,
      configurations: !('dir' in certs),
      logger,
    });
  try {
    await publish();
  } catch (error) {
    await server.close();
    throw new Error(`cannot tell the API server about the webhooks: ${messageOf(error)}`, { cause: error });
  }
  // A rotated CA (cert-manager's `ca.crt`) must reach the CRDs' conversion too.
  source.onChange(() => void publish().catch((error: unknown) => logger.error(`webhooks: ${messageOf(error)}`)));
  if (!options.cleanup || !writes) return server;
  return {
    port: server.port,
    url: server.url,
    problems: (now) => server.problems(now),
    failedRotations: () => server.failedRotations(),
    // Withdrawn while the server still answers, so no request meets a configuration that calls nobody
    // in between; a refusal is logged and the stop goes on (the configuration then stays as written).
    close: async () => {
      try {
        await withdrawWebhooks({ client, registry, name, endpoint, ca: source.current().ca, logger });
      } catch (error) {
        logger.error(`webhooks: cannot withdraw the webhook configurations ${name}: ${messageOf(error)}`);
      }
      await server.close();
    },
  };
}
