/**
 * The WebApp's create handler, tested without a cluster (`npm test` runs this file): `invoke` runs it
 * as one reconcile of the operator would, with an in-memory `fakeClient` as `ctx.client`, and the test
 * reads what the handler applied there. Against a real API server (children re-created, readiness
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
  const owned = client.ownedBy({ metadata: result.object.metadata });
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
