/** ctx.adopt's decision (ownership.ts): given/want for the owner reference, namespace, name and labels, and the refusals. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AccessKind } from '../../src/runtime/api/access.js';
import { adoptChild, type Owner } from '../../src/runtime/ownership.js';

const parent: Owner = {
  namespaced: true,
  body: {
    apiVersion: 'example.com/v1',
    kind: 'WebApp',
    metadata: { name: 'web', namespace: 'team', uid: 'u1', labels: { app: 'web', tier: 'front' } },
  },
};
const ref = {
  apiVersion: 'example.com/v1',
  kind: 'WebApp',
  name: 'web',
  uid: 'u1',
  controller: true,
  blockOwnerDeletion: true,
};
const deployments: AccessKind = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  kind: 'Deployment',
  scope: 'Namespaced',
};
const namespaces: AccessKind = { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', scope: 'Cluster' };

describe('adoptChild', () => {
  const cases: { name: string; child: Record<string, unknown>; labels?: boolean; want: Record<string, unknown> }[] = [
    {
      name: 'no name, no namespace: the owner’s; labels: false, none of its labels',
      child: { spec: { replicas: 1 } },
      labels: false,
      want: { spec: { replicas: 1 }, metadata: { name: 'web', namespace: 'team', ownerReferences: [ref] } },
    },
    {
      name: 'by default the owner’s labels, as kopf.adopt labels (a literal port keeps them)',
      child: { spec: { replicas: 1 } },
      want: {
        spec: { replicas: 1 },
        metadata: { labels: { app: 'web', tier: 'front' }, name: 'web', namespace: 'team', ownerReferences: [ref] },
      },
    },
    {
      name: 'a name of its own is kept; other owners kept, this owner’s reference replaced',
      child: {
        metadata: {
          name: 'web-db',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u9' },
            { apiVersion: 'example.com/v1', kind: 'WebApp', name: 'web', uid: 'u1' },
          ],
        },
      },
      labels: false,
      want: {
        metadata: {
          name: 'web-db',
          namespace: 'team',
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u9' }, ref],
        },
      },
    },
    {
      name: 'a generateName of its own is kept and no name set (kopf’s harmonize_naming: the API server names it)',
      child: { metadata: { generateName: 'web-pod-' } },
      labels: false,
      want: { metadata: { generateName: 'web-pod-', namespace: 'team', ownerReferences: [ref] } },
    },
    {
      name: 'labels: the owner’s under the child’s own',
      child: { metadata: { labels: { tier: 'back' } } },
      labels: true,
      want: {
        metadata: { labels: { app: 'web', tier: 'back' }, name: 'web', namespace: 'team', ownerReferences: [ref] },
      },
    },
  ];
  for (const { name, child, labels, want } of cases) {
    it(name, () => {
      const before = structuredClone(child);
      assert.deepEqual(adoptChild(parent, deployments, child, { labels }), want);
      assert.deepEqual(child, before, 'the child given is not changed');
    });
  }

  it('refuses a cluster-scoped child, another namespace, another controller', () => {
    assert.throws(
      () => adoptChild(parent, namespaces, {}),
      /the cluster-scoped Namespace \(unnamed\) cannot be owned by the namespaced WebApp team\/web/,
    );
    assert.throws(
      () => adoptChild(parent, deployments, { metadata: { namespace: 'other' } }),
      /in namespace other cannot be owned/,
    );
    const controlled = {
      metadata: {
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: 'u7', controller: true }],
      },
    };
    assert.throws(() => adoptChild(parent, deployments, controlled), /already controlled by ReplicaSet r/);
  });

  it('a cluster-scoped owner may own a namespaced child in any namespace', () => {
    const cluster: Owner = {
      namespaced: false,
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', uid: 'n1' } },
    };
    const adopted = adoptChild(cluster, deployments, { metadata: { namespace: 'team' } });
    assert.equal(adopted.metadata?.namespace, 'team');
    assert.equal(adopted.metadata?.ownerReferences?.[0]?.uid, 'n1');
  });
});
