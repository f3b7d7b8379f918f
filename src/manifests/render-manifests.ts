/**
 * Resources and a target in, YAML files out: pure, so `kopfgen manifests`, `kopfgen init` and
 * the tests render the same bytes. Files are numbered because `kubectl apply -f deploy/` applies
 * a directory in file-name order and the Namespace must exist before what lives in it.
 */
import { stringify } from 'yaml';
import type { GeneratedFile } from '../api.js';
import type { ResourceDescriptor } from '../runtime/api/define.js';
import { yamlHeaderLine } from '../emit/header.js';
import { deploymentObject, namespaceObject } from './deployment-manifest.js';
import { disruptionBudgetObject } from './disruption-budget.js';
import type { ManifestTarget } from './manifest-target.js';
import { rbacObjects, serviceAccount, type KubeObject, type RbacOptions } from './rbac-manifest.js';
import { hasWebhooks, webhookObjects, type WebhookSet } from './webhook-manifest.js';

export const MANIFEST_FILES = {
  namespace: '00-namespace.yaml',
  serviceAccount: '01-service-account.yaml',
  rbac: '02-rbac.yaml',
  deployment: '03-deployment.yaml',
  webhooks: '04-webhooks.yaml',
  disruptionBudget: '05-disruption-budget.yaml',
} as const;

/** Documents joined by `---`, after the generated-file header; long strings never folded. */
export function yamlDocuments(objects: readonly KubeObject[], source: string): string {
  const docs = objects.map((o) => stringify(o, { lineWidth: 0, indentSeq: true, aliasDuplicateObjects: false }));
  return `${yamlHeaderLine(source, 'kopfgen manifests')}${docs.join('---\n')}`;
}

/**
 * `webhooks`: the module's admission callbacks and conversions, when it registers any.
 * `options.sensitive`: a handled resource has sensitive fields (the digest key Secret is granted).
 */
export function renderManifests(
  resources: readonly ResourceDescriptor[],
  target: ManifestTarget,
  webhooks?: WebhookSet,
  options: RbacOptions = {},
): GeneratedFile[] {
  const serving = hasWebhooks(webhooks);
  const file = (path: string, objects: KubeObject[]): GeneratedFile => ({
    path,
    content: yamlDocuments(objects, target.source),
    role: 'generated',
  });
  const files: GeneratedFile[] = [];
  if (target.createNamespace) files.push(file(MANIFEST_FILES.namespace, [namespaceObject(target)]));
  files.push(file(MANIFEST_FILES.serviceAccount, [serviceAccount(target)]));
  files.push(file(MANIFEST_FILES.rbac, rbacObjects(resources, target, webhooks, options)));
  files.push(file(MANIFEST_FILES.deployment, [deploymentObject(target, serving)]));
  if (serving) files.push(file(MANIFEST_FILES.webhooks, webhookObjects(webhooks, target)));
  const budget = disruptionBudgetObject(target);
  if (budget !== undefined) files.push(file(MANIFEST_FILES.disruptionBudget, [budget]));
  return files;
}
