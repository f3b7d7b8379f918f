/**
 * The operator's Deployment and (cluster-wide installs) its Namespace, shaped like kubebuilder's
 * `config/manager`: `target.replicas` pods (default 2: one leads and one stands by, or with `--shards`
 * they share the hash ranges; manifest-target.ts `DEFAULT_REPLICAS`), probes on the
 * runtime's `/healthz` and `/readyz`, and the Pod Security Standards' "restricted" profile
 * (non-root, no privilege escalation, all capabilities dropped, RuntimeDefault seccomp), plus a
 * read-only root file system with an emptyDir at /tmp, the one place Node.js may write.
 */
import type { KubeObject } from './rbac-manifest.js';
import type { ManifestTarget } from './manifest-target.js';
import { webhookMemoryMiB } from '../runtime/webhooks/request-budget.js';
import { CERT_DIR, tlsSecretName, webhookArgs } from './webhook-manifest.js';

/**
 * The operator's own memory limit (watches, store, queue: `npm run bench` measures about 100 MB with
 * 10,000 objects listed); an operator serving webhooks gets their bounded worst case on top
 * (`webhookMemoryMiB`, from the webhook server's in-flight budget), so no request mix is an OOM kill.
 */
const OPERATOR_MEMORY_MIB = 512;

/** The `node` user of the official node images; numeric, so the kubelet can check runAsNonRoot. */
const NODE_UID = 1000;

export function namespaceObject(target: ManifestTarget): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: target.operatorNamespace, labels: target.labels } };
}

/** `kopfgen run <module>` with the flags that make it watch what the RBAC grants (and serve its webhooks). */
export function runArgs(target: ManifestTarget, webhooks = false): string[] {
  const namespace = target.watchNamespace === undefined ? [] : ['--namespace', target.watchNamespace];
  // The Lease is named after the operator, not the default hash of its handler set: a rolling
  // update that adds a handler must hand the lease over between old and new pods, not start a
  // second leader on a second Lease while the old pods still run.
  return [
    'run',
    target.module,
    ...namespace,
    '--leader-election-id',
    target.name,
    // The shard Leases are named after the leader-election id too (`<id>-r<NN>`, `<id>-m-…`), so every
    // pod of every revision shares the same ranges through a rolling update.
    ...(target.shards === undefined ? [] : ['--shards', String(target.shards)]),
    ...(webhooks ? webhookArgs(target) : []),
  ];
}

function fieldEnv(name: string, fieldPath: string): KubeObject {
  return { name, valueFrom: { fieldRef: { fieldPath } } };
}

function probe(path: string, initialDelaySeconds: number, periodSeconds: number): KubeObject {
  return {
    httpGet: { path, port: 'health' },
    initialDelaySeconds,
    periodSeconds,
    timeoutSeconds: 5,
    failureThreshold: 3,
  };
}

/** The labels the Deployment selects its pods by (and the disruption budget counts them by). */
export function podSelector(target: ManifestTarget): Record<string, string> {
  return { 'app.kubernetes.io/name': target.name };
}

/** `webhooks`: the module registers admission callbacks or conversions (a port, and with cert-manager its Secret). */
export function deploymentObject(target: ManifestTarget, webhooks = false): KubeObject {
  const selector = podSelector(target);
  const certVolume = webhooks && target.webhooks.certs === 'cert-manager';
  const ports = [
    { name: 'health', containerPort: target.healthPort, protocol: 'TCP' },
    ...(webhooks ? [{ name: 'webhook', containerPort: target.webhooks.port, protocol: 'TCP' }] : []),
  ];
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: target.name, namespace: target.operatorNamespace, labels: target.labels },
    spec: {
      replicas: target.replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: target.labels },
        spec: {
          serviceAccountName: target.name,
          // Running handlers finish and their patches are written after SIGTERM; give them time.
          terminationGracePeriodSeconds: 30,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: NODE_UID,
            runAsGroup: NODE_UID,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: 'operator',
              image: target.image,
              command: ['kopfgen'],
              args: runArgs(target, webhooks),
              env: [fieldEnv('POD_NAME', 'metadata.name'), fieldEnv('POD_NAMESPACE', 'metadata.namespace')],
              ports,
              livenessProbe: probe('/healthz', 15, 20),
              readinessProbe: probe('/readyz', 5, 10),
              resources: {
                requests: { cpu: '50m', memory: '64Mi' },
                limits: { cpu: '500m', memory: `${OPERATOR_MEMORY_MIB + (webhooks ? webhookMemoryMiB() : 0)}Mi` },
              },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                capabilities: { drop: ['ALL'] },
              },
              volumeMounts: [
                { name: 'tmp', mountPath: '/tmp' },
                ...(certVolume ? [{ name: 'webhook-certs', mountPath: CERT_DIR, readOnly: true }] : []),
              ],
            },
          ],
          volumes: [
            { name: 'tmp', emptyDir: {} },
            ...(certVolume ? [{ name: 'webhook-certs', secret: { secretName: tlsSecretName(target) } }] : []),
          ],
        },
      },
    },
  };
}
