/**
 * The client's write fence (refusal, deadline, in-flight abort), request observer, identity (User-Agent,
 * field manager) and dedicated connections, against a local HTTP server.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { VERSION } from '../../../src/cli/main.js';
import { FencedError, KOPFGEN_VERSION, KubeClient, type RequestRecord } from '../../../src/runtime/kube/client.js';
import { TermFence, type WriteFence } from '../../../src/runtime/kube/fence.js';
import { localClient } from '../../helpers/local-client.js';

let server: http.Server;
let client: KubeClient;
const received: string[] = [];
/** The User-Agent of each request, by method and URL. */
const agents: string[] = [];
/** Requests to /hang are held unanswered; the server notes when their connection closes. */
const hanging: string[] = [];
const closed: string[] = [];

/** A fence whose reason and deadline the test sets. */
function fence(state: { reason?: string; deadline?: number }, signal = new AbortController().signal): WriteFence {
  return { refuse: () => state.reason, deadline: () => state.deadline ?? Infinity, signal };
}

describe('KubeClient', () => {
  before(async () => {
    server = http.createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      agents.push(String(req.headers['user-agent']));
      if (req.url === '/hang') {
        hanging.push(req.method ?? '');
        req.socket.once('close', () => closed.push(req.method ?? ''));
        return;
      }
      res.writeHead(req.url === '/missing' ? 404 : 200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: 'm' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = localClient(server);
  });
  after(() => {
    client.close();
    server.close();
  });

  it('a fenced client sends reads, refuses writes while the fence names a reason, and sends them again after', async () => {
    const state: { reason?: string } = { reason: 'not leading' };
    const fenced = client.fenced(fence(state));
    received.length = 0;
    await fenced.request('GET', '/a');
    for (const method of ['PATCH', 'POST', 'PUT', 'DELETE']) {
      await assert.rejects(
        fenced.request(method, '/b', { body: {} }),
        (error: unknown) => error instanceof FencedError && error.message === `${method} /b not sent: not leading`,
      );
    }
    assert.deepEqual(received, ['GET /a'], 'no write reached the server');
    state.reason = undefined;
    await fenced.request('PATCH', '/b', { body: {} });
    await client.request('PATCH', '/c', { body: {} });
    assert.deepEqual(received, ['GET /a', 'PATCH /b', 'PATCH /c']);
  });

  it('every request is reported to the observer, forks included, with its status', async () => {
    const records: RequestRecord[] = [];
    client.observe((record) => records.push(record));
    await client.request('GET', '/a');
    await assert.rejects(client.fenced(fence({})).request('GET', '/missing'));
    assert.deepEqual(
      records.map((r) => [r.verb, r.code]),
      [
        ['GET', 200],
        ['GET', 404],
      ],
    );
    assert.ok(records.every((r) => r.seconds >= 0));
  });

  it("a write waits for its answer only until the fence's deadline; past it, a write is not sent", async () => {
    const state = { deadline: performance.now() + 300 };
    const fenced = client.fenced(fence(state));
    const error = await fenced.request('PATCH', '/hang', { body: {} }).then(
      () => assert.fail('answered'),
      (failure: unknown) => String(failure),
    );
    const ms = Number(/PATCH \/hang: no answer within (\d+) ms/.exec(error)?.[1]);
    assert.ok(ms > 0 && ms <= 300, `the write's timeout was cut to the deadline: ${error}`);
    received.length = 0;
    state.deadline = performance.now() - 1;
    await assert.rejects(fenced.request('PUT', '/b', { body: {} }), (error: unknown) => error instanceof FencedError);
    assert.deepEqual(received, [], 'not sent');
  });

  it('when the term ends, its requests in flight are aborted and their sockets closed; nothing more is sent', async () => {
    const term = new TermFence();
    const fenced = client.fenced(term);
    hanging.length = 0;
    closed.length = 0;
    const write = fenced.request('PATCH', '/hang', { body: {} });
    const read = fenced.request('GET', '/hang');
    const other = client.request('POST', '/hang', { body: {}, timeoutMs: 60_000 });
    await eventuallyTrue(() => hanging.length === 3);
    term.close('the lease was lost');
    for (const pending of [write, read]) {
      await assert.rejects(
        pending,
        (error: unknown) =>
          error instanceof FencedError &&
          error.sent &&
          /aborted after it was sent: the lease was lost/.test(error.message),
      );
    }
    await eventuallyTrue(() => closed.includes('PATCH') && closed.includes('GET'));
    assert.ok(!closed.includes('POST'), "the unfenced client's request is not the term's");
    await assert.rejects(fenced.request('GET', '/a'), (error: unknown) => error instanceof FencedError);
    client.close(); // ends the POST still held
    await assert.rejects(other);
  });

  it('every request names kopfgen, its version and the operator; every create, update and patch its field manager', async () => {
    const named = localClient(server);
    try {
      received.length = 0;
      agents.length = 0;
      await named.request('GET', '/a');
      named.identify({ operator: 'webapp-operator', fieldManager: 'webapp-operator' });
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])
        await named.fenced(fence({})).request(method, '/b');
      await named.request('PATCH', '/c', { query: { fieldManager: 'other' } });
      assert.deepEqual(received, [
        'GET /a',
        'GET /b',
        'POST /b?fieldManager=webapp-operator',
        'PUT /b?fieldManager=webapp-operator',
        'PATCH /b?fieldManager=webapp-operator',
        'DELETE /b',
        'PATCH /c?fieldManager=other',
      ]);
      assert.equal(agents[0], `kopfgen/${KOPFGEN_VERSION}`);
      assert.ok(
        agents.slice(1).every((agent) => agent === `kopfgen/${KOPFGEN_VERSION} (webapp-operator)`),
        agents.join(),
      );
      const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
      assert.equal(KOPFGEN_VERSION, pkg.version);
      assert.equal(VERSION, pkg.version);
    } finally {
      named.close();
    }
  });

  it("a dedicated connection is answered while every socket of the shared one is taken (the lease's renewals)", async () => {
    const shared = localClient(server);
    const lease = shared.dedicated();
    try {
      hanging.length = 0;
      // more requests than the shared agent has sockets: the rest wait in its queue
      const held = Array.from({ length: 70 }, () =>
        shared.request('GET', '/hang', { timeoutMs: 60_000 }).catch(() => 'closed'),
      );
      await eventuallyTrue(() => hanging.length === 64);
      received.length = 0;
      await lease.request('PUT', '/lease', { timeoutMs: 2000 });
      assert.deepEqual(received, ['PUT /lease']);
      shared.close();
      await Promise.all(held);
    } finally {
      lease.close();
      shared.close();
    }
  });
});

async function eventuallyTrue(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check());
}
