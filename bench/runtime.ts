/**
 * Runtime benchmark against a real API server (../shared/envtest, or KOPFGEN_E2E_KUBECONFIG), each
 * figure printed beside the same figure of a yardstick build measured in the same run:
 *  1. backlog: N MyResource objects exist (default 2,000; `KOPFGEN_BENCH_OBJECTS` or argv[3]);
 *     the operator starts, lists them and brings every one to status-written: objects/s.
 *  2. burst: with those N watched, M more (default 2,000; `KOPFGEN_BENCH_BURST`) are created 32 at
 *     a time while the operator runs: objects/s from first create to last status written, and
 *     created→status latency (p50, p99).
 *  3. paced: 100 objects created 20/s: created→status latency without queueing.
 *  4. the operator process's peak RSS and CPU, and the API server's and etcd's CPU over the run
 *     (read from /proc), per object handled: where the time goes.
 * The yardstick is another built checkout of kopfgen (`KOPFGEN_BENCH_BASE`, default `../base` when it
 * holds a `dist`): the code before a change, run against the same API server in a namespace of its
 * own, alternating with this build for `KOPFGEN_BENCH_ROUNDS` rounds (default 1; the yardstick goes first
 * in odd rounds, this build in even ones, since each run leaves the server a little busier for the
 * next); ratios are this build's figure over the yardstick's (the best round of each). Without a yardstick only this build runs.
 * `KOPFGEN_BENCH_NEW` names the checkout measured as "this build" (default: the current directory).
 * `KOPFGEN_BENCH_PROFILE=<dir>` runs each operator with `node --cpu-prof`, its profile written to <dir>.
 * `CONCURRENCY` sets the operator's bound on objects handled at once (default: the operator's own).
 * The operator runs with leader election on (a Lease in the run's namespace), as a Deployment does,
 * so the numbers include renewing the lease and the fenced write path; `LEADER_ELECTION=0` runs
 * without it. The handler is trivial (returns { phase: "Done" }), so this measures the runtime and
 * the server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { defineResource, type KubernetesObject } from '../src/runtime/index.js';
import { createLogger } from '../src/runtime/effects/log.js';
import { watchResource } from '../src/runtime/watcher.js';
import { applyCrd, skip, startCluster, stopCluster, type Cluster } from '../test/helpers/envtest.js';

const N = Number(process.env.KOPFGEN_BENCH_OBJECTS ?? process.argv[3] ?? 2_000);
const M = Number(process.env.KOPFGEN_BENCH_BURST ?? 2_000);
const ROUNDS = Number(process.env.KOPFGEN_BENCH_ROUNDS ?? 1);
const PARALLEL = 32;
const CONCURRENCY = process.env.CONCURRENCY;
const BASE = resolve(process.env.KOPFGEN_BENCH_BASE ?? '../base');
/** The build measured (default: this checkout's). */
const NEW = resolve(process.env.KOPFGEN_BENCH_NEW ?? '.');
const PROFILE = process.env.KOPFGEN_BENCH_PROFILE;

const myResource = defineResource({
  group: 'example.com',
  version: 'v1',
  plural: 'myresources',
  kind: 'MyResource',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [],
});

/** The operator, as a user's module would start it; `root` is the kopfgen checkout whose build it runs. */
const operatorScript = (ns: string) => `
import { Operator } from './dist/src/runtime/operator.js';
import { defineHandler, defineResource, Registry } from './dist/src/runtime/index.js';
import { createLogger } from './dist/src/runtime/effects/log.js';
const registry = new Registry();
const r = defineResource({ group: 'example.com', version: 'v1', plural: 'myresources', kind: 'MyResource', scope: 'Namespaced', statusSubresource: true, statusRecords: true, printerColumns: [] });
defineHandler(r, 'myapp').onCreate(() => ({ phase: 'Done' }), { registry });
const concurrency = process.env.CONCURRENCY ? Number(process.env.CONCURRENCY) : undefined;
const operator = new Operator({ registry, namespace: '${ns}', logger: createLogger({ level: 'warn' }), concurrency, leaderElection: process.env.LEADER_ELECTION === '0' ? false : { id: 'kopfgen-bench', namespace: '${ns}' } });
await operator.start();
while (!operator.isLeader()) await new Promise((r) => setTimeout(r, 10));
process.stdout.write('ready\\n');
process.on('SIGTERM', async () => {
  const known = operator.known();
  await operator.stop();
  const usage = process.resourceUsage();
  process.stdout.write(JSON.stringify({ known, peakRssMB: usage.maxRSS / 1024, cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6 }) + '\\n');
  process.exit(0);
});
`;

interface Figures {
  backlogPerSecond: number;
  burstPerSecond: number;
  burstP50: number;
  burstP99: number;
  pacedP50: number;
  pacedP99: number;
  peakRssMB: number;
  /** CPU milliseconds per object handled (backlog + burst + paced), by process. */
  operatorCpuMs: number;
  apiServerCpuMs: number;
  etcdCpuMs: number;
}

async function createMany(
  cluster: Cluster,
  ns: string,
  names: string[],
  created: Map<string, number>,
  parallel = PARALLEL,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const name = names[next++];
      const body = { apiVersion: 'example.com/v1', kind: 'MyResource', metadata: { name }, spec: { image: 'nginx' } };
      created.set(name, performance.now());
      await cluster.client.request('POST', `/apis/example.com/v1/namespaces/${ns}/myresources`, { body });
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/**
 * Records when each object's status first says Done, from the bench process's own watch (the
 * runtime's list+watch loop, which survives the API server closing a busy watcher).
 */
function watchDone(cluster: Cluster, ns: string, done: Map<string, number>, signal: AbortSignal): Promise<void> {
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
    namespace: ns,
    signal,
    logger: createLogger({ level: 'error' }),
  });
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Created → status written, for an object known to be done. */
const latency = (done: Map<string, number>, created: Map<string, number>, name: string) =>
  (done.get(name) ?? Number.NaN) - (created.get(name) ?? Number.NaN);

const pct = (values: number[], p: number) =>
  values.sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))];

/** CPU seconds a process of the cluster has used so far (utime + stime from /proc), or NaN when unknown. */
function clusterCpu(cluster: Cluster, name: 'kube-apiserver' | 'etcd'): number {
  try {
    const pid = readFileSync(`${cluster.dir}/${name}.pid`, 'utf8').trim();
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** One full run of the scenario with the operator of the checkout at `root`, in namespace `ns`. */
async function run(cluster: Cluster, root: string, ns: string, label: string): Promise<Figures> {
  await cluster.client
    .request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })
    .catch(() => undefined);
  const abort = new AbortController();
  let child: ChildProcess | undefined;
  try {
    const created = new Map<string, number>();
    const done = new Map<string, number>();
    await createMany(
      cluster,
      ns,
      Array.from({ length: N }, (_, i) => `obj-${i}`),
      created,
    );
    void watchDone(cluster, ns, done, abort.signal);
    const cpu0 = { api: clusterCpu(cluster, 'kube-apiserver'), etcd: clusterCpu(cluster, 'etcd') };
    const profile = PROFILE
      ? ['--cpu-prof', '--cpu-prof-dir', resolve(PROFILE), '--cpu-prof-name', `${ns}.cpuprofile`]
      : [];
    const operator = spawn(process.execPath, [...profile, '--input-type=module', '-e', operatorScript(ns)], {
      cwd: root,
      env: { ...process.env, KUBECONFIG: cluster.kubeconfig, ...(CONCURRENCY ? { CONCURRENCY } : {}) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child = operator;
    let out = '';
    operator.stdout.on('data', (d) => (out += d));
    const started = performance.now();
    await until(`${label}: all backlog objects Done`, () => done.size >= N, 1_800_000);
    const backlogSeconds = (performance.now() - started) / 1000;

    const burst = Array.from({ length: M }, (_, i) => `burst-${i}`);
    const t1 = performance.now();
    await createMany(cluster, ns, burst, created);
    await until(`${label}: all burst objects Done`, () => burst.every((name) => done.has(name)), 600_000);
    const burstSeconds = (performance.now() - t1) / 1000;
    const burstLatencies = burst.map((name) => latency(done, created, name));

    // Unhurried: one create every 50 ms, so latency shows the pipeline, not a queue.
    const paced = Array.from({ length: 100 }, (_, i) => `paced-${i}`);
    for (const name of paced) {
      await createMany(cluster, ns, [name], created, 1);
      await new Promise((r) => setTimeout(r, 50));
    }
    await until(`${label}: all paced objects Done`, () => paced.every((name) => done.has(name)), 120_000);
    const pacedLatencies = paced.map((name) => latency(done, created, name));
    operator.kill('SIGTERM');
    await new Promise((resolve) => operator.on('exit', resolve));
    const handled = N + M + paced.length;
    const cpu1 = { api: clusterCpu(cluster, 'kube-apiserver'), etcd: clusterCpu(cluster, 'etcd') };
    const stats = JSON.parse(out.trim().split('\n').pop() ?? '{}') as { peakRssMB: number; cpuSeconds: number };
    const figures: Figures = {
      backlogPerSecond: N / backlogSeconds,
      burstPerSecond: M / burstSeconds,
      burstP50: pct(burstLatencies, 50),
      burstP99: pct(burstLatencies, 99),
      pacedP50: pct(pacedLatencies, 50),
      pacedP99: pct(pacedLatencies, 99),
      peakRssMB: stats.peakRssMB,
      operatorCpuMs: (stats.cpuSeconds * 1000) / handled,
      // The bench's own creates and watch are in these too, the same for both builds.
      apiServerCpuMs: ((cpu1.api - cpu0.api) * 1000) / handled,
      etcdCpuMs: ((cpu1.etcd - cpu0.etcd) * 1000) / handled,
    };
    console.log(
      `${label}: backlog ${figures.backlogPerSecond.toFixed(0)}/s, burst ${figures.burstPerSecond.toFixed(0)}/s ` +
        `(p50 ${figures.burstP50.toFixed(0)} ms, p99 ${figures.burstP99.toFixed(0)} ms), paced p50 ${figures.pacedP50.toFixed(0)} ms, ` +
        `peak RSS ${figures.peakRssMB.toFixed(0)} MB; CPU per object: operator ${figures.operatorCpuMs.toFixed(2)} ms, ` +
        `kube-apiserver ${figures.apiServerCpuMs.toFixed(2)} ms, etcd ${figures.etcdCpuMs.toFixed(2)} ms`,
    );
    return figures;
  } finally {
    // A wait that timed out must not leave the operator running against a stopped API server.
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    abort.abort();
    // The next run starts on an API server without this run's objects (no finalizers: they go at once).
    await cluster.client.request('DELETE', `/apis/example.com/v1/namespaces/${ns}/myresources`).catch(() => undefined);
  }
}

type Better = 'higher' | 'lower';
const ROWS: { key: keyof Figures; name: string; unit: string; better: Better }[] = [
  { key: 'backlogPerSecond', name: `backlog of ${N}`, unit: 'objects/s', better: 'higher' },
  { key: 'burstPerSecond', name: `burst of ${M}`, unit: 'objects/s', better: 'higher' },
  { key: 'burstP50', name: 'burst created→status p50', unit: 'ms', better: 'lower' },
  { key: 'burstP99', name: 'burst created→status p99', unit: 'ms', better: 'lower' },
  { key: 'pacedP50', name: 'paced created→status p50', unit: 'ms', better: 'lower' },
  { key: 'peakRssMB', name: 'operator peak RSS', unit: 'MB', better: 'lower' },
  { key: 'operatorCpuMs', name: 'operator CPU per object', unit: 'ms', better: 'lower' },
  { key: 'apiServerCpuMs', name: 'kube-apiserver CPU per object', unit: 'ms', better: 'lower' },
  { key: 'etcdCpuMs', name: 'etcd CPU per object', unit: 'ms', better: 'lower' },
];

/** Each figure's best over the rounds. */
function best(runs: Figures[]): Figures {
  const out = { ...runs[0] };
  for (const row of ROWS) {
    const values = runs.map((r) => r[row.key]);
    out[row.key] = row.better === 'higher' ? Math.max(...values) : Math.min(...values);
  }
  return out;
}

async function main(): Promise<void> {
  if (skip) {
    console.log(`runtime: skipped (${skip})`);
    return;
  }
  const withBase = existsSync(resolve(BASE, 'dist/src/runtime/operator.js'));
  console.log(
    withBase
      ? `yardstick: the build in ${BASE}, alternating with this build, ${ROUNDS} round(s)`
      : `no yardstick (${BASE} has no dist/src/runtime/operator.js; set KOPFGEN_BENCH_BASE): this build only`,
  );
  const cluster = startCluster();
  try {
    await applyCrd(cluster, 'crds/myresource.yaml', 'example.com', 'v1', 'myresources');
    const mine: Figures[] = [];
    const base: Figures[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // Which build goes first alternates: a run leaves the API server and etcd a little busier for the next.
      const yardstick = async () => {
        if (withBase) base.push(await run(cluster, BASE, `bench-base-${round}`, `yardstick, round ${round}`));
      };
      const ours = async () =>
        void mine.push(await run(cluster, NEW, `bench-new-${round}`, `this build, round ${round}`));
      for (const turn of round % 2 === 1 ? [yardstick, ours] : [ours, yardstick]) await turn();
    }
    const now = best(mine);
    const before = withBase ? best(base) : undefined;
    console.log(`\n| figure (best of ${ROUNDS}) | this build | yardstick | ratio |\n|---|---:|---:|---:|`);
    for (const row of ROWS) {
      const a = now[row.key];
      const b = before?.[row.key];
      const digits = row.unit === 'ms' && a < 10 ? 2 : 0;
      const ratio = b === undefined ? '' : `${(a / b).toFixed(2)}×`;
      const old = b === undefined ? '' : `${b.toFixed(digits)} ${row.unit}`;
      console.log(`| ${row.name} | ${a.toFixed(digits)} ${row.unit} | ${old} | ${ratio} |`);
    }
  } finally {
    stopCluster(cluster);
  }
}

await main();
