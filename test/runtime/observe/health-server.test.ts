import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { describe, it } from 'node:test';
import { startHealthServer, type ProbeResult } from '../../../src/runtime/observe/health-server.js';
import { onProbe, Registry } from '../../../src/runtime/index.js';
import { runProbes } from '../../../src/runtime/operator.js';
import { createLogger } from '../../../src/runtime/effects/log.js';
import { createMetrics } from '../../../src/runtime/observe/metrics.js';

const ok: ProbeResult = { ok: true, problems: [] };

async function get(url: string) {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

for (const [mode, thread] of [
  ['in the event loop', undefined],
  ['from a worker thread', {}],
] as const)
  describe(`health server, ${mode}`, () => {
    it('serves /healthz, /readyz and /metrics from its providers on a port picked for it', async () => {
      let health: ProbeResult = ok;
      let ready: ProbeResult = { ok: false, problems: ['watch myresources.example.com/v1 has not listed yet'] };
      const metrics = createMetrics({ processMetrics: false });
      metrics.leader(true);
      const healthz = () => health;
      const readyz = async () => ready;
      const server = await startHealthServer({ thread, port: 0, host: '127.0.0.1', healthz, readyz, metrics });
      try {
        assert.ok(server.port > 0);
        const healthy = { status: 200, type: 'text/plain; charset=utf-8', body: 'ok\n' };
        assert.deepEqual(await get(`${server.url}/healthz`), healthy);
        assert.deepEqual(await get(`${server.url}/readyz`), {
          status: 500,
          type: 'text/plain; charset=utf-8',
          body: '[-]watch myresources.example.com/v1 has not listed yet\nreadyz check failed\n',
        });
        health = { ok: false, problems: ['watch a: no event for 95 s', 'watch b: no event for 120 s'] };
        ready = ok;
        const stalled = await get(`${server.url}/healthz?verbose`);
        assert.equal(stalled.status, 500);
        const problems = '[-]watch a: no event for 95 s\n[-]watch b: no event for 120 s\n';
        assert.equal(stalled.body, `${problems}healthz check failed\n`);
        assert.equal((await get(`${server.url}/readyz`)).status, 200);
        const scraped = await get(`${server.url}/metrics`);
        assert.equal(scraped.status, 200);
        assert.equal(scraped.type, metrics.contentType);
        assert.match(scraped.body, /^kopfgen_leader 1$/m);
        assert.equal((await get(`${server.url}/other`)).status, 404);
        assert.equal((await fetch(`${server.url}/healthz`, { method: 'POST' })).status, 405);
      } finally {
        await server.close();
      }
    });

    it("serves the user's probes (kopf's on.probe) at /probes as JSON; one failing answers 500 naming it", async () => {
      const registry = new Registry();
      let tasks = 2;
      onProbe(() => tasks, { id: 'tasks_count', registry });
      onProbe(async () => ({ ns: ['a', 'b'] }), { id: 'monitored_objects', registry });
      const logger = createLogger({ write: () => {} });
      const server = await startHealthServer({
        thread,
        port: 0,
        host: '127.0.0.1',
        probes: () => runProbes(registry.probes, logger),
      });
      try {
        assert.deepEqual(await get(`${server.url}/probes`), {
          status: 200,
          type: 'application/json',
          body: '{"tasks_count":2,"monitored_objects":{"ns":["a","b"]}}\n',
        });
        onProbe(
          () => {
            throw new Error('no pods');
          },
          { id: 'pods', registry },
        );
        tasks = 3;
        assert.deepEqual(await get(`${server.url}/probes`), {
          status: 500,
          type: 'application/json',
          body: '{"error":"probe pods failed: no pods"}\n',
        });
      } finally {
        await server.close();
      }
    });

    it('a provider that throws fails the probe with its message', async () => {
      const healthz = () => {
        throw new Error('boom');
      };
      const server = await startHealthServer({ thread, port: 0, host: '127.0.0.1', healthz });
      try {
        assert.deepEqual(await get(`${server.url}/healthz`), {
          status: 500,
          type: 'text/plain; charset=utf-8',
          body: '[-]the check threw: boom\nhealthz check failed\n',
        });
      } finally {
        await server.close();
      }
    });

    it('switched-off endpoints answer 404', async () => {
      const server = await startHealthServer({ thread, port: 0, host: '127.0.0.1', healthz: () => ok, readyz: false });
      try {
        assert.equal((await get(`${server.url}/healthz`)).status, 200);
        assert.equal((await get(`${server.url}/readyz`)).status, 404);
        assert.equal((await get(`${server.url}/metrics`)).status, 404);
      } finally {
        await server.close();
      }
    });

    it('close() frees the port, also with a keep-alive connection open', async () => {
      const server = await startHealthServer({ thread, port: 0, host: '127.0.0.1', healthz: () => ok });
      const socket = net.connect(server.port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
      await new Promise((resolve) => socket.once('data', resolve));
      await server.close();
      const again = await startHealthServer({ thread, port: server.port, host: '127.0.0.1', healthz: () => ok });
      assert.equal(again.port, server.port);
      await again.close();
      socket.destroy();
    });
  });

/** Holds this thread's event loop (a callback that never awaits) for `ms`. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/**
 * GETs `url` from another process (this one's loop is held) `afterMs` after it starts: the status, the
 * body and how long the answer took.
 */
function probeFromAnotherProcess(url: string, afterMs: number) {
  const script = `setTimeout(async () => { const t = performance.now(); const r = await fetch(${JSON.stringify(url)}); const body = await r.text(); console.log(JSON.stringify({ status: r.status, body, ms: performance.now() - t })); }, ${afterMs});`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise<{ status: number; body: string; ms: number }>((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`probe exited ${code}`)))),
  );
}

describe('health server from a worker thread, while the event loop is held', () => {
  it('answers /healthz and /readyz within about the fresh wait from the last heartbeat, under the tolerance', async () => {
    const server = await startHealthServer({
      thread: { toleranceSeconds: 30, freshWaitMs: 300 },
      port: 0,
      host: '127.0.0.1',
      healthz: () => ok,
      readyz: () => ok,
    });
    try {
      assert.equal((await get(`${server.url}/healthz`)).status, 200);
      const answers = Promise.all([
        probeFromAnotherProcess(`${server.url}/healthz`, 1500),
        probeFromAnotherProcess(`${server.url}/readyz`, 1500),
      ]);
      spin(6000);
      for (const answer of await answers) {
        assert.equal(answer.status, 200);
        assert.equal(answer.body, 'ok\n');
        // The functional bound: far below the 6 s the loop was held (0.3 s wait, a loaded machine's margin).
        assert.ok(answer.ms < 2500, `answered after ${answer.ms} ms`);
      }
    } finally {
      await server.close();
    }
  });

  it("a probe reads the operator's memo (kopf's probes take `memo`)", async () => {
    const registry = new Registry();
    onProbe(({ memo }) => (memo as { tasks?: number }).tasks, { id: 'tasks', registry });
    const logger = createLogger({ write: () => {} });
    const memo: Record<string, unknown> = { tasks: 7 };
    assert.deepEqual(await runProbes(registry.probes, logger, memo), { tasks: 7 });
  });

  it('fails /healthz once the loop has been silent past the tolerance, naming how long', async () => {
    const server = await startHealthServer({
      thread: { toleranceSeconds: 1, freshWaitMs: 300 },
      port: 0,
      host: '127.0.0.1',
      healthz: () => ok,
    });
    try {
      assert.equal((await get(`${server.url}/healthz`)).status, 200);
      const answer = probeFromAnotherProcess(`${server.url}/healthz`, 2500);
      spin(6000);
      const { status, body } = await answer;
      assert.equal(status, 500);
      assert.match(
        body,
        /^\[-\]the operator's event loop has not answered for \d+ s \(limit 1 s\)\nhealthz check failed\n$/,
      );
      assert.equal((await get(`${server.url}/healthz`)).status, 200, 'the loop free again answers itself');
    } finally {
      await server.close();
    }
  });
});
