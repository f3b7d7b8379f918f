/**
 * Runtime benchmark against a real API server (../shared/envtest, or KOPFGEN_E2E_KUBECONFIG), each
 * figure printed beside the same figure of two yardsticks measured in the same run: the floor
 * (`floor.ts`: the cheapest client that makes the same writes as the runtime, per object, on the same
 * server, at the same concurrency) and another built checkout of kopfgen (the code before a change):
 *  1. backlog: N MyResource objects exist (default 2,000; `KOPFGEN_BENCH_OBJECTS` or argv[3]);
 *     the process starts, lists them and brings every one to status-written: objects/s from the
 *     moment it is ready (leading) to the last status.
 *  2. burst: with those N watched, M more (default 2,000; `KOPFGEN_BENCH_BURST`) are created 32 at
 *     a time while it runs: objects/s from first create to last status written, and
 *     created→status latency (p50, p99).
 *  3. paced: 100 objects created 20/s: created→status latency without queueing.
 *  4. the process's peak RSS and CPU, and the API server's and etcd's CPU over the run
 *     (read from /proc), per object handled: where the time goes.
 * Each way also reports the writes per object with status conditions and observedGeneration kept by the
 * runtime (the descriptor's `statusConditions`, `statusObservedGeneration`): they must be the same requests.
 * Both ways the runtime keeps its records: in `status.kopfgen` (the CRD's status keeps unknown
 * fields: one `/status` write per object) and in annotations (a CRD whose status schema is strict:
 * the status through `/status`, the records through the object, two writes).
 * Targets: throughput >= 0.8x the floor's, burst p50 <= 1.25x the floor's.
 * The yardstick build is `KOPFGEN_BENCH_BASE` (default `../base` when it holds a `dist`), run against the
 * same API server in a namespace of its own, alternating with this build and the floor for
 * `KOPFGEN_BENCH_ROUNDS` rounds (default 1); ratios are this build's figure over the yardstick's (the
 * best round of each). Without a yardstick build only this build and the floor run.
 * `KOPFGEN_BENCH_NEW` names the checkout measured as "this build" (default: the current directory).
 * `KOPFGEN_BENCH_PROFILE=<dir>` runs each operator with `node --cpu-prof`, its profile written to <dir>.
 * `CONCURRENCY` sets the bound on objects handled at once, the same for the runtime and the floor
 * (default 32; `CONCURRENCY=adaptive` runs the runtime with its own adaptive limit, the floor at 32).
 * The operator runs with leader election on (a Lease in the run's namespace), as a Deployment does,
 * so the numbers include renewing the lease and the fenced write path; `LEADER_ELECTION=0` runs
 * without it. The handler is trivial (returns { phase: "Done" }), so this measures the runtime and
 * the server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { defineResource, type KubernetesObject, type ResourceDescriptor } from '../src/runtime/index.js';
import { createLogger } from '../src/runtime/effects/log.js';
import { watchResource } from '../src/runtime/watcher.js';
import { applyCrd, skip, startCluster, stopCluster, type Cluster } from '../test/helpers/envtest.js';
import { myResourceDescriptor } from '../test/helpers/resource-env.js';
import { captureWrites } from './floor.js';

const N = Number(process.env.KOPFGEN_BENCH_OBJECTS ?? process.argv[3] ?? 2_000);
const M = Number(process.env.KOPFGEN_BENCH_BURST ?? 2_000);
const ROUNDS = Number(process.env.KOPFGEN_BENCH_ROUNDS ?? 1);
const PARALLEL = 32;
/** The runtime's bound on objects at once (`adaptive`: its own AIMD limit); the floor's is the same number, else 32. */
const CONCURRENCY = process.env.CONCURRENCY ?? '32';
const FLOOR_CONCURRENCY = CONCURRENCY === 'adaptive' ? '32' : CONCURRENCY;
const BASE = resolve(process.env.KOPFGEN_BENCH_BASE ?? '../base');
/** The build measured (default: this checkout's). */
const NEW = resolve(process.env.KOPFGEN_BENCH_NEW ?? '.');
const PROFILE = process.env.KOPFGEN_BENCH_PROFILE;
const FLOOR = join(dirname(fileURLToPath(import.meta.url)), 'floor.js');

/** One way the runtime keeps its records, on a CRD of its own. */
interface Mode {
  name: string;
  resource: ResourceDescriptor;
  /** The CRD's file. */
  crd: string;
}

const descriptor = (group: string, statusRecords: boolean) =>
  defineResource({ ...myResourceDescriptor(), group, statusRecords });

/** `crds/myresource.yaml` under another group, its status schema strict: records cannot live there. */
function strictCrd(dir: string): string {
  const file = join(dir, 'strict-myresource.yaml');
  const text = readFileSync('crds/myresource.yaml', 'utf8')
    .replace('name: myresources.example.com', 'name: myresources.strict.example.com')
    .replace('group: example.com', 'group: strict.example.com')
    .replace(
      /( +)x-kubernetes-preserve-unknown-fields: true\n/,
      (_, indent: string) =>
        `${indent}properties:\n${indent}  myapp:\n${indent}    type: object\n${indent}    properties:\n${indent}      phase:\n${indent}        type: string\n`,
    );
  writeFileSync(file, text);
  return file;
}

/** The operator, as a user's module would start it; `root` is the kopfgen checkout whose build it runs. */
const operatorScript = (ns: string, resource: ResourceDescriptor) => `
import { Operator } from './dist/src/runtime/operator.js';
import { defineHandler, defineResource, Registry } from './dist/src/runtime/index.js';
import { createLogger } from './dist/src/runtime/effects/log.js';
// As \`kopfgen run\` does (heap-settings.ts; absent from builds before it).
await import('./dist/src/runtime/heap-settings.js').then((m) => m.keepYoungGenerationSmall(), () => undefined);
const registry = new Registry();
const r = defineResource(${JSON.stringify(resource)});
defineHandler(r, 'myapp').onCreate(() => ({ phase: 'Done' }), { registry });
const concurrency = process.env.CONCURRENCY === 'adaptive' ? undefined : Number(process.env.CONCURRENCY);
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
  resource: ResourceDescriptor,
  ns: string,
  names: string[],
  created: Map<string, number>,
  parallel = PARALLEL,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const name = names[next++];
      const body = {
        apiVersion: `${resource.group}/v1`,
        kind: 'MyResource',
        metadata: { name },
        spec: { image: 'nginx' },
      };
      created.set(name, performance.now());
      await cluster.client.request('POST', `/apis/${resource.group}/v1/namespaces/${ns}/myresources`, { body });
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/**
 * Records when each object's status first says Done, from the bench process's own watch (the
 * runtime's list+watch loop, which survives the API server closing a busy watcher).
 */
function watchDone(
  cluster: Cluster,
  resource: ResourceDescriptor,
  ns: string,
  done: Map<string, number>,
  signal: AbortSignal,
): Promise<void> {
  const consumer = {
    upsert(object: KubernetesObject) {
      const name = object.metadata?.name;
      const status = object.status as { myapp?: { phase?: string } } | undefined;
      if (name && status?.myapp?.phase === 'Done' && !done.has(name)) done.set(name, performance.now());
    },
    delete() {},
    listed() {},
  };
  return watchResource(cluster.client, resource, consumer, {
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

/** What handles the objects: a build's operator, or the floor. */
type Handler = (cluster: Cluster, ns: string) => ChildProcess;

function operatorOf(root: string, resource: ResourceDescriptor): Handler {
  return (cluster, ns) => {
    const profile = PROFILE
      ? ['--cpu-prof', '--cpu-prof-dir', resolve(PROFILE), '--cpu-prof-name', `${ns}.cpuprofile`]
      : [];
    return spawn(process.execPath, [...profile, '--input-type=module', '-e', operatorScript(ns, resource)], {
      cwd: root,
      env: { ...process.env, KUBECONFIG: cluster.kubeconfig, CONCURRENCY },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
  };
}

function floorOf(resource: ResourceDescriptor, templates: string): Handler {
  return (cluster, ns) =>
    spawn(
      process.execPath,
      [
        FLOOR,
        '--run',
        resource.group,
        resource.version,
        resource.plural,
        resource.kind,
        ns,
        templates,
        FLOOR_CONCURRENCY,
      ],
      { env: { ...process.env, KUBECONFIG: cluster.kubeconfig }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
}

/** One full run of the scenario with `handler` handling the objects of `resource` in namespace `ns`. */
async function run(cluster: Cluster, resource: ResourceDescriptor, handler: Handler, ns: string, label: string) {
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
      resource,
      ns,
      Array.from({ length: N }, (_, i) => `obj-${i}`),
      created,
    );
    void watchDone(cluster, resource, ns, done, abort.signal);
    const cpu0 = { api: clusterCpu(cluster, 'kube-apiserver'), etcd: clusterCpu(cluster, 'etcd') };
    const operator = handler(cluster, ns);
    child = operator;
    let out = '';
    let ready: number | undefined;
    operator.stdout?.on('data', (d) => {
      out += d;
      if (ready === undefined && out.includes('ready\n')) ready = performance.now();
    });
    // From the moment it is ready (leading, for the runtime): the list and the writes, not the start-up.
    await until(`${label}: ready`, () => ready !== undefined, 120_000);
    await until(`${label}: all backlog objects Done`, () => done.size >= N, 1_800_000);
    const backlogSeconds = (performance.now() - (ready ?? 0)) / 1000;

    const burst = Array.from({ length: M }, (_, i) => `burst-${i}`);
    const t1 = performance.now();
    await createMany(cluster, resource, ns, burst, created);
    await until(`${label}: all burst objects Done`, () => burst.every((name) => done.has(name)), 600_000);
    const burstSeconds = (performance.now() - t1) / 1000;
    const burstLatencies = burst.map((name) => latency(done, created, name));

    // Unhurried: one create every 50 ms, so latency shows the pipeline, not a queue.
    const paced = Array.from({ length: 100 }, (_, i) => `paced-${i}`);
    for (const name of paced) {
      await createMany(cluster, resource, ns, [name], created, 1);
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
      // The bench's own creates and watch are in these too, the same for every run.
      apiServerCpuMs: ((cpu1.api - cpu0.api) * 1000) / handled,
      etcdCpuMs: ((cpu1.etcd - cpu0.etcd) * 1000) / handled,
    };
    console.log(
      `${label}: backlog ${figures.backlogPerSecond.toFixed(0)}/s, burst ${figures.burstPerSecond.toFixed(0)}/s ` +
        `(p50 ${figures.burstP50.toFixed(0)} ms, p99 ${figures.burstP99.toFixed(0)} ms), paced p50 ${figures.pacedP50.toFixed(0)} ms, ` +
        `peak RSS ${figures.peakRssMB.toFixed(0)} MB; CPU per object: process ${figures.operatorCpuMs.toFixed(2)} ms, ` +
        `kube-apiserver ${figures.apiServerCpuMs.toFixed(2)} ms, etcd ${figures.etcdCpuMs.toFixed(2)} ms`,
    );
    return figures;
  } finally {
    // A wait that timed out must not leave the operator running against a stopped API server.
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    abort.abort();
    // The next run starts on an API server without this run's objects (no finalizers: they go at once).
    await cluster.client
      .request('DELETE', `/apis/${resource.group}/v1/namespaces/${ns}/myresources`)
      .catch(() => undefined);
  }
}

type Better = 'higher' | 'lower';
const ROWS: { key: keyof Figures; name: string; unit: string; better: Better; target?: string }[] = [
  { key: 'backlogPerSecond', name: `backlog of ${N}`, unit: 'objects/s', better: 'higher', target: '>= 0.8x' },
  { key: 'burstPerSecond', name: `burst of ${M}`, unit: 'objects/s', better: 'higher', target: '>= 0.8x' },
  { key: 'burstP50', name: 'burst created→status p50', unit: 'ms', better: 'lower', target: '<= 1.25x' },
  { key: 'burstP99', name: 'burst created→status p99', unit: 'ms', better: 'lower' },
  { key: 'pacedP50', name: 'paced created→status p50', unit: 'ms', better: 'lower' },
  { key: 'peakRssMB', name: 'process peak RSS', unit: 'MB', better: 'lower' },
  { key: 'operatorCpuMs', name: 'process CPU per object', unit: 'ms', better: 'lower' },
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
    (withBase
      ? `yardsticks: the floor, and the build in ${BASE}; alternating with this build, ${ROUNDS} round(s)`
      : `yardstick: the floor (${BASE} has no dist/src/runtime/operator.js; set KOPFGEN_BENCH_BASE for a build before)`) +
      `; concurrency ${CONCURRENCY} (the floor ${FLOOR_CONCURRENCY})`,
  );
  const work = mkdtempSync(join(tmpdir(), 'kopfgen-bench-runtime-'));
  const cluster = startCluster();
  try {
    const modes: Mode[] = [
      { name: 'records in status.kopfgen', resource: descriptor('example.com', true), crd: 'crds/myresource.yaml' },
      {
        name: 'records in annotations (a strict status schema)',
        resource: descriptor('strict.example.com', false),
        crd: strictCrd(work),
      },
    ];
    for (const [m, mode] of modes.entries()) {
      const { group, version, plural } = mode.resource;
      await applyCrd(cluster, mode.crd, group, version, plural);
      const captureNs = `bench-capture-${m}`;
      await cluster.client
        .request('POST', '/api/v1/namespaces', {
          body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: captureNs } },
        })
        .catch(() => undefined);
      const templates = await captureWrites(cluster.client, mode.resource, captureNs);
      const templatesFile = join(work, `writes-${m}.json`);
      writeFileSync(templatesFile, JSON.stringify(templates));
      const described = (list: typeof templates) =>
        list.map((t) => `${t.method} ${t.path.replace('{{path}}', '<object>')}`).join(', then ');
      console.log(`\n### ${mode.name}: the runtime writes ${described(templates)} per object`);
      // The same resource with status conditions and observedGeneration kept by the runtime (conditions.ts):
      // they ride in the outcome's own write, so the requests per object must be the same.
      const conditionsNs = `${captureNs}-conditions`;
      await cluster.client
        .request('POST', '/api/v1/namespaces', {
          body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: conditionsNs } },
        })
        .catch(() => undefined);
      const withConditions = defineResource({
        ...mode.resource,
        statusConditions: true,
        statusObservedGeneration: true,
      });
      const conditioned = await captureWrites(cluster.client, withConditions, conditionsNs);
      console.log(
        `with status conditions and observedGeneration: ${described(conditioned)} per object ` +
          (conditioned.length === templates.length
            ? `(${conditioned.length} request(s), unchanged)`
            : `(${conditioned.length} request(s) against ${templates.length}: EXTRA REQUESTS)`),
      );
      // In this order in odd rounds (the build before, this build, the floor), reversed in even ones: a run
      // leaves the API server and etcd a little busier for the next.
      const contenders = [
        ...(withBase ? [{ key: 'base', label: 'yardstick build', handler: operatorOf(BASE, mode.resource) }] : []),
        { key: 'new', label: 'this build', handler: operatorOf(NEW, mode.resource) },
        { key: 'floor', label: 'floor', handler: floorOf(mode.resource, templatesFile) },
      ];
      const figures = new Map<string, Figures[]>(contenders.map((c) => [c.key, []]));
      for (let round = 1; round <= ROUNDS; round++)
        for (const c of round % 2 === 1 ? contenders : [...contenders].reverse()) {
          const ns = `bench-${c.key}-${m}-${round}`;
          figures.get(c.key)?.push(await run(cluster, mode.resource, c.handler, ns, `${c.label}, round ${round}`));
        }
      const mine = figures.get('new') ?? [];
      const floor = figures.get('floor') ?? [];
      const base = figures.get('base') ?? [];
      const now = best(mine);
      const bare = best(floor);
      const before = withBase ? best(base) : undefined;
      console.log(
        `\n| ${mode.name} (best of ${ROUNDS}) | this build | floor | ratio (target) | build before | ratio |\n|---|---:|---:|---:|---:|---:|`,
      );
      for (const row of ROWS) {
        const a = now[row.key];
        const f = bare[row.key];
        const b = before?.[row.key];
        const digits = row.unit === 'ms' && a < 10 ? 2 : 0;
        const cell = (v: number | undefined) => (v === undefined ? '' : `${v.toFixed(digits)} ${row.unit}`);
        const ratio = (v: number | undefined) => (v === undefined ? '' : `${(a / v).toFixed(2)}×`);
        console.log(
          `| ${row.name} | ${cell(a)} | ${cell(f)} | ${ratio(f)}${row.target ? ` (${row.target})` : ''} | ${cell(b)} | ${ratio(b)} |`,
        );
      }
    }
  } finally {
    stopCluster(cluster);
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
