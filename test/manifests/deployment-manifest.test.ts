import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deploymentObject, namespaceObject, runArgs } from '../../src/manifests/deployment-manifest.js';
import { resource, target } from '../helpers/manifest-fixtures.js';

// Deliberately loose: the rendered object is walked as the API server would read it.
type Any = Record<string, any>;
const container = (d: Any): Any => d.spec.template.spec.containers[0];

describe('deploymentObject', () => {
  const cluster = deploymentObject(target([resource()])) as Any;
  const scoped = deploymentObject(
    target([resource()], { namespace: 'team-a', name: 'op', image: 'r/op:1', healthPort: 9090 }),
  ) as Any;

  it('2 replicas of the operator, selected by its name label, under its service account', () => {
    assert.equal(cluster.spec.replicas, 2);
    assert.deepEqual(cluster.spec.selector.matchLabels, { 'app.kubernetes.io/name': 'myresource-operator' });
    assert.equal(cluster.spec.template.metadata.labels['app.kubernetes.io/name'], 'myresource-operator');
    assert.equal(cluster.spec.template.spec.serviceAccountName, 'myresource-operator');
    assert.equal(cluster.metadata.namespace, 'myresource-operator-system');
  });

  it('runs `kopfgen run <module>` on a Lease named after the operator, with --namespace exactly when the RBAC is namespaced', () => {
    const lease = ['--leader-election-id', 'myresource-operator'];
    assert.deepEqual(
      [container(cluster).command, container(cluster).args],
      [['kopfgen'], ['run', 'dist/operator.js', ...lease]],
    );
    assert.deepEqual(container(scoped).args, [
      'run',
      'dist/operator.js',
      '--namespace',
      'team-a',
      '--leader-election-id',
      'op',
    ]);
    assert.deepEqual(runArgs(target([resource()], { namespace: 'x' })), [
      'run',
      'dist/operator.js',
      '--namespace',
      'x',
      ...lease,
    ]);
    assert.equal(container(scoped).image, 'r/op:1');
  });

  it('--replicas sets the pods; --shards K follows the Lease id in the arguments, before the webhook flags', () => {
    const sharded = deploymentObject(target([resource()], { replicas: 3, shards: 32 })) as Any;
    assert.equal(sharded.spec.replicas, 3);
    assert.deepEqual(container(sharded).args, [
      'run',
      'dist/operator.js',
      '--leader-election-id',
      'myresource-operator',
      '--shards',
      '32',
    ]);
    const hooks = runArgs(target([resource()], { shards: 8 }), true);
    assert.deepEqual(hooks.slice(2, 6), ['--leader-election-id', 'myresource-operator', '--shards', '8']);
    assert.equal((deploymentObject(target([resource()], { replicas: 1 })) as Any).spec.replicas, 1);
  });

  it('POD_NAME and POD_NAMESPACE from the downward API (lease identity and namespace)', () => {
    assert.deepEqual(container(cluster).env, [
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    ]);
  });

  it('liveness on /healthz and readiness on /readyz through the named port', () => {
    for (const [d, port] of [
      [cluster, 8080],
      [scoped, 9090],
    ] as const) {
      assert.deepEqual(container(d).ports, [{ name: 'health', containerPort: port, protocol: 'TCP' }]);
      assert.deepEqual(container(d).livenessProbe.httpGet, { path: '/healthz', port: 'health' });
      assert.deepEqual(container(d).readinessProbe.httpGet, { path: '/readyz', port: 'health' });
    }
  });

  it('the restricted Pod Security profile, a read-only root and a writable /tmp', () => {
    assert.deepEqual(cluster.spec.template.spec.securityContext, {
      runAsNonRoot: true,
      runAsUser: 1000,
      runAsGroup: 1000,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    assert.deepEqual(container(cluster).securityContext, {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    });
    assert.deepEqual(container(cluster).volumeMounts, [{ name: 'tmp', mountPath: '/tmp' }]);
    assert.deepEqual(cluster.spec.template.spec.volumes, [{ name: 'tmp', emptyDir: {} }]);
  });

  it('requests and limits', () => {
    assert.deepEqual(container(cluster).resources, {
      requests: { cpu: '50m', memory: '64Mi' },
      limits: { cpu: '500m', memory: '512Mi' },
    });
  });
});

it("namespaceObject: the operator's own namespace, labelled as its", () => {
  assert.deepEqual(namespaceObject(target([resource()])), {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: 'myresource-operator-system',
      labels: {
        'app.kubernetes.io/name': 'myresource-operator',
        'app.kubernetes.io/component': 'operator',
        'app.kubernetes.io/managed-by': 'kopfgen',
      },
    },
  });
});
