/**
 * The health server's HTTP side in a worker thread of its own (started by health-thread.ts), so that
 * a callback spinning the CPU on the operator's event loop (a synchronous loop in a validator) does
 * not hold the kubelet's probes: every request is passed to the loop, and `/healthz` and `/readyz`
 * are answered from the loop's heartbeat (health-held.ts) when the loop has not answered within
 * FRESH_WAIT_MS. `/metrics` and `/probes` are the loop's to compute and wait for it (a scrape has a
 * timeout of its own). This file runs only as a worker: it reads `workerData` and talks to its parent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { heldAnswer, type Answer } from './health-held.js';

/** What health-thread.ts passes as `workerData`. */
export interface HealthWorkerData {
  port: number;
  host?: string;
  toleranceMs: number;
  freshWaitMs: number;
}

/** Messages between the loop and the worker (both directions). */
export type HealthMessage =
  | { kind: 'listening'; port: number }
  | { kind: 'failed'; message: string }
  | { kind: 'ask'; id: number; path: string }
  | { kind: 'answer'; id: number; answer: Answer }
  | { kind: 'beat'; healthz?: Answer; readyz?: Answer }
  | { kind: 'close' }
  | { kind: 'closed' };

const port = parentPort;
const data = workerData as HealthWorkerData;
if (port) {
  const parent = port;
  const post = (message: HealthMessage) => parent.postMessage(message);
  const last: { healthz?: Answer; readyz?: Answer } = {};
  let heardAt = performance.now();
  let next = 0;
  const waiting = new Map<number, (answer: Answer) => void>();
  parent.on('message', (message: HealthMessage) => {
    heardAt = performance.now();
    if (message.kind === 'beat') {
      last.healthz = message.healthz;
      last.readyz = message.readyz;
    } else if (message.kind === 'answer') {
      waiting.get(message.id)?.(message.answer);
      waiting.delete(message.id);
    } else if (message.kind === 'close') {
      server.close(() => {
        post({ kind: 'closed' });
        parent.close();
      });
      server.closeAllConnections();
    }
  });
  /** The loop's answer; for a probe, the held one once FRESH_WAIT_MS passed without it. */
  const ask = (path: string): Promise<Answer> =>
    new Promise((resolve) => {
      const id = next++;
      const probe = path === '/healthz' ? 'healthz' : path === '/readyz' ? 'readyz' : undefined;
      const timer =
        probe &&
        setTimeout(() => {
          waiting.delete(id);
          resolve(heldAnswer(probe, last[probe], performance.now() - heardAt, data.toleranceMs));
        }, data.freshWaitMs);
      waiting.set(id, (answer) => {
        if (timer) clearTimeout(timer);
        if (probe) last[probe] = answer;
        resolve(answer);
      });
      post({ kind: 'ask', id, path });
    });
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://probe').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET, HEAD' });
      res.end('method not allowed\n');
      return;
    }
    // A write to a connection the prober already closed must not end the worker.
    void ask(path)
      .then((a) => {
        res.writeHead(a.status, { 'Content-Type': a.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : a.body);
      })
      .catch(() => res.destroy());
  });
  server.once('error', (error) => post({ kind: 'failed', message: error.message }));
  server.listen(data.port, data.host, () => post({ kind: 'listening', port: (server.address() as AddressInfo).port }));
}
