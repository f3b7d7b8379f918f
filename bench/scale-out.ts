/**
 * Scale-out (issue 32, "Scale"): does a second and third replica sharing the hash ranges
 * (`kopfgen run --shards K`, ARCHITECTURE.md "Scaling out") multiply what the operator gets through?
 * A backlog of OBJECTS MyResources exists in a namespace of its own; then R replicas start at once
 * (bin/kopfgen.js, as a Deployment's pods would run, each with its own POD_NAME), every one with
 * `--shards SHARDS --concurrency 4`, and bring every object to status Done. Two handlers:
 *  - I/O-bound: 200 ms awaited per object (a cloud API, a database), so one process is bound by its
 *    4 slots (at most 20 objects/s), not by the 2 cores: 3 replicas should reach ≥ 2.5× one's objects/s;
 *  - CPU-bound: CPU_MS of busy loop per object. Here replicas only add processes competing for the
 *    machine's cores (2 on the bench machine, shared with the API server and etcd): no gain is to be
 *    expected beyond the cores, and the figure says so.
 * Per run: objects/s over the steady part (from the first poll at which at least 10 % are Done and the
 * ranges have settled, every replica holding at most ⌈K/R⌉ of them by its /metrics, to 90 % Done: start-up
 * and the ranges moving between replicas started together are not in that rate) and over the whole
 * (from the replicas' spawn to the last Done), and the machine's load average over the run (the
 * 2-core bench machine is shared: a load above the core count caps every figure); per replica the objects it handled (its handler writes
 * POD_NAME into the status: its share of the ranges, which is what its store holds once they settle),
 * `kopfgen_shard_ranges_held` from its /metrics when exported, and its peak RSS (VmHWM).
 * Skipped, saying so, when `kopfgen run` has no `--shards` (asked of the CLI's help) or without envtest.
 * Linux only (/proc). `KOPFGEN_BENCH_SCALE_OBJECTS` sets the backlog (default 1,000).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { messageOf } from '../src/runtime/error-message.js';
import { applyCrd, skip, startCluster, stopCluster, type Cluster } from '../test/helpers/envtest.js';
import { freePort } from '../test/helpers/free-port.js';

const OBJECTS = Number(process.env.KOPFGEN_BENCH_SCALE_OBJECTS ?? 1_000);
const SHARDS = 32;
const CONCURRENCY = 4;
const IO_MS = 200;
const CPU_MS = 20;
const TARGET_RATIO = 2.5;
const ROOT = resolve('.');

/** A handler module: the status names the replica, so the share each handled is read back from the objects. */
function handlerModule(body: string): string {
  return `import { defineHandler, defineResource } from 'kopfgen/runtime';
const myResource = defineResource({ group: 'example.com', version: 'v1', plural: 'myresources', kind: 'MyResource',
  scope: 'Namespaced', statusSubresource: true, printerColumns: [] });
defineHandler(myResource, 'myapp').onCreate(async () => {
${body}
  return { phase: 'Done', replica: process.env.POD_NAME };
});
`;
}

const CASES = [
  {
    name: `I/O-bound (${IO_MS} ms awaited per object)`,
    file: 'io.mjs',
    body: `  await new Promise((resolve) => setTimeout(resolve, ${IO_MS}));`,
    target: true,
  },
  {
    name: `CPU-bound (${CPU_MS} ms of busy loop per object)`,
    file: 'cpu.mjs',
    body: `  const end = performance.now() + ${CPU_MS};\n  while (performance.now() < end);`,
    target: false,
  },
];

/** Whether this build's `kopfgen run` takes `--shards`. */
function runHasShards(): boolean {
  const help = spawnSync(process.execPath, [join(ROOT, 'bin/kopfgen.js'), 'run', '--help'], { encoding: 'utf8' });
  return /--shards\b/.test(help.stdout ?? '');
}

/** Peak RSS (VmHWM) of a live process, in MB. */
function peakRssMB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]) / 1024;
}

/**
 * `kopfgen_shard_ranges_held` from a replica's /metrics: undefined when it does not export the gauge,
 * `'unreachable'` while its health server is not up yet (not settled, not "no gauge").
 */
async function rangesHeld(port: number): Promise<number | undefined | 'unreachable'> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const line = /^kopfgen_shard_ranges_held(?:\{[^}]*\})? (\d+)/m.exec(text);
    return line ? Number(line[1]) : undefined;
  } catch {
    return 'unreachable';
  }
}

interface Replica {
  name: string;
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<void>;
}

async function startReplica(cluster: Cluster, cwd: string, module: string, ns: string, name: string) {
  const port = await freePort();
  const args = [
    join(ROOT, 'bin/kopfgen.js'),
    'run',
    module,
    '-n',
    ns,
    '--shards',
    String(SHARDS),
    '--concurrency',
    String(CONCURRENCY),
    '--leader-election-id',
    `scale-${ns}`,
    '--leader-election-namespace',
    ns,
    '--health-port',
    String(port),
    '--health-host',
    '127.0.0.1',
  ];
  const env = { ...process.env, KUBECONFIG: cluster.kubeconfig, POD_NAME: name, POD_NAMESPACE: ns };
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr?.on('data', (d) => (output = (output + d).slice(-20_000)));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  return { name, child, port, output: () => output, exited } satisfies Replica;
}

async function stopReplica(replica: Replica): Promise<void> {
  replica.child.kill('SIGTERM');
  await Promise.race([replica.exited, new Promise((r) => setTimeout(r, 15_000))]);
  replica.child.kill('SIGKILL');
  await replica.exited;
}

async function createBacklog(cluster: Cluster, ns: string): Promise<string> {
  const path = `/apis/example.com/v1/namespaces/${ns}/myresources`;
  await cluster.client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
  });
  let next = 0;
  const create = async () => {
    while (next < OBJECTS) {
      const name = `obj-${next++}`;
      const body = { apiVersion: 'example.com/v1', kind: 'MyResource', metadata: { name }, spec: { image: 'nginx' } };
      await cluster.client.request('POST', path, { body });
    }
  };
  await Promise.all(Array.from({ length: 32 }, create));
  return path;
}

interface RunResult {
  steady: number;
  whole: number;
  /** Seconds from spawn until the ranges settled (undefined when /metrics has no ranges gauge). */
  settledAfter?: number;
  /** The 1-minute load average at the end of the run. */
  load: number;
  perReplica: { name: string; handled: number; ranges?: number; peakMB: number }[];
}

type Listed = { items: { status?: { myapp?: { phase?: string; replica?: string } } }[] };

/** One run: the backlog, R replicas started together, polled until every object is Done. */
async function run(cluster: Cluster, cwd: string, module: string, ns: string, replicas: number): Promise<RunResult> {
  const path = await createBacklog(cluster, ns);
  const started = performance.now();
  const running = await Promise.all(
    Array.from({ length: replicas }, (_, i) => startReplica(cluster, cwd, module, ns, `replica-${i}`)),
  );
  const marks: { at: number; done: number; settled: boolean }[] = [];
  const most = Math.ceil(SHARDS / replicas);
  const settled = async () => {
    const held = await Promise.all(running.map((r) => rangesHeld(r.port)));
    if (held.includes('unreachable')) return false;
    if (held.includes(undefined)) return true; // no gauge: the 10 % mark alone
    const counts = held.map((h) => (typeof h === 'number' ? h : 0));
    return counts.reduce((a, b) => a + b, 0) === SHARDS && Math.max(...counts) <= most;
  };
  try {
    const deadline = Date.now() + 600_000;
    let listed: Listed = { items: [] };
    for (;;) {
      listed = await cluster.client.request<Listed>('GET', path);
      const done = listed.items.filter((o) => o.status?.myapp?.phase === 'Done').length;
      marks.push({ at: performance.now(), done, settled: await settled() });
      if (done >= OBJECTS) break;
      const gone = running.find((r) => r.child.exitCode !== null);
      if (gone) throw new Error(`${gone.name} exited (${gone.child.exitCode}): ${gone.output().slice(-2000)}`);
      if (Date.now() > deadline) throw new Error(`${OBJECTS - done} objects not Done within 10 minutes`);
      await new Promise((r) => setTimeout(r, 500));
    }
    // From the first poll with 10 % Done and the ranges settled to the first with 90 % Done.
    const last = marks[marks.length - 1];
    const high = marks.find((m) => m.done >= OBJECTS * 0.9) ?? last;
    const low = marks.find((m) => m.done >= OBJECTS * 0.1 && m.settled && m.at < high.at) ?? marks[0];
    const firstSettled = marks.find((m) => m.settled);
    const steady = (high.done - low.done) / Math.max((high.at - low.at) / 1000, 0.001);
    const whole = OBJECTS / ((marks[marks.length - 1].at - started) / 1000);
    const perReplica = await Promise.all(
      running.map(async (r) => ({
        name: r.name,
        handled: listed.items.filter((o) => o.status?.myapp?.replica === r.name).length,
        ranges: await rangesHeld(r.port).then((h) => (typeof h === 'number' ? h : undefined)),
        peakMB: peakRssMB(r.child.pid ?? 0),
      })),
    );
    const settledAfter = firstSettled && (firstSettled.at - started) / 1000;
    return { steady, whole, perReplica, settledAfter, load: loadavg()[0] };
  } finally {
    await Promise.all(running.map(stopReplica));
    await cluster.client.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
  }
}

function describeRun(replicas: number, r: RunResult): string {
  const shares = r.perReplica
    .map(
      (p) =>
        `${p.name} handled ${p.handled} (${((100 * p.handled) / OBJECTS).toFixed(0)} %)` +
        `${p.ranges === undefined ? '' : `, ${p.ranges} ranges held`}, peak RSS ${p.peakMB.toFixed(0)} MB`,
    )
    .join('; ');
  return (
    `  ${replicas} replica(s): ${r.steady.toFixed(1)} objects/s steady, ${r.whole.toFixed(1)} objects/s ` +
    `from spawn to the last Done (ranges settled ${r.settledAfter === undefined ? '?' : r.settledAfter.toFixed(1)} s ` +
    `after spawn; load average ${r.load.toFixed(1)} on ${cpus().length} cores)\n    ${shares}`
  );
}

async function main(): Promise<void> {
  if (skip) {
    console.log(`scale-out: skipped (${skip})`);
    return;
  }
  if (process.platform !== 'linux') {
    console.log('scale-out: skipped (reads /proc: Linux only)');
    return;
  }
  if (!runHasShards()) {
    console.log('scale-out: skipped: run --shards not available');
    return;
  }
  const cluster = startCluster();
  const dir = mkdtempSync(join(tmpdir(), 'kopfgen-scale-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(ROOT, join(dir, 'node_modules', 'kopfgen'), 'dir');
    writeFileSync(join(dir, 'package.json'), '{ "name": "scale-bench", "private": true }\n');
    await applyCrd(cluster, 'crds/myresource.yaml', 'example.com', 'v1', 'myresources');
    console.log(
      `${OBJECTS} objects backlog, --shards ${SHARDS} --concurrency ${CONCURRENCY}, replicas started together ` +
        '(the whole rate includes their start-up and the ranges settling among them)',
    );
    for (const c of CASES) {
      writeFileSync(join(dir, c.file), handlerModule(c.body));
      console.log(`${c.name}:`);
      try {
        const one = await run(cluster, dir, join(dir, c.file), `scale-${c.file.slice(0, -4)}-1`, 1);
        console.log(describeRun(1, one));
        const three = await run(cluster, dir, join(dir, c.file), `scale-${c.file.slice(0, -4)}-3`, 3);
        console.log(describeRun(3, three));
        const ratio = three.steady / one.steady;
        console.log(
          `  3 replicas / 1: ${ratio.toFixed(2)}× steady, ${(three.whole / one.whole).toFixed(2)}× whole` +
            (c.target
              ? ` (target ≥ ${TARGET_RATIO}×: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'})`
              : ' (no target: 2 cores run every replica, the API server and etcd; more processes cannot add CPU)'),
        );
      } catch (error) {
        console.log(`  failed: ${messageOf(error).split('\n').slice(0, 5).join(' | ')}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    stopCluster(cluster);
  }
}

await main();
