/**
 * Operators that manage other resources, against a real API server (../shared/envtest, or
 * KOPFGEN_E2E_KUBECONFIG):
 *  1. 1,000 WebApps (`KOPFGEN_BENCH_PARENTS`), each handled by a create handler that applies 3 owned
 *     children through `ctx.client` (a Deployment, a Service, a ConfigMap, `ctx.adopt`ed), the operator
 *     in a process of its own with leader election: parents/s and children/s from the operator being
 *     ready to the last parent's status written, API requests per parent (`kopfgen_api_requests_total`),
 *     the process's peak RSS (the Services are headless: envtest's service IP range is small).
 *     Beside it, the floor: a bare loop in a process of its own that sends the
 *     same 3 applies per parent with the same client (the typed client over the runtime's KubeClient, no
 *     watch, no status), at the same concurrency (32). Ratios: the operator's figure over the floor's.
 *     `KOPFGEN_BENCH_ROUNDS` (default 1) alternates which runs first and keeps the best of each. Both
 *     placements of the operator's records: the example's strict status schema (records in annotations,
 *     3 applies + 2 outcome writes per parent at least) and the same CRD with a status that keeps unknown
 *     fields (records in `status.kopfgen`, 3 + 1).
 *  2. An index (`defineIndex`) over 10,000 ConfigMaps: time to its first complete list (the leader's
 *     watch of the kind, through the secondary watch that feeds it), and the memory it holds per
 *     object (the index and the watch's per-object record, heap after GC; the objects themselves are
 *     dropped once indexed).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { IndexStore } from '../src/runtime/api/indexes.js';
import { defineResource, type KubernetesObject } from '../src/runtime/index.js';
import { createLogger } from '../src/runtime/effects/log.js';
import { builtins } from '../src/runtime/builtin-kinds.js';
import { SecondaryWatch } from '../src/runtime/secondary-watch.js';
import { watchResource } from '../src/runtime/watcher.js';
import { applyCrd, skip, startCluster, stopCluster, type Cluster } from '../test/helpers/envtest.js';

const PARENTS = Number(process.env.KOPFGEN_BENCH_PARENTS ?? 1_000);
const CONFIGMAPS = 10_000;
const CONCURRENCY = 32;
/** Rounds of floor and operator, alternating which runs first; the best of each is printed. */
const ROUNDS = Number(process.env.KOPFGEN_BENCH_ROUNDS ?? 1);
/**
 * Where the operator keeps its records: `example.com` is the example's CRD (a strict status schema: the
 * records go into annotations, a second write after the status); `loose.example.com` the same CRD whose
 * status keeps unknown fields, so the records ride in `status.kopfgen` with the status (one write).
 */
const PLACEMENTS = [
  { group: 'example.com', records: 'annotations (strict status schema)' },
  { group: 'loose.example.com', records: 'status.kopfgen (status keeps unknown fields)' },
] as const;
type Group = (typeof PLACEMENTS)[number]['group'];
/** Directories this run made, removed at its end. */
const temporary: string[] = [];

/** The example's CRD served under `group`, its status keeping unknown fields unless it is the example's own. */
function crdFile(group: Group): string {
  if (group === 'example.com') return 'examples/webapp/webapp.yaml';
  const text = readFileSync('examples/webapp/webapp.yaml', 'utf8')
    .replace('name: webapps.example.com', `name: webapps.${group}`)
    .replace('group: example.com', `group: ${group}`)
    .replace(
      /^( *)status:\n\1 {2}type: object\n/m,
      (all: string, indent: string) => `${all}${indent}  x-kubernetes-preserve-unknown-fields: true\n`,
    );
  if (!text.includes('x-kubernetes-preserve-unknown-fields'))
    throw new Error('the webapp CRD has no status schema to loosen');
  const dir = mkdtempSync(join(tmpdir(), 'kopfgen-bench-'));
  temporary.push(dir);
  const file = join(dir, 'webapp.yaml');
  writeFileSync(file, text);
  return file;
}

const webappsOf = (group: Group) =>
  defineResource({
    group,
    version: 'v1',
    plural: 'webapps',
    kind: 'WebApp',
    scope: 'Namespaced',
    statusSubresource: true,
    printerColumns: [],
  });

/** The three children of parent `name` (uid `uid`), as the operator's handler and the floor send them. */
const CHILDREN = `
const children = (name, namespace, uid, group) => {
  const ownerReferences = [{ apiVersion: group + '/v1', kind: 'WebApp', name, uid, controller: true, blockOwnerDeletion: true }];
  const metadata = { name, namespace, ownerReferences, labels: { app: name } };
  return [
    [builtins.configMaps, { metadata, data: { greeting: 'hello' } }],
    [builtins.deployments, { metadata, spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 8080, protocol: 'TCP' }] }] } } } }],
    [builtins.services, { metadata, spec: { clusterIP: 'None', selector: { app: name }, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] } }],
  ];
};
const report = (extra) => {
  const usage = process.resourceUsage();
  process.stdout.write(JSON.stringify({ ...extra, peakRssMB: usage.maxRSS / 1024, cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6 }) + '\\n');
};
`;

/** The operator: a create handler applying the three children, adopted, through ctx.client. */
const operatorScript = (ns: string, group: Group) => `
import { Operator } from './dist/src/runtime/operator.js';
import { defineHandler, defineResource, Registry, uses } from './dist/src/runtime/index.js';
import { builtins } from './dist/src/runtime/builtin-kinds.js';
import { createLogger } from './dist/src/runtime/effects/log.js';
await import('./dist/src/runtime/heap-settings.js').then((m) => m.keepYoungGenerationSmall());
${CHILDREN}
const registry = new Registry();
const webapps = defineResource({ group: '${group}', version: 'v1', plural: 'webapps', kind: 'WebApp', scope: 'Namespaced', statusSubresource: true, statusRecords: ${group !== 'example.com'}, printerColumns: [] });
for (const kind of [builtins.configMaps, builtins.deployments, builtins.services]) uses(kind, ['apply'], { registry });
defineHandler(webapps, 'deploy').onCreate(async (ctx) => {
  for (const [kind, body] of children(ctx.name, ctx.namespace, ctx.uid, '${group}')) await ctx.client.apply(kind, body);
  return { phase: 'Deploying' };
}, { registry });
const operator = new Operator({ registry, namespace: '${ns}', logger: createLogger({ level: 'warn' }), concurrency: ${CONCURRENCY}, leaderElection: { id: 'kopfgen-bench', namespace: '${ns}' } });
await operator.start();
while (!operator.isLeader()) await new Promise((r) => setTimeout(r, 10));
process.stdout.write('ready\\n');
process.on('SIGTERM', async () => {
  await operator.stop();
  const text = await operator.metrics.scrape();
  let requests = 0;
  for (const line of text.split('\\n')) if (line.startsWith('kopfgen_api_requests_total{')) requests += Number(line.split(' ').pop());
  report({ requests });
  process.exit(0);
});
`;

/** The floor: the same three applies per parent, the same typed client and KubeClient, 32 at a time, nothing else. */
const floorScript = (ns: string, group: Group) => `
import { KubeClient } from './dist/src/runtime/kube/client.js';
import { TypedClient } from './dist/src/runtime/effects/typed-client.js';
import { builtins } from './dist/src/runtime/builtin-kinds.js';
${CHILDREN}
const kube = await KubeClient.fromDefault();
let requests = 0;
kube.observe(() => requests++);
const client = new TypedClient(kube, { fieldManager: 'kopfgen' });
const list = await kube.request('GET', '/apis/${group}/v1/namespaces/${ns}/webapps');
const parents = list.items.map((p) => [p.metadata.name, p.metadata.uid]);
process.stdout.write('ready\\n');
const started = performance.now();
let next = 0;
await Promise.all(Array.from({ length: ${CONCURRENCY} }, async () => {
  while (next < parents.length) {
    const [name, uid] = parents[next++];
    for (const [kind, body] of children(name, '${ns}', uid, '${group}')) await client.apply(kind, body);
  }
}));
report({ requests: requests - 1, seconds: (performance.now() - started) / 1000 });
kube.close();
`;

async function inParallel(count: number, width: number, run: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await run(next++);
    }),
  );
}

async function namespace(cluster: Cluster, name: string): Promise<string> {
  await cluster.client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
  return name;
}

async function createParents(cluster: Cluster, ns: string, group: Group): Promise<void> {
  await inParallel(PARENTS, CONCURRENCY, (i) =>
    cluster.client.request('POST', `/apis/${group}/v1/namespaces/${ns}/webapps`, {
      body: { apiVersion: `${group}/v1`, kind: 'WebApp', metadata: { name: `app-${i}` }, spec: { image: 'nginx' } },
    }),
  );
}

interface Report {
  requests: number;
  peakRssMB: number;
  cpuSeconds: number;
  seconds?: number;
}

/** Runs a script in this checkout; resolves when it prints `ready` and gives the way to end it and read its report. */
function start(cluster: Cluster, script: string) {
  // KOPFGEN_BENCH_NODE_ARGS: node options for the operator's and the floor's processes (`--cpu-prof`)
  const extra = (process.env.KOPFGEN_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...extra, '--input-type=module', '-e', script], {
    env: { ...process.env, KUBECONFIG: cluster.kubeconfig },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  const ready = new Promise<number>((resolve, reject) => {
    const timer = setInterval(() => {
      if (out.includes('ready\n')) {
        clearInterval(timer);
        resolve(performance.now());
      }
    }, 5);
    child.on('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`exited ${code} before ready: ${out}`));
    });
  });
  const report = new Promise<Report>((resolve) =>
    child.on('exit', () => resolve(JSON.parse(out.trim().split('\n').pop() ?? '{}') as Report)),
  );
  return { child, ready, report };
}

/** Resolves when every parent's status says the handler ran (a watch of the bench's own, not polling lists). */
function allDone(cluster: Cluster, ns: string, group: Group, signal: AbortSignal): Promise<number> {
  const done = new Set<string>();
  return new Promise((resolve) => {
    const consumer = {
      upsert(object: KubernetesObject) {
        const status = object.status as { deploy?: { phase?: string } } | undefined;
        if (status?.deploy?.phase !== 'Deploying') return;
        done.add(String(object.metadata?.uid));
        if (done.size === PARENTS) resolve(performance.now());
      },
      delete() {},
      listed() {},
    };
    void watchResource(cluster.client, webappsOf(group), consumer, {
      namespace: ns,
      signal,
      logger: createLogger({ level: 'error' }),
    });
  });
}

async function operatorRun(cluster: Cluster, ns: string, group: Group) {
  await createParents(cluster, ns, group);
  const abort = new AbortController();
  const finished = allDone(cluster, ns, group, abort.signal);
  const run = start(cluster, operatorScript(ns, group));
  const ready = await run.ready;
  const seconds = ((await finished) - ready) / 1000;
  abort.abort();
  run.child.kill('SIGTERM');
  return { seconds, report: await run.report };
}

async function floorRun(cluster: Cluster, ns: string, group: Group) {
  await createParents(cluster, ns, group);
  const run = start(cluster, floorScript(ns, group));
  await run.ready;
  const report = await run.report;
  return { seconds: report.seconds ?? Number.NaN, report };
}

async function indexFigures(cluster: Cluster) {
  const ns = await namespace(cluster, `bench-index-${process.pid}`);
  await inParallel(CONFIGMAPS, 48, (i) =>
    cluster.client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${i}`, labels: { team: `team-${i % 50}`, app: 'bench' } },
        data: { config: `key-${i}=value-${i}` },
      },
    }),
  );
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  gc();
  const before = process.memoryUsage().heapUsed;
  const index = new IndexStore<string, string>(
    'by-team',
    (cm: { metadata: { name: string; labels: { team: string } } }) => ({
      [cm.metadata.labels.team]: cm.metadata.name,
    }),
  );
  const logger = createLogger({ level: 'error' });
  const consumer = new SecondaryWatch('configmaps/v1', [], [{ id: 'by-team', store: index }], logger);
  const abort = new AbortController();
  const started = performance.now();
  let listed = 0;
  const watching = watchResource(cluster.client, builtins.configMaps, consumer, {
    namespace: ns,
    signal: abort.signal,
    logger,
    reporter: { seen: () => undefined, restarted: () => undefined, listed: () => (listed ||= performance.now()) },
  });
  while (!listed) await new Promise((r) => setTimeout(r, 5));
  const seconds = (listed - started) / 1000;
  abort.abort();
  await watching;
  gc();
  const bytes = process.memoryUsage().heapUsed - before;
  if (index.size !== CONFIGMAPS) throw new Error(`index holds ${index.size} objects, not ${CONFIGMAPS}`);
  return { seconds, bytesPerObject: bytes / CONFIGMAPS, size: index.size };
}

type Figures = Awaited<ReturnType<typeof floorRun>>;

function printRows(records: string, floor: Figures, operator: Figures): void {
  const rows = [
    ['', 'operator', 'floor', 'ratio'],
    [
      'parents/s',
      (PARENTS / operator.seconds).toFixed(0),
      (PARENTS / floor.seconds).toFixed(0),
      `${(floor.seconds / operator.seconds).toFixed(2)}x`,
    ],
    [
      'children/s',
      ((3 * PARENTS) / operator.seconds).toFixed(0),
      ((3 * PARENTS) / floor.seconds).toFixed(0),
      `${(floor.seconds / operator.seconds).toFixed(2)}x`,
    ],
    [
      'API requests per parent',
      (operator.report.requests / PARENTS).toFixed(2),
      (floor.report.requests / PARENTS).toFixed(2),
      `${(operator.report.requests / floor.report.requests).toFixed(2)}x`,
    ],
    [
      'CPU seconds (process)',
      operator.report.cpuSeconds.toFixed(1),
      floor.report.cpuSeconds.toFixed(1),
      `${(operator.report.cpuSeconds / floor.report.cpuSeconds).toFixed(2)}x`,
    ],
    [
      'peak RSS (MB)',
      operator.report.peakRssMB.toFixed(0),
      floor.report.peakRssMB.toFixed(0),
      `${(operator.report.peakRssMB / floor.report.peakRssMB).toFixed(2)}x`,
    ],
  ];
  console.log(
    `${PARENTS} WebApps × 3 children applied, records in ${records} (concurrency ${CONCURRENCY}; best of ${ROUNDS} round(s)):`,
  );
  for (const row of rows)
    console.log(
      `  ${row[0].padEnd(26)}${row
        .slice(1)
        .map((c) => c.padStart(10))
        .join('')}`,
    );
}

async function main(): Promise<void> {
  if (skip) {
    console.log(`skipped: ${skip}`);
    return;
  }
  const cluster = startCluster();
  try {
    for (const { group } of PLACEMENTS) await applyCrd(cluster, crdFile(group), group, 'v1', 'webapps');
    for (const { group, records } of PLACEMENTS) {
      type Run = Awaited<ReturnType<typeof floorRun>>;
      const best = (a: Run | undefined, b: Run) => (a && a.seconds <= b.seconds ? a : b);
      let floor: Run | undefined;
      let operator: Run | undefined;
      for (let round = 1; round <= ROUNDS; round++) {
        // a run leaves the server busier for the next: the order reverses in even rounds
        const order = round % 2 === 1 ? (['floor', 'operator'] as const) : (['operator', 'floor'] as const);
        for (const which of order) {
          const ns = await namespace(cluster, `bench-${which}-${group.replace(/\./g, '-')}-${round}-${process.pid}`);
          if (which === 'floor') floor = best(floor, await floorRun(cluster, ns, group));
          else operator = best(operator, await operatorRun(cluster, ns, group));
        }
      }
      if (!floor || !operator) throw new Error('no round ran (KOPFGEN_BENCH_ROUNDS)');
      printRows(records, floor, operator);
    }
    const index = await indexFigures(cluster);
    console.log(
      `index over ${index.size} ConfigMaps: first complete list ${index.seconds.toFixed(2)} s, ` +
        `${index.bytesPerObject.toFixed(0)} bytes per object held (${((index.bytesPerObject * 10_000) / 1024 / 1024).toFixed(1)} MB per 10,000)`,
    );
  } finally {
    stopCluster(cluster);
    for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
