/**
 * Hand-overs of the lease under faults, two operators in this process on one CRD (short lease timings):
 * - a leader's status PATCH held in the network (the fault proxy buffers it) past the hand-over and
 *   released 20 s and 45 s after it changes nothing: status and records stay the new leader's;
 * - the Lease deleted and edited under two replicas whose handler records when it runs: no object's
 *   handler runs in both at once;
 * - the Lease's RoleBinding removed: both replicas fail `/healthz` with a line naming the Lease once they
 *   have not reached it for a lease duration, and recover when it is back.
 */
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defineHandler, Registry } from '../../src/runtime/index.js';
import { Operator } from '../../src/runtime/operator.js';
import { clientFor, eventually, skip } from '../helpers/envtest.js';
import {
  captureLogger,
  create,
  namespace,
  sleep,
  type Body,
  myResource as exampleResource,
  myResources as my,
  myResourceObject,
} from '../helpers/e2e-objects.js';
import { E2eSuite, MYRESOURCES_CRD } from '../helpers/e2e-suite.js';
import { tempDir } from '../helpers/temp-dirs.js';

const suite = new E2eSuite({ crds: [MYRESOURCES_CRD], proxy: true });

/** Short timings: a hand-over takes seconds. */
const TIMINGS = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };

/** The example's MyResource with its records in status.kopfgen: one /status write per outcome. */
const myResource = { ...exampleResource, statusRecords: true };

const LAST_HANDLED = 'kopfgen.dev/last-handled-configuration';
const leasePath = (ns: string, name: string) => `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${name}`;

describe('hand-overs under faults', { skip }, () => {
  suite.hooks();

  it(
    'a status PATCH held past a hand-over, released 20 s and 45 s after it, changes nothing: the new leader’s outcome stays',
    { timeout: 180_000 },
    async () => {
      const ns = await namespace(suite.client, 'held');
      const proxy = suite.proxy;
      const operators: Operator[] = [];
      const start = async (replica: 'a' | 'b', viaProxy: boolean) => {
        const registry = new Registry();
        defineHandler<{ spec: { image: string } }, { phase: string; seen: string; by: string }>(
          myResource,
          'myapp',
        ).onCreate(({ spec }) => ({ phase: 'Done', seen: spec.image, by: replica }), { registry });
        const operator = new Operator({
          registry,
          namespace: ns,
          logger: captureLogger(),
          client: clientFor(viaProxy ? proxy.kubeconfig : suite.cluster.kubeconfig),
          leaderElection: { id: `held-${ns}`, namespace: ns, identity: replica, ...TIMINGS },
        });
        operators.push(operator);
        await operator.start();
        return operator;
      };
      try {
        const a = await start('a', true);
        await eventually('a to lead', async () => (a.isLeader() ? true : undefined), 30_000);
        const b = await start('b', false);
        const names = ['held-20', 'held-45'];
        for (const name of names) {
          proxy.inject({ method: 'PATCH', path: new RegExp(`/myresources/${name}/status`), hold: true });
          await create(suite.client, my(ns), myResourceObject(name, { image: 'v1' }));
        }
        await eventually('both outcome writes of a held', async () => (proxy.held().length === 2 ? true : undefined));
        for (const held of proxy.held()) assert.match(held.body, /"seen":"v1","by":"a"/);
        for (const name of names) await suite.mergePatch(my(ns, name), { spec: { image: 'v2' } });
        // a cannot renew from now on: b takes over when the lease expires
        proxy.inject({ method: 'PUT', path: /\/leases\//, status: 500, times: 1_000_000 });
        await eventually('a to step down', async () => (a.isLeader() ? undefined : true), 30_000);
        const handover = await eventually('b to lead', async () => (b.isLeader() ? Date.now() : undefined), 30_000);
        const handled = async (name: string) => {
          const object = await suite.get(my(ns, name));
          const kopfgen = object.status?.kopfgen ?? {};
          const done = object.status?.myapp?.by === 'b' && String(kopfgen[LAST_HANDLED] ?? '').includes('v2');
          return done ? object : undefined;
        };
        for (const name of names) await eventually(`b to handle ${name}`, () => handled(name), 30_000);
        const released: Record<string, number[]> = {};
        for (const [name, after] of [
          ['held-20', 20_000],
          ['held-45', 45_000],
        ] as const) {
          await sleep(Math.max(0, handover + after - Date.now()));
          released[name] = await proxy.release((held) => held.path.includes(`/${name}/`));
        }
        process.stdout.write(`# held PATCHes released after the hand-over answered ${JSON.stringify(released)}\n`);
        assert.deepEqual(released, { 'held-20': [409], 'held-45': [409] }, 'refused by their resourceVersion');
        await sleep(1_000);
        for (const name of names) {
          const object = await suite.get(my(ns, name));
          assert.deepEqual(object.status?.myapp, { phase: 'Done', seen: 'v2', by: 'b' }, name);
          const essence = JSON.parse(String(object.status?.kopfgen?.[LAST_HANDLED]));
          assert.equal(essence.spec.image, 'v2', `${name}: the record is the new leader's`);
          assert.equal(object.status?.kopfgen?.['kopfgen.dev/myapp'], undefined, 'no progress record left behind');
        }
        // the former leader, standing by, exports no queue depth nor watch age
        const scrape = await a.metrics.scrape();
        assert.doesNotMatch(scrape, /^kopfgen_queue_depth\{/m);
        assert.doesNotMatch(scrape, /^kopfgen_watch_age_seconds\{/m);
        assert.match(await b.metrics.scrape(), /^kopfgen_watch_age_seconds\{/m);
      } finally {
        for (const operator of operators) await operator.stop();
      }
    },
  );

  it(
    'the Lease deleted and edited under two replicas: no object is handled by both at once',
    { timeout: 180_000 },
    async () => {
      const ns = await namespace(suite.client, 'edits');
      const id = `edits-${ns}`;
      const runs: { object: string; replica: string; start: number; end: number }[] = [];
      const operators: Operator[] = [];
      for (const replica of ['a', 'b']) {
        const registry = new Registry();
        const handle = async ({ name, signal }: { name: string; signal: AbortSignal }) => {
          const start = Date.now();
          // 200-700 ms of work; a handler told its term ended stops (its writes are refused anyway)
          await new Promise((resolve) => {
            const timer = setTimeout(resolve, 200 + Math.random() * 500);
            signal.addEventListener('abort', () => resolve(clearTimeout(timer)), { once: true });
          });
          runs.push({ object: name, replica, start, end: Date.now() });
          return { phase: 'Done' };
        };
        const h = defineHandler<{ spec: { image: string } }, { phase: string }>(myResource, 'myapp');
        h.onCreate(handle, { registry });
        h.onUpdate(handle, { registry });
        const operator = new Operator({
          registry,
          namespace: ns,
          logger: captureLogger(),
          client: clientFor(suite.cluster.kubeconfig),
          leaderElection: { id, namespace: ns, identity: replica, ...TIMINGS },
        });
        operators.push(operator);
        await operator.start();
      }
      const leader = () => operators.findIndex((o) => o.isLeader());
      /** A leader that the Lease names (the old one may not have noticed the change yet). */
      const untilLeader = (what: string) =>
        eventually(
          what,
          async () => {
            const holder = (await suite.get(leasePath(ns, id)).catch(() => undefined))?.spec?.holderIdentity;
            const index = leader();
            return index >= 0 && holder === ['a', 'b'][index] ? true : undefined;
          },
          30_000,
        );
      const edit = async (spec: Body) => {
        const lease = await suite.get(leasePath(ns, id));
        await suite.client.request('PUT', leasePath(ns, id), { body: { ...lease, spec: { ...lease.spec, ...spec } } });
      };
      const now = () => new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
      let next = 0;
      /** Objects keep coming (and changing) while the Lease is deleted and edited. */
      const churn = async (count: number) => {
        for (let i = 0; i < count; i++) {
          const name = `o-${next++}`;
          await create(suite.client, my(ns), myResourceObject(name, { image: 'v1' }));
          if (next > 3) await suite.mergePatch(my(ns, `o-${next - 3}`), { spec: { image: `v${next}` } });
        }
      };
      try {
        await untilLeader('a leader');
        await churn(10);
        await suite.client.request('DELETE', leasePath(ns, id));
        await churn(20);
        await untilLeader('a leader after the deletion');
        await churn(10);
        const standby = ['a', 'b'][1 - leader()];
        await edit({ holderIdentity: standby, renewTime: now() }); // names the standby, which did not write it
        await churn(20);
        await untilLeader('a leader after the edit');
        await churn(10);
        await edit({ holderIdentity: 'intruder', leaseDurationSeconds: 1, renewTime: now() });
        await churn(20);
        await untilLeader('a leader after the second edit');
        await churn(10);
        // every object handled for its last spec
        await eventually(
          'every object handled',
          async () => {
            const list = await suite.client.request<{ items: Body[] }>('GET', my(ns));
            const pending = list.items.filter((o) => {
              const essence = String(o.status?.kopfgen?.[LAST_HANDLED] ?? '');
              return !essence.includes(`"image":"${o.spec.image}"`);
            });
            return pending.length === 0 ? true : undefined;
          },
          90_000,
        );
        const overlaps: string[] = [];
        for (const run of runs) {
          for (const other of runs) {
            if (other.object !== run.object || other.replica <= run.replica) continue;
            if (run.start < other.end && other.start < run.end)
              overlaps.push(`${run.object}: ${JSON.stringify([run, other])}`);
          }
        }
        const replicas = new Set(runs.map((r) => r.replica));
        process.stdout.write(
          `# ${runs.length} handler runs in ${replicas.size} replicas, ${overlaps.length} overlapping\n`,
        );
        assert.deepEqual(overlaps, [], 'an object handled in two replicas at once');
      } finally {
        for (const operator of operators) await operator.stop();
      }
    },
  );

  it(
    "the Lease's RoleBinding removed: both replicas fail /healthz naming the Lease after a lease duration, and recover",
    { timeout: 120_000 },
    async () => {
      const ns = await namespace(suite.client, 'rbac');
      const kubeconfig = await operatorAccount(ns);
      const operators: Operator[] = [];
      const loggers = [captureLogger(), captureLogger()];
      for (const [i, replica] of ['a', 'b'].entries()) {
        const registry = new Registry();
        defineHandler<{ spec: { image: string } }, { phase: string }>(myResource, 'myapp').onCreate(
          () => ({ phase: 'Done' }),
          { registry },
        );
        const operator = new Operator({
          registry,
          namespace: ns,
          logger: loggers[i],
          client: clientFor(kubeconfig),
          health: { port: 0, host: '127.0.0.1' },
          leaderElection: { id: `rbac-${ns}`, namespace: ns, identity: replica, ...TIMINGS },
        });
        operators.push(operator);
        await operator.start();
      }
      const healthz = async (operator: Operator) => {
        const answer = await fetch(`${operator.health!.url}/healthz`);
        return { status: answer.status, text: await answer.text() };
      };
      try {
        await eventually('a leader', async () => (operators.some((o) => o.isLeader()) ? true : undefined), 30_000);
        for (const operator of operators) assert.equal((await healthz(operator)).status, 200);
        const binding = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings/leases`;
        const saved = await suite.get(binding);
        await suite.client.request('DELETE', binding);
        const failing = await Promise.all(
          operators.map((operator) =>
            eventually(
              '/healthz to fail',
              async () => {
                const answer = await healthz(operator);
                return answer.status === 500 ? answer.text : undefined;
              },
              30_000,
            ),
          ),
        );
        for (const text of failing) {
          assert.match(
            text,
            new RegExp(
              `\\[-\\]leader election: no read or write of lease ${ns}/rbac-${ns} succeeded for \\d+ s \\(limit: the lease duration, 3 s\\): .*(forbidden|403)`,
            ),
          );
        }
        assert.ok(
          operators.every((o) => !o.isLeader()),
          'nobody leads without its Lease',
        );
        for (const logger of loggers) {
          assert.ok(
            logger.lines.some((l) => / WARN .*lease .* failed: .*(forbidden|403)/.test(l)),
            'a warning names it',
          );
        }
        await suite.client.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
          body: { ...saved, metadata: { name: saved.metadata.name, namespace: ns } },
        });
        await eventually(
          'a leader again',
          async () => (operators.some((o) => o.isLeader()) ? true : undefined),
          30_000,
        );
        for (const operator of operators) {
          await eventually('/healthz ok', async () => ((await healthz(operator)).status === 200 ? true : undefined));
        }
        await create(suite.client, my(ns), myResourceObject('after', { image: 'x' }));
        await eventually('handled again', async () =>
          (await suite.get(my(ns, 'after'))).status?.myapp?.phase === 'Done' ? true : undefined,
        );
      } finally {
        for (const operator of operators) await operator.stop();
      }
    },
  );
});

/**
 * A ServiceAccount `op` in `ns` with what the operator needs (the resources, Events, the CRD cluster-wide;
 * the Lease in `ns`, through the RoleBinding `leases` a test removes) and a kubeconfig with its token.
 */
async function operatorAccount(ns: string): Promise<string> {
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  const post = (path: string, body: Body) => suite.client.request('POST', path, { body });
  await post(`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'op' } });
  const subjects = [{ kind: 'ServiceAccount', name: 'op', namespace: ns }];
  await post(`${rbac}/clusterroles`, {
    metadata: { name: `op-${ns}` },
    rules: [
      { apiGroups: ['example.com'], resources: ['myresources'], verbs: ['get', 'list', 'watch', 'patch'] },
      { apiGroups: ['example.com'], resources: ['myresources/status'], verbs: ['patch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get'] },
    ],
  });
  await post(`${rbac}/clusterrolebindings`, {
    metadata: { name: `op-${ns}` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `op-${ns}` },
    subjects,
  });
  await post(`${rbac}/namespaces/${ns}/roles`, {
    metadata: { name: 'leases' },
    rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }],
  });
  await post(`${rbac}/namespaces/${ns}/rolebindings`, {
    metadata: { name: 'leases' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'leases' },
    subjects,
  });
  const answer = await suite.client.request<{ status: { token: string } }>(
    'POST',
    `/api/v1/namespaces/${ns}/serviceaccounts/op/token`,
    { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } } },
  );
  const admin = parse(await fs.readFile(suite.cluster.kubeconfig, 'utf8')) as {
    clusters: { cluster: Record<string, string> }[];
  };
  const { server, 'certificate-authority-data': ca } = admin.clusters[0].cluster;
  const file = join(tempDir('kopfgen-op-'), 'kubeconfig');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'op',
    clusters: [{ name: 'envtest', cluster: { server, 'certificate-authority-data': ca } }],
    users: [{ name: 'op', user: { token: answer.status.token } }],
    contexts: [{ name: 'op', context: { cluster: 'envtest', user: 'op' } }],
  };
  await fs.writeFile(file, JSON.stringify(config), { mode: 0o600 });
  return file;
}
