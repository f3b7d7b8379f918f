/**
 * The typed client (effects/typed-client.ts) against a local HTTP server: the request each call makes
 * (method, path, content type, query, body), the documented answers for a missing object, refusals as
 * ApiError (a 409 never retried, a 503 retried), the fence's refusal as FencedWriteError with nothing
 * sent, an undeclared kind refused naming the declaration, a cluster-scoped child of a namespaced
 * owner refused, a child another object controls refused, the operator's own fields taken over by its
 * apply, and a create that may have arrived never sent again.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { AccessTable, uses } from '../../../src/runtime/api/access.js';
import {
  AlreadyOwnedError,
  ApiError,
  FencedWriteError,
  UndeclaredKindError,
} from '../../../src/runtime/api/client-api.js';
import { Registry } from '../../../src/runtime/api/registry.js';
import { builtins } from '../../../src/runtime/builtin-kinds.js';
import { TypedClient } from '../../../src/runtime/effects/typed-client.js';
import { KubeClient } from '../../../src/runtime/kube/client.js';
import { TermFence } from '../../../src/runtime/kube/fence.js';
import { localClient } from '../../helpers/local-client.js';
import { myResourceDescriptor } from '../../helpers/resource-env.js';

interface Received {
  method: string;
  url: string;
  type: string | undefined;
  body: unknown;
}

let server: http.Server;
let kube: KubeClient;
const received: Received[] = [];
/** Answers to give, in order (then 200 with the request's body, or a list page). */
const answers: { status: number; body?: unknown }[] = [];

function client(options: Partial<ConstructorParameters<typeof TypedClient>[1]> = {}) {
  return new TypedClient(kube, { fieldManager: 'webapp-operator', ...options });
}

describe('TypedClient', () => {
  before(async () => {
    server = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => (text += chunk));
      req.on('end', () => {
        const body: unknown = text ? JSON.parse(text) : undefined;
        received.push({ method: req.method ?? '', url: req.url ?? '', type: req.headers['content-type'], body });
        const answer = answers.shift() ?? { status: 200, body: body ?? { metadata: { name: 'x' } } };
        res.writeHead(answer.status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(answer.body ?? {}));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    kube = localClient(server);
  });
  beforeEach(() => {
    received.length = 0;
    answers.length = 0;
  });
  after(() => {
    kube.close();
    server.close();
  });

  it('each call is one request: method, path, content type, query and body', async () => {
    const c = client();
    const namespace = 'ns';
    const labels = { app: 'web' };
    await c.get(builtins.deployments, 'web', { namespace });
    await c.create(builtins.configMaps, { metadata: { name: 'cm', namespace }, data: { a: '1' } });
    await c.apply(builtins.services, { metadata: { name: 'svc', namespace, labels } }, { force: true });
    await c.patch(myResourceDescriptor(), 'mine', { spec: { replicas: 2 } }, { namespace, resourceVersion: '7' });
    await c.patch(myResourceDescriptor(), 'mine', { status: { x: 1 } }, { namespace, subresource: 'status' });
    await c.delete(builtins.secrets, 's', { namespace, propagationPolicy: 'Foreground' });
    await c.get(builtins.namespaces, 'team');
    const want: Received[] = [
      { method: 'GET', url: '/apis/apps/v1/namespaces/ns/deployments/web', type: undefined, body: undefined },
      {
        method: 'POST',
        url: '/api/v1/namespaces/ns/configmaps?fieldManager=webapp-operator',
        type: 'application/json',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace }, data: { a: '1' } },
      },
      {
        method: 'PATCH',
        url: '/api/v1/namespaces/ns/services/svc?fieldManager=webapp-operator&force=true',
        type: 'application/apply-patch+yaml',
        body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', namespace, labels } },
      },
      {
        method: 'PATCH',
        url: '/apis/example.com/v1/namespaces/ns/myresources/mine?fieldManager=webapp-operator',
        type: 'application/merge-patch+json',
        body: { spec: { replicas: 2 }, metadata: { resourceVersion: '7' } },
      },
      {
        method: 'PATCH',
        url: '/apis/example.com/v1/namespaces/ns/myresources/mine/status?fieldManager=webapp-operator',
        type: 'application/merge-patch+json',
        body: { status: { x: 1 } },
      },
      {
        method: 'DELETE',
        url: '/api/v1/namespaces/ns/secrets/s',
        type: 'application/json',
        body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground' },
      },
      { method: 'GET', url: '/api/v1/namespaces/team', type: undefined, body: undefined },
    ];
    assert.deepEqual(received, want);
  });

  it('list: every page, selectors in the API syntax, apiVersion and kind on each item', async () => {
    answers.push(
      { status: 200, body: { metadata: { continue: 'next' }, items: [{ metadata: { name: 'a' } }] } },
      { status: 200, body: { metadata: {}, items: [{ metadata: { name: 'b' } }] } },
    );
    const items = await client().list(builtins.pods, {
      labelSelector: { app: 'web', tier: 'front' },
      fieldSelector: 'status.phase=Running',
    });
    assert.deepEqual(
      items.map((item) => [item.apiVersion, item.kind, item.metadata?.name]),
      [
        ['v1', 'Pod', 'a'],
        ['v1', 'Pod', 'b'],
      ],
    );
    assert.deepEqual(
      received.map((r) => decodeURIComponent(r.url)),
      [
        '/api/v1/pods?labelSelector=app=web,tier=front&fieldSelector=status.phase=Running&limit=500',
        '/api/v1/pods?labelSelector=app=web,tier=front&fieldSelector=status.phase=Running&limit=500&continue=next',
      ],
    );
  });

  it('a missing object: get resolves undefined, delete false; patch rejects with a 404 ApiError', async () => {
    const notFound = { status: 404, body: { kind: 'Status', reason: 'NotFound', message: 'configmaps "x" not found' } };
    answers.push(notFound, notFound, notFound);
    const c = client();
    assert.equal(await c.get(builtins.configMaps, 'x', { namespace: 'ns' }), undefined);
    assert.equal(await c.delete(builtins.configMaps, 'x', { namespace: 'ns' }), false);
    await assert.rejects(
      c.patch(builtins.configMaps, 'x', { data: { a: 'b' } }, { namespace: 'ns' }),
      (error: unknown) => error instanceof ApiError && error.status === 404 && error.reason === 'NotFound',
    );
  });

  it('a refusal is an ApiError naming verb, resource and object; a 409 is an answer (sent once), a 503 is retried', async () => {
    answers.push({ status: 409, body: { reason: 'AlreadyExists', message: 'deployments.apps "web" already exists' } });
    const c = client();
    await assert.rejects(
      c.create(builtins.deployments, { metadata: { name: 'web', namespace: 'ns' } }),
      (error: unknown) =>
        error instanceof ApiError &&
        error.status === 409 &&
        error.reason === 'AlreadyExists' &&
        error.message === 'create deployments.apps ns/web: 409 AlreadyExists: deployments.apps "web" already exists',
    );
    assert.equal(received.length, 1);
    answers.push({ status: 503, body: { message: 'busy' } });
    await c.apply(builtins.deployments, { metadata: { name: 'web', namespace: 'ns' } });
    assert.deepEqual(
      received.slice(1).map((r) => r.method),
      ['PATCH', 'PATCH'],
    );
  });

  it("after the term's fence closed: FencedWriteError, no ApiError, nothing sent; reads too", async () => {
    const fence = new TermFence();
    fence.close('the lease was lost');
    const c = new TypedClient(kube.fenced(fence), { fieldManager: 'kopfgen' });
    for (const call of [
      () => c.apply(builtins.configMaps, { metadata: { name: 'a', namespace: 'ns' } }),
      () => c.create(builtins.configMaps, { metadata: { name: 'a', namespace: 'ns' } }),
      () => c.patch(builtins.configMaps, 'a', { data: {} }, { namespace: 'ns' }),
      () => c.delete(builtins.configMaps, 'a', { namespace: 'ns' }),
      () => c.get(builtins.configMaps, 'a', { namespace: 'ns' }),
    ]) {
      await assert.rejects(
        call(),
        (error: unknown) =>
          error instanceof FencedWriteError && !(error instanceof ApiError) && /the lease was lost/.test(error.message),
      );
    }
    assert.deepEqual(received, []);
  });

  it('an undeclared kind or verb is refused before sending, naming the declaration to add', async () => {
    const registry = new Registry();
    uses(builtins.configMaps, ['get', 'apply'], { registry });
    const c = client({ access: new AccessTable(registry.access, [myResourceDescriptor()]) });
    await c.get(builtins.configMaps, 'a', { namespace: 'ns' });
    await c.apply(builtins.configMaps, { metadata: { name: 'a', namespace: 'ns' } });
    await c.patch(myResourceDescriptor(), 'm', { spec: {} }, { namespace: 'ns' });
    const refused = async (call: () => Promise<unknown>, message: string) =>
      assert.rejects(call(), (error: unknown) => error instanceof UndeclaredKindError && error.message === message);
    await refused(
      () => c.delete(builtins.configMaps, 'a', { namespace: 'ns' }),
      "delete configmaps: the operator declares no access to configmaps; add uses(builtins.configMaps, ['delete'])",
    );
    await refused(
      () => c.list(builtins.persistentVolumeClaims),
      "list persistentvolumeclaims: the operator declares no access to persistentvolumeclaims; add uses(builtins.persistentVolumeClaims, ['list'])",
    );
    await refused(
      () => c.create(myResourceDescriptor(), { metadata: { name: 'm', namespace: 'ns' } }),
      "create myresources.example.com: the operator declares no access to myresources.example.com; add uses(MyResourceDescriptor, ['create'])",
    );
    assert.equal(received.length, 3);
  });

  it("a handler's aborted signal: nothing sent; a namespaced kind without a namespace: refused", async () => {
    const abort = new AbortController();
    abort.abort(new Error('handler timeout'));
    await assert.rejects(
      client({ signal: abort.signal }).get(builtins.pods, 'p', { namespace: 'ns' }),
      /handler timeout/,
    );
    await assert.rejects(client().get(builtins.pods, 'p'), /a namespaced kind needs a namespace/);
    assert.deepEqual(received, []);
  });

  it('a cluster-scoped object owned by the namespaced handled object is refused (the GC would delete it)', async () => {
    const owner = { uid: 'u1', namespaced: true, describe: 'WebApp web' };
    const child = {
      metadata: {
        name: 'team',
        ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'WebApp', name: 'web', uid: 'u1' }],
      },
    };
    await assert.rejects(
      client({ owner }).apply(builtins.namespaces, child),
      /cannot be owned by the namespaced WebApp web/,
    );
    assert.deepEqual(received, []);
  });

  it("an apply whose only conflicts are the operator's own fields (set by create or patch) takes them over; another manager's stays a conflict", async () => {
    const conflict = (manager: string) => ({
      status: 409,
      body: {
        kind: 'Status',
        reason: 'Conflict',
        message: `Apply failed with 1 conflict: conflict with "${manager}" using v1: .data.at`,
        details: {
          causes: [
            { reason: 'FieldManagerConflict', message: `conflict with "${manager}" using v1`, field: '.data.at' },
          ],
        },
      },
    });
    const cm = { metadata: { name: 'cm', namespace: 'ns' }, data: { at: '2' } };
    answers.push(conflict('webapp-operator'));
    await client().apply(builtins.configMaps, cm);
    assert.deepEqual(
      received.map((r) => r.url),
      [
        '/api/v1/namespaces/ns/configmaps/cm?fieldManager=webapp-operator',
        '/api/v1/namespaces/ns/configmaps/cm?fieldManager=webapp-operator&force=true',
      ],
    );
    received.length = 0;
    answers.push(conflict('kubectl-edit'));
    await assert.rejects(
      client().apply(builtins.configMaps, cm),
      (e: unknown) => e instanceof ApiError && e.status === 409,
    );
    assert.equal(received.length, 1, 'not forced over another manager');
  });

  it('a child another object controls is refused before the write, from the watch or a read, and reported', async () => {
    const owner = { uid: 'me', namespaced: true, describe: 'WebApp a' };
    const mine = { apiVersion: 'example.com/v1', kind: 'WebApp', name: 'a', uid: 'me', controller: true };
    const theirs = { apiVersion: 'example.com/v1', kind: 'WebApp', name: 'b', uid: 'other', controller: true };
    const cm = { metadata: { name: 'shared', namespace: 'ns', ownerReferences: [mine] }, data: {} };
    const refused: string[] = [];
    const onRefused = (error: ApiError) => void refused.push(error.message);
    // from the watch: nothing sent
    const watched = client({ owner, onRefused, controllers: () => ({ found: true, controller: theirs }) });
    await assert.rejects(
      watched.apply(builtins.configMaps, cm),
      (e: unknown) => e instanceof AlreadyOwnedError && e.owner.uid === 'other' && e.status === 409,
    );
    await assert.rejects(watched.create(builtins.configMaps, cm), AlreadyOwnedError);
    assert.equal(received.length, 0);
    assert.equal(refused.length, 2);
    assert.match(refused[0] ?? '', /shared is already controlled by WebApp b \(uid other\)/);
    // the watch knows it as ours, or not at all: sent
    await client({ owner, controllers: () => ({ found: true, controller: mine }) }).apply(builtins.configMaps, cm);
    await client({ owner, controllers: () => ({ found: false }) }).apply(builtins.configMaps, cm);
    assert.equal(received.length, 2);
    // a kind not watched: read first
    received.length = 0;
    answers.push({ status: 200, body: { metadata: { name: 'shared', ownerReferences: [theirs] } } });
    await assert.rejects(client({ owner }).apply(builtins.configMaps, cm), AlreadyOwnedError);
    assert.deepEqual(
      received.map((r) => r.method),
      ['GET'],
    );
    received.length = 0;
    answers.push({ status: 404, body: { kind: 'Status', reason: 'NotFound' } });
    await client({ owner }).apply(builtins.configMaps, cm);
    assert.deepEqual(
      received.map((r) => r.method),
      ['GET', 'PATCH'],
    );
    // an object that names no controller of ours is not checked
    received.length = 0;
    await client({ owner }).apply(builtins.configMaps, { metadata: { name: 'free', namespace: 'ns' } });
    assert.deepEqual(
      received.map((r) => r.method),
      ['PATCH'],
    );
  });

  it('a create that may have reached the server is not sent again; a delete sent again that finds nothing deleted it', async () => {
    answers.push({ status: 503, body: { message: 'etcd timeout' } });
    await assert.rejects(client().create(builtins.configMaps, { metadata: { name: 'c', namespace: 'ns' } }), ApiError);
    assert.equal(received.length, 1, 'not re-sent');
    received.length = 0;
    answers.push({ status: 429, body: { message: 'slow down' } });
    await client().create(builtins.configMaps, { metadata: { name: 'c', namespace: 'ns' } });
    assert.equal(received.length, 2, 'a throttled create was not processed: sent again');
    received.length = 0;
    answers.push({ status: 503, body: { message: 'etcd timeout' } }, { status: 404, body: { reason: 'NotFound' } });
    assert.equal(await client().delete(builtins.configMaps, 'c', { namespace: 'ns' }), true);
    answers.push({ status: 404, body: { reason: 'NotFound' } });
    assert.equal(await client().delete(builtins.configMaps, 'c', { namespace: 'ns' }), false);
  });
});
