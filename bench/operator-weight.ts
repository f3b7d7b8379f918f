/**
 * How light the operator is (issue 12, item 3): a fresh `kopfgen run` process (bin/kopfgen.js, as a
 * user starts it, health server on) with a trivial handler module, against a real API server with 0
 * objects. Measured from outside, so nothing in the process changes for the measurement:
 *  - start-up CPU: the process's user + system CPU (/proc/<pid>/stat) when `/readyz` first answers 200,
 *    i.e. once every watch has listed;
 *  - idle RSS: VmRSS (/proc/<pid>/status) after IDLE_SECONDS of idling with its watches open (V8's
 *    memory reducer gives back the young generation grown during start-up about 20 s after it goes
 *    quiet; the RSS 5 s after ready is printed too).
 * Each variant runs RUNS times (median printed); the targets are kopf's figures on the same server
 * (60 MB, 0.3 s), printed beside each figure with the ratio. Linux only (/proc).
 * KOPFGEN_BENCH_BASE=<a built checkout of another commit> also measures that kopfgen's `run` on the
 * JavaScript module, interleaved with this one, and prints the ratio (before/after in one run).
 * Then memory per watched object: the idle RSS with 10,000 small objects listed
 * (`KOPFGEN_BENCH_WATCHED` sets the count; target 100 MB), before and after.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { messageOf } from '../src/runtime/error-message.js';
import { applyCrd, skip, startCluster, stopCluster, type Cluster } from '../test/helpers/envtest.js';
import { freePort } from '../test/helpers/free-port.js';

const RUNS = Number(process.env.KOPFGEN_BENCH_RUNS ?? 3);
const IDLE_SECONDS = 30;
const EARLY_SECONDS = 5;
const RSS_TARGET_MB = 60;
/** Objects listed for the memory per watched object, and its target. */
const OBJECTS = Number(process.env.KOPFGEN_BENCH_WATCHED ?? 10_000);
const OBJECTS_RSS_TARGET_MB = 100;
const CPU_TARGET_S = 0.3;
/** USER_HZ: the unit of /proc/<pid>/stat's utime and stime (100 on every Linux this runs on). */
const TICKS_PER_SECOND = 100;

const HANDLER = `import { defineHandler, defineResource } from 'kopfgen/runtime';
const myResource = defineResource({ group: 'example.com', version: 'v1', plural: 'myresources', kind: 'MyResource',
  scope: 'Namespaced', statusSubresource: true, printerColumns: [] });
defineHandler(myResource, 'myapp').onCreate(() => ({ phase: 'Done' }));
`;

/** A user's project: its own directory, kopfgen installed (a link to `root`), one module per variant. */
function project(root: string): { dir: string; modules: { name: string; file: string }[] } {
  const dir = mkdtempSync(join(tmpdir(), 'kopfgen-weight-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules', 'kopfgen'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{ "name": "weight-bench", "private": true }\n');
  writeFileSync(join(dir, 'operator.mjs'), HANDLER);
  writeFileSync(join(dir, 'operator.ts'), HANDLER);
  return {
    dir,
    modules: [
      { name: 'JavaScript module (.mjs)', file: join(dir, 'operator.mjs') },
      { name: 'TypeScript module (.ts, through tsx)', file: join(dir, 'operator.ts') },
    ],
  };
}

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name (in parentheses, which may hold spaces): utime is the 14th, stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

function rssMB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  return kb / 1024;
}

async function ready(port: number): Promise<boolean> {
  try {
    const answer = await fetch(`http://127.0.0.1:${port}/readyz`);
    await answer.arrayBuffer();
    return answer.status === 200;
  } catch {
    return false;
  }
}

interface Sample {
  cpu: number;
  /** 5 s after ready. */
  early: number;
  rss: number;
  wallMs: number;
}

async function once(
  kubeconfig: string,
  cwd: string,
  module: string,
  root = resolve('.'),
  args: string[] = [],
): Promise<Sample> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [join(root, 'bin/kopfgen.js'), 'run', module, '--health-port', String(port), '--health-host', '127.0.0.1', ...args],
    { cwd, env: { ...process.env, KUBECONFIG: kubeconfig }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolveExit) => child.on('exit', () => resolveExit()));
  const pid = child.pid ?? 0;
  try {
    const deadline = Date.now() + 60_000;
    while (!(await ready(port))) {
      if (child.exitCode !== null) throw new Error(`the operator exited (${child.exitCode}):\n${stderr}`);
      if (Date.now() > deadline) throw new Error(`the operator was not ready within 60 s:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const cpu = cpuSeconds(pid);
    const wallMs = performance.now() - started;
    await new Promise((r) => setTimeout(r, EARLY_SECONDS * 1000));
    const early = rssMB(pid);
    await new Promise((r) => setTimeout(r, (IDLE_SECONDS - EARLY_SECONDS) * 1000));
    return { cpu, early, rss: rssMB(pid), wallMs };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  if (skip) {
    console.log(`operator weight: skipped (${skip})`);
    return;
  }
  if (process.platform !== 'linux') {
    console.log('operator weight: skipped (reads /proc: Linux only)');
    return;
  }
  const cluster = startCluster();
  const { dir, modules } = project(resolve('.'));
  const baseline = process.env.KOPFGEN_BENCH_BASE;
  const before = baseline ? project(resolve(baseline)) : undefined;
  try {
    await applyCrd(cluster, 'crds/myresource.yaml', 'example.com', 'v1', 'myresources');
    if (baseline && before) {
      const pairs: [Sample, Sample][] = [];
      for (let i = 0; i < RUNS; i++) {
        const then = await once(cluster.kubeconfig, before.dir, before.modules[0].file, resolve(baseline));
        pairs.push([then, await once(cluster.kubeconfig, dir, modules[0].file)]);
      }
      const [cpu0, rss0] = [median(pairs.map((p) => p[0].cpu)), median(pairs.map((p) => p[0].rss))];
      const [cpu1, rss1] = [median(pairs.map((p) => p[1].cpu)), median(pairs.map((p) => p[1].rss))];
      console.log(
        `baseline ${baseline} vs this checkout (.mjs, interleaved, median of ${RUNS}): start-up CPU ` +
          `${cpu0.toFixed(2)} → ${cpu1.toFixed(2)} s (${(cpu1 / cpu0).toFixed(2)}×), idle RSS ${rss0.toFixed(0)} → ` +
          `${rss1.toFixed(0)} MB (${(rss1 / rss0).toFixed(2)}×)`,
      );
    }
    for (const { name, file } of modules) {
      const samples: Sample[] = [];
      try {
        for (let i = 0; i < RUNS; i++) samples.push(await once(cluster.kubeconfig, dir, file));
      } catch (error) {
        console.log(`${name}: failed: ${messageOf(error).split('\n').slice(0, 3).join(' | ')}`);
        continue;
      }
      const cpu = median(samples.map((s) => s.cpu));
      const rss = median(samples.map((s) => s.rss));
      const early = median(samples.map((s) => s.early));
      const wall = median(samples.map((s) => s.wallMs));
      console.log(
        `${name}, median of ${RUNS}: start-up CPU ${cpu.toFixed(2)} s (target ${CPU_TARGET_S} s: ` +
          `${(cpu / CPU_TARGET_S).toFixed(2)}×), idle RSS ${rss.toFixed(0)} MB after ${IDLE_SECONDS} s (target ` +
          `${RSS_TARGET_MB} MB: ${(rss / RSS_TARGET_MB).toFixed(2)}×; ${early.toFixed(0)} MB after ${EARLY_SECONDS} s), ` +
          `ready after ${wall.toFixed(0)} ms wall`,
      );
    }
    await watchedObjects(
      cluster,
      { dir, module: modules[0].file },
      before && baseline ? { ...before, baseline } : undefined,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (before) rmSync(before.dir, { recursive: true, force: true });
    stopCluster(cluster);
  }
}

/**
 * Memory per watched object: OBJECTS small MyResources (one handler's status and records each),
 * handled once by an operator of this checkout, then listed by a fresh one (and one of the build
 * before, when given) that finds nothing to do: idle RSS after IDLE_SECONDS (target 100 MB).
 */
async function watchedObjects(
  cluster: Cluster,
  now: { dir: string; module: string },
  before?: { dir: string; modules: { file: string }[]; baseline: string },
): Promise<void> {
  const ns = 'weight-objects';
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
  // Handled once, so that the operators measured list objects carrying a status and records, with nothing to do.
  const first = spawn(process.execPath, [join(resolve('.'), 'bin/kopfgen.js'), 'run', now.module, '-n', ns], {
    cwd: now.dir,
    env: { ...process.env, KUBECONFIG: cluster.kubeconfig },
    stdio: 'ignore',
  });
  try {
    const deadline = Date.now() + 600_000;
    for (;;) {
      const list = await cluster.client.request<{ items: { status?: { myapp?: { phase?: string } } }[] }>('GET', path);
      if (list.items.filter((o) => o.status?.myapp?.phase === 'Done').length >= OBJECTS) break;
      if (Date.now() > deadline) throw new Error(`${OBJECTS} objects not handled within 10 minutes`);
      await new Promise((r) => setTimeout(r, 3000));
    }
  } finally {
    first.kill('SIGTERM');
    await new Promise((r) => first.on('exit', r));
  }
  const measure = (cwd: string, module: string, root?: string) =>
    once(cluster.kubeconfig, cwd, module, root, ['-n', ns]).then((s) => s.rss);
  const then = before ? await measure(before.dir, before.modules[0].file, resolve(before.baseline)) : undefined;
  const rss = await measure(now.dir, now.module);
  console.log(
    `${OBJECTS} small objects listed (handled before: status and records on each), idle RSS after ${IDLE_SECONDS} s: ` +
      `${rss.toFixed(0)} MB (target ${OBJECTS_RSS_TARGET_MB} MB: ${(rss / OBJECTS_RSS_TARGET_MB).toFixed(2)}×)` +
      (then === undefined ? '' : `; before ${then.toFixed(0)} MB (now ${(rss / then).toFixed(2)}×)`),
  );
}

await main();
