/**
 * Webhooks: admission latency at a steady 200 requests/s from a local keep-alive client (as the API
 * server calls, one connection reused), validate and mutate, p50/p99; a conversion of 1,000 objects per
 * request; each server's peak RSS; four concurrent 40 MB ConversionReviews to a fresh server (its peak
 * RSS against the in-flight budget's worst case, every answer's status). Every figure sits beside the floor: the same Node HTTPS server and
 * certificate answering a constant review (bench/webhook-child.ts). Server and client run in separate
 * processes; the rate is paced by a timer, and a request is timed from its send to its last byte.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import https from 'node:https';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { webhookMemoryMiB } from '../src/runtime/webhooks/request-budget.js';

const RATE = 200;
const SECONDS = Number(process.env.KOPFGEN_BENCH_WEBHOOK_SECONDS ?? 10);
const CONVERSION_OBJECTS = 1000;
const CONVERSION_ROUNDS = 20;

interface Child {
  process: ChildProcess;
  port: number;
  ca: string;
  lines: AsyncIterator<string>;
}

async function startChild(mode: 'kopfgen' | 'floor'): Promise<Child> {
  const file = join(dirname(fileURLToPath(import.meta.url)), 'webhook-child.js');
  const child = spawn(process.execPath, [file, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (prefix: string) => {
    const line = (await lines.next()).value as string | undefined;
    if (!line?.startsWith(prefix)) throw new Error(`webhook child ${mode}: expected ${prefix}, got ${line}`);
    return line.slice(prefix.length + 1);
  };
  const ca = Buffer.from(await next('ca'), 'base64').toString();
  const port = Number(await next('port'));
  return { process: child, port, ca, lines };
}

async function stopChild(child: Child): Promise<number> {
  child.process.kill('SIGTERM');
  const line = (await child.lines.next()).value as string | undefined;
  await once(child.process, 'exit');
  return Number(line?.replace(/^rss /, '') ?? NaN);
}

function post(agent: https.Agent, child: Child, path: string, body: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: child.port,
        path,
        method: 'POST',
        agent,
        ca: child.ca,
        headers: { 'Content-Type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`${path}: ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** RATE requests per second for SECONDS, each sent on its tick whatever the others do. */
async function paced(child: Child, path: string, body: string): Promise<{ p50: number; p99: number }> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 8 });
  for (let i = 0; i < 50; i++) await post(agent, child, path, body); // warm-up: TLS, JIT
  const total = RATE * SECONDS;
  const started = performance.now();
  const pending: Promise<number>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(post(agent, child, path, body));
  }
  const times = (await Promise.all(pending)).sort((a, b) => a - b);
  agent.destroy();
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

const object = (i: number, apiVersion: string, spec: Record<string, unknown>) => ({
  apiVersion,
  kind: 'Gizmo',
  metadata: {
    name: `g-${i}`,
    namespace: 'default',
    uid: `uid-${i}`,
    resourceVersion: String(1000 + i),
    labels: { app: 'bench' },
  },
  spec,
});
const admission = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u',
    operation: 'CREATE',
    userInfo: { username: 'bench' },
    object: object(1, 'example.com/v1', { size: 3, tags: ['a', 'b'] }),
  },
});
const conversion = JSON.stringify({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'ConversionReview',
  request: {
    uid: 'c',
    desiredAPIVersion: 'example.com/v1',
    objects: Array.from({ length: CONVERSION_OBJECTS }, (_, i) =>
      object(i, 'example.com/v1alpha1', { width: 1 + (i % 90), colour: i % 2 ? 'red' : undefined }),
    ),
  },
});

async function conversions(child: Child, path: string): Promise<number> {
  const agent = new https.Agent({ keepAlive: true });
  for (let i = 0; i < 3; i++) await post(agent, child, path, conversion);
  const times: number[] = [];
  for (let i = 0; i < CONVERSION_ROUNDS; i++) times.push(await post(agent, child, path, conversion));
  agent.destroy();
  return quantile(
    times.sort((a, b) => a - b),
    0.5,
  );
}

const ms = (n: number) => `${n.toFixed(2)} ms`;
const floorChild = await startChild('floor');
const floor = await paced(floorChild, '/', admission);
const floorConversion = await conversions(floorChild, '/');
const floorRss = await stopChild(floorChild);

const kopfgen = await startChild('kopfgen');
const validate = await paced(kopfgen, '/validate/example.com/v1/gizmos/check', admission);
const mutate = await paced(kopfgen, '/mutate/example.com/v1/gizmos/check', admission);
const converted = await conversions(kopfgen, '/convert/gizmos.example.com');
const rss = await stopChild(kopfgen);

console.log(
  `${RATE} requests/s for ${SECONDS} s each, keep-alive client in another process; conversion: median of ${CONVERSION_ROUNDS} requests of ${CONVERSION_OBJECTS} objects (${(conversion.length / 1024).toFixed(0)} KiB)`,
);
console.log('| | p50 | p99 | vs. the floor (p50 / p99) |');
console.log('|---|---:|---:|---:|');
console.log(`| floor: the same HTTPS server, constant answer | ${ms(floor.p50)} | ${ms(floor.p99)} | 1.00× / 1.00× |`);
console.log(
  `| validate | ${ms(validate.p50)} | ${ms(validate.p99)} | ${(validate.p50 / floor.p50).toFixed(2)}× / ${(validate.p99 / floor.p99).toFixed(2)}× |`,
);
console.log(
  `| mutate (JSON patch) | ${ms(mutate.p50)} | ${ms(mutate.p99)} | ${(mutate.p50 / floor.p50).toFixed(2)}× / ${(mutate.p99 / floor.p99).toFixed(2)}× |`,
);
console.log(
  `conversion of ${CONVERSION_OBJECTS} objects per request: ${ms(converted)} (floor, same body read and a constant answer: ${ms(floorConversion)}; ${(converted / floorConversion).toFixed(2)}×)`,
);
console.log(`server peak RSS: ${rss} MB (floor ${floorRss} MB)`);

/**
 * Four ConversionReviews of about 40 MB at once, as a list read of 144,000 objects would send them.
 * A review refused for the budget is answered 503 before its body is read, and the server may then
 * close the connection under the client still writing it: that write's EPIPE or reset is the 503's,
 * not a failure (the API server sees the 503 and retries or reports it).
 */
function postStatus(child: Child, path: string, body: Buffer): Promise<number | string> {
  return new Promise((resolve) => {
    let status: number | undefined;
    const req = https.request(
      {
        host: '127.0.0.1',
        port: child.port,
        path,
        method: 'POST',
        agent: false,
        ca: child.ca,
        headers: { 'Content-Type': 'application/json', 'Content-Length': body.length },
      },
      (res) => {
        status = res.statusCode ?? 0;
        res.resume();
        res.on('end', () => resolve(status ?? 0));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve(status ?? `error ${error.code ?? error.message}`));
    req.end(body);
  });
}
const big = Buffer.from(
  JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: {
      uid: 'big',
      desiredAPIVersion: 'example.com/v1',
      objects: Array.from({ length: 144_000 }, (_, i) =>
        object(i, 'example.com/v1alpha1', { width: 1 + (i % 90), colour: 'red', note: 'x'.repeat(60) }),
      ),
    },
  }),
);
const fresh = await startChild('kopfgen');
const bigStarted = performance.now();
const statuses = await Promise.all([1, 2, 3, 4].map(() => postStatus(fresh, '/convert/gizmos.example.com', big)));
const bigSeconds = (performance.now() - bigStarted) / 1000;
const bigRss = await stopChild(fresh);
console.log(
  `four concurrent ConversionReviews of ${(big.length / 1e6).toFixed(1)} MB: statuses ${statuses.join(' ')} in ${bigSeconds.toFixed(1)} s; server peak RSS ${bigRss} MB (in-flight budget's worst case: ${webhookMemoryMiB()} MiB beyond the operator's own)`,
);
