/**
 * What the API server needs to call the operator: the webhook configurations
 * (admissionregistration.k8s.io/v1 Validating/MutatingWebhookConfiguration) built from the
 * registrations, the paths the server answers on, and a CRD's `spec.conversion`. Pure; `kopfgen
 * manifests` writes the same objects the operator applies in self-signed mode, so the two agree
 * (kopf's `build_webhooks`, kubebuilder's `config/webhook`).
 */
import { ABSENT, PRESENT } from '../api/filters.js';
import type { RegisteredWebhook } from '../api/registry.js';

/** Where the API server reaches the webhook server: a Service in the cluster, or a URL (a local API server). */
export type WebhookEndpoint = { service: { name: string; namespace: string; port?: number } } | { url: string };

/** The defaults of a registration (admissionregistration.k8s.io/v1's own, but the operations). */
export const DEFAULT_OPERATIONS = ['CREATE', 'UPDATE'] as const;
export const DEFAULT_TIMEOUT_SECONDS = 10;

/**
 * A handler id (or subresource) as a path segment and a name piece: a Service path's every segment
 * must be an RFC 1123 subdomain (admissionregistration's `ValidateWebhookService`), a URL's need not,
 * but both modes use this, so what a local API server accepts a cluster accepts too
 * (`create_fn` → `create-fn`, `Create` → `create`). The generator's `webhookSegment` is the same.
 */
export function webhookSegment(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9.-]+/g, '-')
      .replace(/[-.]*\.[-.]*/g, '.')
      .replace(/^[-.]+|[-.]+$/g, '') || 'handler'
  );
}

/** `/validate/<group or core>/<version>/<plural>[/<subresource>]/<id segment>`: one path per registration. */
export function webhookPath(w: Pick<RegisteredWebhook, 'resource' | 'id' | 'kind' | 'options'>): string {
  const { group, version, plural } = w.resource;
  const sub = w.options.subresource ? `/${webhookSegment(w.options.subresource)}` : '';
  return `/${w.kind}/${group || 'core'}/${version}/${plural}${sub}/${webhookSegment(w.id)}`;
}

/**
 * Each registration by its path; two whose ids share a segment (`create_fn`, `create-fn`) are refused
 * with both named, in every mode (the generator warns of such ids, KG212).
 */
export function webhooksByPath(webhooks: readonly RegisteredWebhook[]): Map<string, RegisteredWebhook> {
  const out = new Map<string, RegisteredWebhook>();
  for (const w of webhooks) {
    const path = webhookPath(w);
    const other = out.get(path);
    if (other)
      throw new Error(
        `${w.kind} handlers ${other.id} and ${w.id} of ${w.resource.plural}.${w.resource.group} ${w.resource.version} would share the webhook path ${path}: rename one`,
      );
    out.set(path, w);
  }
  return out;
}

/** `/convert/<plural>.<group>`: one path per CRD. */
export function conversionPath(crd: string): string {
  return `/convert/${crd}`;
}

/** A webhook's name: unique in its configuration and fully qualified, as the API requires. */
export function webhookName(w: Pick<RegisteredWebhook, 'resource' | 'id' | 'kind' | 'options'>): string {
  const sub = w.options.subresource ? `-${webhookSegment(w.options.subresource)}` : '';
  return `${webhookSegment(w.id)}.${w.kind}${sub}.${w.resource.plural}.${w.resource.group || 'core'}`;
}

export interface ClientConfig {
  url?: string;
  service?: { name: string; namespace: string; path: string; port: number };
  caBundle?: string;
}

export function clientConfig(endpoint: WebhookEndpoint, path: string, caBundle?: string): ClientConfig {
  const ca = caBundle === undefined ? {} : { caBundle };
  if ('url' in endpoint) return { url: `${endpoint.url.replace(/\/+$/, '')}${path}`, ...ca };
  const { name, namespace, port = 443 } = endpoint.service;
  return { service: { name, namespace, path, port }, ...ca };
}

/**
 * The label filters a selector can say (equal, PRESENT, ABSENT) as the webhook's `objectSelector`, so
 * the API server does not even call for objects they exclude (kopf's `_build_labels_selector`); a
 * predicate stays with the runtime, which checks every filter again.
 */
function objectSelector(labels: RegisteredWebhook['options']['labels']): Record<string, unknown> | undefined {
  const expressions = Object.entries(labels ?? {}).flatMap(([key, want]) => {
    if (want === PRESENT) return [{ key, operator: 'Exists' }];
    if (want === ABSENT) return [{ key, operator: 'DoesNotExist' }];
    if (typeof want === 'string') return [{ key, operator: 'In', values: [want] }];
    return [];
  });
  return expressions.length > 0 ? { matchExpressions: expressions } : undefined;
}

/** One entry of a configuration's `webhooks`. */
export function webhookEntry(
  w: RegisteredWebhook,
  endpoint: WebhookEndpoint,
  caBundle?: string,
): Record<string, unknown> {
  const { group, version, plural, scope } = w.resource;
  const o = w.options;
  const selector = objectSelector(o.labels);
  return {
    name: webhookName(w),
    admissionReviewVersions: ['v1'],
    clientConfig: clientConfig(endpoint, webhookPath(w), caBundle),
    failurePolicy: o.failurePolicy ?? 'Fail',
    // The API server converts the object to the registered version before calling, so it is typed.
    matchPolicy: 'Equivalent',
    ...(selector ? { objectSelector: selector } : {}),
    rules: [
      {
        apiGroups: [group],
        apiVersions: [version],
        operations: [...(o.operations ?? DEFAULT_OPERATIONS)],
        resources: [o.subresource ? `${plural}/${o.subresource}` : plural],
        scope,
      },
    ],
    sideEffects: o.sideEffects ?? 'None',
    timeoutSeconds: o.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
  };
}

export const CONFIGURATION_KINDS = {
  validate: 'ValidatingWebhookConfiguration',
  mutate: 'MutatingWebhookConfiguration',
} as const;

/** The configurations' plural resource names (for RBAC and requests). */
export const CONFIGURATION_RESOURCES = {
  validate: 'validatingwebhookconfigurations',
  mutate: 'mutatingwebhookconfigurations',
} as const;

export interface ConfigurationOptions {
  caBundle?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /**
   * The configurations as a clean stop leaves them (`--webhook-cleanup`): every kind that has
   * registrations keeps its object, holding only the `persistent` webhooks, possibly none (kopf's
   * `build_webhooks(…, persistent_only=True)` on exit; the object stays, so the next start patches it).
   */
  persistentOnly?: boolean;
}

/**
 * One configuration per kind that has registrations, named `name`, its webhooks sorted by name so
 * registration order never changes the object. `annotations` (e.g. cert-manager's `inject-ca-from`).
 */
export function webhookConfigurations(
  webhooks: readonly RegisteredWebhook[],
  name: string,
  endpoint: WebhookEndpoint,
  options: ConfigurationOptions = {},
): Record<string, unknown>[] {
  webhooksByPath(webhooks);
  const out: Record<string, unknown>[] = [];
  for (const kind of ['validate', 'mutate'] as const) {
    const registered = webhooks.filter((w) => w.kind === kind);
    if (registered.length === 0) continue;
    const entries = registered
      .filter((w) => !options.persistentOnly || w.options.persistent === true)
      .map((w) => webhookEntry(w, endpoint, options.caBundle))
      .sort((a, b) => (String(a.name) < String(b.name) ? -1 : 1));
    const metadata: Record<string, unknown> = { name };
    if (options.labels) metadata.labels = options.labels;
    if (options.annotations) metadata.annotations = options.annotations;
    out.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: CONFIGURATION_KINDS[kind],
      metadata,
      webhooks: entries,
    });
  }
  return out;
}

/** A CRD's `spec.conversion` pointing at `/convert/<crd>` (apiextensions.k8s.io/v1 CustomResourceConversion). */
export function crdConversion(crd: string, endpoint: WebhookEndpoint, caBundle?: string): Record<string, unknown> {
  return {
    strategy: 'Webhook',
    webhook: { clientConfig: clientConfig(endpoint, conversionPath(crd), caBundle), conversionReviewVersions: ['v1'] },
  };
}
