/**
 * The WebApp's handlers, tested without a cluster (`npm test` runs this file): `invoke` runs them
 * as one reconcile (or, for the child handler, one child run) of the operator would, with an in-memory
 * `fakeClient` as `ctx.client`, and the test reads what the handler applied there. Against a real API server (children re-created, readiness
 * mirrored, the RBAC): test/e2e/webapp.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expectOutcome, fakeClient, invoke } from 'kopfgen/testing';
import { builtins } from 'kopfgen/runtime/builtins';
import { WebAppDeploy } from '../generated/index.js';
import { buildWebApp as webApp } from '../generated/example.com/webapps.schemas.js';
import '../handlers/webapps.js';

const app = () =>
  webApp({ metadata: { name: 'web', namespace: 'team', uid: 'u-web' }, spec: { image: 'nginx:1.27', replicas: 2 } });

test('create: a Deployment, a Service and a ConfigMap, each owned by the WebApp and named after it', async () => {
  const client = fakeClient();
  const result = await invoke(WebAppDeploy, 'create', app(), { client });
  expectOutcome(result, { kind: 'success', status: { phase: 'Deploying', message: null } });
  const owned = client.ownedBy(result.object);
  assert.deepEqual(owned.map((o) => `${o.kind} ${o.metadata?.namespace}/${o.metadata?.name}`).sort(), [
    'ConfigMap team/web',
    'Deployment team/web',
    'Service team/web',
  ]);
  for (const child of owned) {
    assert.deepEqual(child.metadata?.ownerReferences, [
      { apiVersion: 'example.com/v1', kind: 'WebApp', name: 'web', uid: 'u-web', controller: true, blockOwnerDeletion: true },
    ]);
  }
  const [deployment] = client.objects(builtins.deployments, 'team');
  assert.equal(deployment?.spec?.replicas, 2);
  assert.equal(deployment?.spec?.template.spec?.containers[0]?.image, 'nginx:1.27');
  assert.deepEqual(client.objects(builtins.configMaps, 'team')[0]?.data, { greeting: 'hello' });
});

test('update: the same children applied again, the new image in the Deployment', async () => {
  const client = fakeClient();
  await invoke(WebAppDeploy, 'create', app(), { client });
  const changed = { ...app(), spec: { ...app().spec, image: 'nginx:1.28' } };
  const result = await invoke(WebAppDeploy, 'update', changed, { client, old: app() });
  expectOutcome(result, { kind: 'success', status: { phase: 'Deploying', message: null } });
  assert.equal(client.objects(builtins.deployments, 'team').length, 1);
  assert.equal(client.objects(builtins.deployments, 'team')[0]?.spec?.template.spec?.containers[0]?.image, 'nginx:1.28');
});

test('child: a deleted Deployment is re-created; its readiness is mirrored into status.deploy', async () => {
  const client = fakeClient();
  const created = await invoke(WebAppDeploy, 'create', app(), { client });
  const [deployment] = client.objects(builtins.deployments, 'team');
  assert.ok(deployment);
  await client.delete(builtins.deployments, 'web', { namespace: 'team' });
  assert.equal(client.objects(builtins.deployments, 'team').length, 0);

  const repaired = await invoke(WebAppDeploy, 'child', created.object, { client, child: deployment, childEvent: 'DELETED' });
  expectOutcome(repaired, {
    kind: 'success',
    status: { phase: 'Repairing', readyReplicas: 0, message: 'deployment web was deleted: re-created' },
  });
  assert.equal(client.objects(builtins.deployments, 'team')[0]?.spec?.template.spec?.containers[0]?.image, 'nginx:1.27');

  const ready = { ...deployment, status: { readyReplicas: 2 } };
  const mirrored = await invoke(WebAppDeploy, 'child', repaired.object, { client, child: ready, childEvent: 'MODIFIED' });
  expectOutcome(mirrored, { kind: 'success', status: { phase: 'Ready', readyReplicas: 2, message: null } });
  assert.deepEqual(mirrored.object.status?.deploy, { phase: 'Ready', readyReplicas: 2 });
});
