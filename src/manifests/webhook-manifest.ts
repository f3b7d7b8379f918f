/**
 * The objects an operator with admission callbacks or conversions needs besides its RBAC and
 * Deployment (kubebuilder's `config/webhook` and `config/certmanager`):
 *
 * - the Service the API server calls (port 443 → the pods' `webhook` port), unless the
 *   configurations point at a URL (development against a local API server);
 * - the Validating/MutatingWebhookConfiguration built from the registrations by the same code the
 *   runtime uses (runtime/webhooks/configurations.ts);
 * - certificates: with cert-manager (the default), a self-signed Issuer and a Certificate whose Secret
 *   the Deployment mounts, and `cert-manager.io/inject-ca-from` on the configurations so cert-manager's
 *   cainjector writes their `caBundle`; self-signed, nothing: the operator makes its CA (kept in a
 *   Secret) and writes the `caBundle` itself, for which the RBAC below grants what it needs.
 *
 * A converted CRD's `spec.conversion` is written by the operator at startup in both modes (the CA is
 * read at run time; a partial CRD cannot be applied with `kubectl apply`): the RBAC grants `patch` on
 * that CRD by name.
 */
import type { RegisteredWebhook } from '../runtime/api/registry.js';
import {
  CONFIGURATION_RESOURCES,
  webhookConfigurations,
  type WebhookEndpoint,
} from '../runtime/webhooks/configurations.js';
import type { ManifestTarget } from './manifest-target.js';
import type { KubeObject, PolicyRule } from './rbac-manifest.js';

/** What the module registered that the API server calls. */
export interface WebhookSet {
  webhooks: readonly RegisteredWebhook[];
  /** CRD names (`<plural>.<group>`) whose conversion functions are registered. */
  conversions: readonly string[];
}

export const CERT_DIR = '/etc/kopfgen/webhook-certs';

export const hasWebhooks = (set: WebhookSet | undefined): set is WebhookSet =>
  set !== undefined && (set.webhooks.length > 0 || set.conversions.length > 0);

export const serviceName = (target: ManifestTarget) => `${target.name}-webhook`;
const certificateName = (target: ManifestTarget) => `${target.name}-webhook`;
export const tlsSecretName = (target: ManifestTarget) => `${target.name}-webhook-tls`;
export const caSecretName = (target: ManifestTarget) => `${target.name}-webhook-ca`;

export function webhookEndpoint(target: ManifestTarget): WebhookEndpoint {
  if (target.webhooks.url) return { url: target.webhooks.url };
  return { service: { name: serviceName(target), namespace: target.operatorNamespace } };
}

/** The operator's flags that match these manifests (appended to `kopfgen run`'s arguments). */
export function webhookArgs(target: ManifestTarget): string[] {
  const w = target.webhooks;
  const endpoint = w.url ? ['--webhook-url', w.url] : ['--webhook-service', serviceName(target)];
  const certs = w.certs === 'cert-manager' ? ['--webhook-cert-dir', CERT_DIR] : [];
  return ['--webhook-port', String(w.port), ...endpoint, ...certs, '--webhook-name', target.name];
}

function meta(name: string, target: ManifestTarget, namespace?: string, annotations?: Record<string, string>) {
  return {
    name,
    ...(namespace === undefined ? {} : { namespace }),
    labels: target.labels,
    ...(annotations ? { annotations } : {}),
  };
}

export function webhookObjects(set: WebhookSet, target: ManifestTarget): KubeObject[] {
  const out: KubeObject[] = [];
  const ns = target.operatorNamespace;
  const certManager = target.webhooks.certs === 'cert-manager';
  if (!target.webhooks.url) {
    out.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(serviceName(target), target, ns),
      spec: {
        selector: { 'app.kubernetes.io/name': target.name },
        ports: [{ name: 'webhook', port: 443, targetPort: 'webhook', protocol: 'TCP' }],
      },
    });
  }
  if (certManager) {
    const issuer = `${target.name}-selfsigned`;
    out.push({
      apiVersion: 'cert-manager.io/v1',
      kind: 'Issuer',
      metadata: meta(issuer, target, ns),
      spec: { selfSigned: {} },
    });
    const service = serviceName(target);
    out.push({
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: meta(certificateName(target), target, ns),
      spec: {
        secretName: tlsSecretName(target),
        dnsNames: [`${service}.${ns}.svc`, `${service}.${ns}.svc.cluster.local`],
        issuerRef: { kind: 'Issuer', name: issuer },
      },
    });
  }
  const annotations = certManager
    ? { 'cert-manager.io/inject-ca-from': `${ns}/${certificateName(target)}` }
    : undefined;
  out.push(
    ...webhookConfigurations(set.webhooks, target.name, webhookEndpoint(target), {
      labels: target.labels,
      annotations,
    }),
  );
  return out;
}

/**
 * What the operator itself writes: each converted CRD's `spec.conversion` (by name), and in the
 * self-signed mode the CA Secret (create; then get and update by name) and the configurations' `caBundle`
 * (get and patch by name; they exist, these manifests create them).
 */
export function webhookRules(
  set: WebhookSet,
  target: ManifestTarget,
): { cluster: PolicyRule[]; namespaced: PolicyRule[] } {
  const cluster: PolicyRule[] = [];
  const namespaced: PolicyRule[] = [];
  if (set.conversions.length > 0)
    cluster.push({
      apiGroups: ['apiextensions.k8s.io'],
      resources: ['customresourcedefinitions'],
      resourceNames: [...set.conversions].sort(),
      verbs: ['get', 'patch'],
    });
  if (target.webhooks.certs === 'self-signed') {
    const kinds = (['validate', 'mutate'] as const).filter((k) => set.webhooks.some((w) => w.kind === k));
    if (kinds.length > 0)
      cluster.push({
        apiGroups: ['admissionregistration.k8s.io'],
        resources: kinds.map((k) => CONFIGURATION_RESOURCES[k]),
        resourceNames: [target.name],
        verbs: ['get', 'patch'],
      });
    // `create` cannot be limited to a name (the name is in the body): the CA Secret is created once.
    namespaced.push({ apiGroups: [''], resources: ['secrets'], verbs: ['create'] });
    namespaced.push({
      apiGroups: [''],
      resources: ['secrets'],
      resourceNames: [caSecretName(target)],
      verbs: ['get', 'update'],
    });
  }
  return { cluster, namespaced };
}
