/** The client's write fence and request observer, against a local HTTP server. */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { FencedError, KubeClient, type RequestRecord } from '../../../src/runtime/kube/client.js';
import { kubeconfigFromDocument } from '../../../src/runtime/kube/kubeconfig.js';

let server: http.Server;
let client: KubeClient;
const received: string[] = [];

describe('KubeClient', () => {
  before(async () => {
    server = http.createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      res.writeHead(req.url === '/missing' ? 404 : 200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: 'm' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const read = kubeconfigFromDocument({
      clusters: [{ name: 'c', cluster: { server: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } }],
      users: [{ name: 'u', user: {} }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    });
    assert.ok('config' in read);
    client = new KubeClient(read.config);
  });
  after(() => {
    client.close();
    server.close();
  });

  it('a fenced client sends reads, refuses writes while the fence names a reason, and sends them again after', async () => {
    let reason: string | undefined = 'not leading';
    const fenced = client.fenced(() => reason);
    received.length = 0;
    await fenced.request('GET', '/a');
    for (const method of ['PATCH', 'POST', 'PUT', 'DELETE']) {
      await assert.rejects(
        fenced.request(method, '/b', { body: {} }),
        (error: unknown) => error instanceof FencedError && error.message === `${method} /b not sent: not leading`,
      );
    }
    assert.deepEqual(received, ['GET /a'], 'no write reached the server');
    reason = undefined;
    await fenced.request('PATCH', '/b', { body: {} });
    await client.request('PATCH', '/c', { body: {} });
    assert.deepEqual(received, ['GET /a', 'PATCH /b', 'PATCH /c']);
  });

  it('every request is reported to the observer, forks included, with its status', async () => {
    const records: RequestRecord[] = [];
    client.observe((record) => records.push(record));
    await client.request('GET', '/a');
    await assert.rejects(client.fenced(() => undefined).request('GET', '/missing'));
    assert.deepEqual(
      records.map((r) => [r.verb, r.code]),
      [
        ['GET', 200],
        ['GET', 404],
      ],
    );
    assert.ok(records.every((r) => r.seconds >= 0));
  });
});
