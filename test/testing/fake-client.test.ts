/**
 * `fakeClient`: the in-memory Client — resourceVersions, AlreadyExists/NotFound/Conflict, label and
 * field selectors, the status subresource, finalizers, the garbage collector's cascade, server-side
 * apply's removal of fields no longer applied, and schema validation of custom resources.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, type ResourceRef } from '../../src/runtime/api/client-api.js';
import type { KubernetesObject } from '../../src/runtime/api/kube-types.js';
import { fakeClient, labelMatcher } from '../../src/testing/index.js';
import { gizmoData, gizmoDescriptor } from '../helpers/gizmos.js';

const configMaps: ResourceRef = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };
interface Gizmo extends KubernetesObject {
  spec?: { size?: number };
  status?: { phase?: string };
}
const gizmos = gizmoDescriptor<Gizmo>(true);
const data = gizmoData({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: { size: { type: 'integer', minimum: 1 }, mode: { type: 'string', default: 'a' } },
    },
    status: { type: 'object', properties: { phase: { type: 'string' } } },
  },
});
const cm = (name: string, labels: Record<string, string> = {}, extra: Partial<KubernetesObject> = {}) => ({
  metadata: { name, namespace: 'ns', labels },
  ...extra,
});
const refusal = (status: number, reason: string) => (e: unknown) =>
  e instanceof ApiError && e.status === status && e.reason === reason;

test('create, get, AlreadyExists, resourceVersions grow', async () => {
  const client = fakeClient();
  const a = await client.create(configMaps, cm('a'));
  const b = await client.create(configMaps, cm('b'));
  assert.equal(a.apiVersion, 'v1');
  assert.ok(Number(b.metadata?.resourceVersion) > Number(a.metadata?.resourceVersion));
  assert.ok(a.metadata?.uid);
  assert.deepEqual(await client.get(configMaps, 'a', { namespace: 'ns' }), a);
  assert.equal(await client.get(configMaps, 'zz', { namespace: 'ns' }), undefined);
  await assert.rejects(client.create(configMaps, cm('a')), refusal(409, 'AlreadyExists'));
  assert.deepEqual(client.requests.at(-1), {
    verb: 'create',
    resource: 'configmaps',
    namespace: 'ns',
    name: 'a',
    refused: 409,
  });
});

test('list with label and field selectors', async () => {
  const client = fakeClient()
    .seed(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', ...cm('a', { app: 'web', tier: 'x' }) })
    .seed(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', ...cm('b', { app: 'db' }) });
  const names = async (options: Parameters<typeof client.list>[1]) =>
    (await client.list(configMaps, options)).map((o) => o.metadata?.name);
  assert.deepEqual(await names({ labelSelector: { app: 'web' } }), ['a']);
  assert.deepEqual(await names({ labelSelector: 'app in (web,db),!tier' }), ['b']);
  assert.deepEqual(await names({ labelSelector: 'app!=web' }), ['b']);
  assert.deepEqual(await names({ fieldSelector: 'metadata.name=b' }), ['b']);
  assert.deepEqual(await names({ namespace: 'other' }), []);
  assert.equal(labelMatcher('tier')({ tier: '' }), true);
});

test('patch: merge, resourceVersion precondition, status subresource', async () => {
  const client = fakeClient({ schemas: [data] });
  const g = await client.create(gizmos, {
    metadata: { name: 'g', namespace: 'ns' },
    spec: { size: 1 },
    status: { phase: 'ignored' },
  });
  assert.equal(g.status, undefined, 'a create ignores status where the resource has a status subresource');
  assert.deepEqual(g.spec, { size: 1, mode: 'a' });
  const p = await client.patch(gizmos, 'g', { spec: { size: 2 }, status: { phase: 'x' } }, { namespace: 'ns' });
  assert.deepEqual([p.spec?.size, p.status, p.metadata?.generation], [2, undefined, 2]);
  const s = await client.patch(gizmos, 'g', { status: { phase: 'Ready' } }, { namespace: 'ns', subresource: 'status' });
  assert.deepEqual([s.status, s.metadata?.generation], [{ phase: 'Ready' }, 2]);
  await assert.rejects(
    client.patch(gizmos, 'g', { spec: { size: 3 } }, { namespace: 'ns', resourceVersion: g.metadata?.resourceVersion }),
    refusal(409, 'Conflict'),
  );
  await assert.rejects(
    client.patch(gizmos, 'nope', { spec: { size: 3 } }, { namespace: 'ns' }),
    refusal(404, 'NotFound'),
  );
});

test('the schema: an object the server would refuse is a 422 Invalid, nothing stored', async () => {
  const client = fakeClient({ schemas: [data] });
  await assert.rejects(
    client.create(gizmos, { metadata: { name: 'g', namespace: 'ns' }, spec: { size: 0 } }),
    refusal(422, 'Invalid'),
  );
  await assert.rejects(
    client.create(gizmos, { metadata: { name: 'g', namespace: 'ns' }, spec: {} as { size: number } }),
    /spec.size: Required value/,
  );
  assert.deepEqual(client.objects(gizmos), []);
});

test('delete: finalizers hold the object back; owners take their dependents along unless Orphan', async () => {
  const client = fakeClient();
  const owner = await client.create(configMaps, cm('owner'));
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: String(owner.metadata?.uid) };
  await client.create(configMaps, { metadata: { name: 'child', namespace: 'ns', ownerReferences: [ref] } });
  assert.deepEqual(
    client.ownedBy(owner).map((o) => o.metadata?.name),
    ['child'],
  );
  await client.create(configMaps, { metadata: { name: 'held', namespace: 'ns', finalizers: ['x/y'] } });
  assert.equal(await client.delete(configMaps, 'held', { namespace: 'ns' }), true);
  const held = await client.get(configMaps, 'held', { namespace: 'ns' });
  assert.ok(held?.metadata?.deletionTimestamp);
  await client.patch(configMaps, 'held', { metadata: { finalizers: null } }, { namespace: 'ns' });
  assert.equal(await client.get(configMaps, 'held', { namespace: 'ns' }), undefined, 'gone once its finalizers are');
  assert.equal(await client.delete(configMaps, 'owner', { namespace: 'ns' }), true);
  assert.deepEqual(client.objects(configMaps), []);
  assert.equal(await client.delete(configMaps, 'owner', { namespace: 'ns' }), false);
});

test('apply: creates, then removes the fields the same manager no longer applies', async () => {
  const client = fakeClient();
  await client.apply(configMaps, { metadata: { name: 'a', namespace: 'ns' }, data: { x: '1', y: '2' } });
  await client.patch(configMaps, 'a', { data: { z: 'theirs' } }, { namespace: 'ns' });
  const after = await client.apply(configMaps, { metadata: { name: 'a', namespace: 'ns' }, data: { x: '1' } });
  assert.deepEqual(after.data, { x: '1', z: 'theirs' });
});

test('built-in kinds: checked against Kubernetes schema (a Deployment without a selector, a label value that is an object)', async () => {
  const client = fakeClient();
  const deployments: ResourceRef = { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' };
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };
  await assert.rejects(
    client.create(deployments, { metadata: { name: 'web', namespace: 'ns' }, spec: { template } }),
    (e: unknown) => e instanceof ApiError && e.status === 422 && /spec\.selector: Required value/.test(e.message),
  );
  await client.create(deployments, {
    metadata: { name: 'web', namespace: 'ns' },
    spec: { selector: { matchLabels: { app: 'web' } }, template },
  });
  const claims: ResourceRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims' };
  await assert.rejects(
    client.create(claims, { metadata: { name: 'data', namespace: 'ns', labels: { tier: { x: 1 } } }, spec: {} }),
    (e: unknown) =>
      e instanceof ApiError && e.status === 422 && /metadata\.labels\.tier: Invalid value: "object"/.test(e.message),
  );
});
