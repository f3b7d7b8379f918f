/**
 * Runtime benchmark against a real API server (../shared/envtest, or KOPFGEN_E2E_KUBECONFIG):
 *  1. backlog: N MyResource objects exist (default 10,000; `KOPFGEN_BENCH_OBJECTS` or argv[3]);
 *     the operator starts, lists them and brings every one to status-written: objects/s.
 *  2. live: with those N watched, M more are created (bounded parallelism) while the operator
 *     runs: objects/s from first create to last status written, and created→status latency.
 *  3. paced: 100 objects created 20/s: created→status latency without queueing.
 *  4. the operator process's peak RSS (it runs in a child process of its own), with N+M watched.
 * `CONCURRENCY` sets the operator's bound on objects handled at once (default 16). The operator runs with
 * leader election on (a Lease in the bench namespace, controller-runtime's timings), as a Deployment does, so
 * the numbers include renewing the lease and the fenced write path; `LEADER_ELECTION=0` runs without it.
 * The handler is trivial (returns { phase: "Done" }), so this measures the runtime and the server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { defineResource, type KubernetesObject } from '../src/runtime/index.js';
import { createLogger } from '../src/runtime/effects/log.js';
import { watchResource } from '../src/runtime/watcher.js';
import { applyCrd, skip, startCluster, stopCluster, type Cluster } from '../test/helpers/envtest.js';

const N = Number(process.env.KOPFGEN_BENCH_OBJECTS ?? process.argv[3] ?? 10_000);
const M = Math.min(1000, Math.max(100, Math.floor(N / 10)));
const PARALLEL = 32;
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const NS = 'bench';

const myResource = defineResource({
  group: 'example.com',
  version: 'v1',
  plural: 'myresources',
  kind: 'MyResource',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [],
});

const operatorScript = `
import { Operator } from './dist/src/runtime/operator.js';
import { defineHandler, defineResource, Registry } from './dist/src/runtime/index.js';
import { createLogger } from './dist/src/runtime/effects/log.js';
const registry = new Registry();
const r = defineResource({ group: 'example.com', version: 'v1', plural: 'myresources', kind: 'MyResource', scope: 'Namespaced', statusSubresource: true, printerColumns: [] });
defineHandler(r, 'myapp').onCreate(() => ({ phase: 'Done' }), { registry });
const operator = new Operator({ registry, namespace: '${NS}', logger: createLogger({ level: 'warn' }), concurrency: Number(process.env.CONCURRENCY ?? 16), leaderElection: process.env.LEADER_ELECTION === '0' ? false : { id: 'kopfgen-bench', namespace: '${NS}' } });
const t0 = performance.now();
await operator.start();
while (!operator.isLeader()) await new Promise((r) => setTimeout(r, 10));
process.stderr.write('operator (leader election ' + (process.env.LEADER_ELECTION === '0' ? 'off' : 'on') + '): checks passed and leading after ' + (performance.now() - t0).toFixed(0) + ' ms\\n');
process.stdout.write('ready\\n');
process.on('SIGTERM', async () => {
  const known = operator.known();
  await operator.stop();
  const mem = process.memoryUsage();
  process.stdout.write(JSON.stringify({ known, peakRssMB: process.resourceUsage().maxRSS / 1024, rssMB: mem.rss / 2 ** 20, heapMB: mem.heapUsed / 2 ** 20 }) + '\\n');
  process.exit(0);
});
`;

async function createMany(cluster: Cluster, names: string[], created: Map<string, number>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const name = names[next++];
      const body = { apiVersion: 'example.com/v1', kind: 'MyResource', metadata: { name }, spec: { image: 'nginx' } };
      created.set(name, performance.now());
      await cluster.client.request('POST', `/apis/example.com/v1/namespaces/${NS}/myresources`, { body });
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
}

/**
 * Records when each object's status first says Done, from the bench process's own watch (the
 * runtime's list+watch loop, which survives the API server closing a busy watcher).
 */
function watchDone(cluster: Cluster, done: Map<string, number>, signal: AbortSignal): Promise<void> {
  const consumer = {
    upsert(object: KubernetesObject) {
      const name = object.metadata?.name;
      const status = object.status as { myapp?: { phase?: string } } | undefined;
      if (name && status?.myapp?.phase === 'Done' && !done.has(name)) done.set(name, performance.now());
    },
    delete() {},
    listed() {},
  };
  return watchResource(cluster.client, myResource, consumer, {
    namespace: NS,
    signal,
    logger: createLogger({ level: 'error' }),
  });
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Created → status written, for an object known to be done. */
const latency = (done: Map<string, number>, created: Map<string, number>, name: string) =>
  (done.get(name) ?? Number.NaN) - (created.get(name) ?? Number.NaN);

const pct = (values: number[], p: number) =>
  values.sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))];

async function main(): Promise<void> {
  if (skip) {
    console.log(`runtime: skipped (${skip})`);
    return;
  }
  const cluster = startCluster();
  const abort = new AbortController();
  let child: ChildProcess | undefined;
  try {
    await applyCrd(cluster, 'crds/myresource.yaml', 'example.com', 'v1', 'myresources');
    await cluster.client
      .request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } })
      .catch(() => undefined);
    const created = new Map<string, number>();
    const done = new Map<string, number>();
    const t0 = performance.now();
    await createMany(
      cluster,
      Array.from({ length: N }, (_, i) => `obj-${i}`),
      created,
    );
    const createSeconds = (performance.now() - t0) / 1000;
    console.log(
      `created ${N} objects (no operator running) in ${createSeconds.toFixed(1)} s: ${(N / createSeconds).toFixed(0)} creates/s, ${PARALLEL} in parallel`,
    );

    void watchDone(cluster, done, abort.signal);
    const operator = spawn(process.execPath, ['--input-type=module', '-e', operatorScript], {
      env: { ...process.env, KUBECONFIG: cluster.kubeconfig, CONCURRENCY: String(CONCURRENCY) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child = operator;
    let out = '';
    operator.stdout.on('data', (d) => (out += d));
    const started = performance.now();
    await until('all backlog objects Done', () => done.size >= N, 1_800_000);
    const backlogSeconds = (performance.now() - started) / 1000;
    console.log(
      `backlog: operator start → ${N} objects status-written in ${backlogSeconds.toFixed(1)} s: ${(N / backlogSeconds).toFixed(0)} objects/s (operator concurrency ${CONCURRENCY})`,
    );

    const live = Array.from({ length: M }, (_, i) => `live-${i}`);
    const t1 = performance.now();
    await createMany(cluster, live, created);
    await until('all live objects Done', () => live.every((name) => done.has(name)), 600_000);
    const liveSeconds = (performance.now() - t1) / 1000;
    const latencies = live.map((name) => latency(done, created, name));
    console.log(
      `live: ${M} objects created while ${N} watched, all status-written in ${liveSeconds.toFixed(1)} s: ${(M / liveSeconds).toFixed(0)} objects/s; ` +
        `created→status latency p50 ${pct(latencies, 50).toFixed(0)} ms, p99 ${pct(latencies, 99).toFixed(0)} ms`,
    );
    // Unhurried: one create every 50 ms, so latency shows the pipeline, not a queue.
    const paced = Array.from({ length: 100 }, (_, i) => `paced-${i}`);
    for (const name of paced) {
      await createMany(cluster, [name], created);
      await new Promise((r) => setTimeout(r, 50));
    }
    await until('all paced objects Done', () => paced.every((name) => done.has(name)), 120_000);
    const pacedLatencies = paced.map((name) => latency(done, created, name));
    console.log(
      `paced: 100 objects created 20/s: created→status latency p50 ${pct(pacedLatencies, 50).toFixed(0)} ms, p99 ${pct(pacedLatencies, 99).toFixed(0)} ms`,
    );
    operator.kill('SIGTERM');
    await new Promise((resolve) => operator.on('exit', resolve));
    const stats = JSON.parse(out.trim().split('\n').pop() ?? '{}') as {
      known: number;
      peakRssMB: number;
      rssMB: number;
      heapMB: number;
    };
    console.log(
      `operator process with ${stats.known} objects watched: peak RSS ${stats.peakRssMB.toFixed(0)} MB, RSS at the end ${stats.rssMB.toFixed(0)} MB, heap used ${stats.heapMB.toFixed(0)} MB`,
    );
  } finally {
    // A wait that timed out must not leave the operator running against a stopped API server.
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    abort.abort();
    stopCluster(cluster);
  }
}

await main();
