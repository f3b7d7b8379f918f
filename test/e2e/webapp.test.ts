/**
 * Operators that manage other resources, against a real API server (one envtest for all of it):
 *
 * - The WebApp example (`examples/webapp`) under exactly the RBAC `kopfgen manifests` renders from its
 *   declarations, run through the CLI with the Deployment's arguments and its ServiceAccount's token: the
 *   three children carry the right controller owner reference; a deleted Deployment is made again within
 *   seconds (its child handler); a Deployment status written by hand (envtest runs no controllers) is
 *   mirrored into the WebApp's `status.deploy`, also after 20 single deletions in a row (the newest state,
 *   never a stale "Repairing"); every object it wrote names its field manager in managedFields (none
 *   `unknown`); the delete handler runs; no request is refused (403).
 * - An index over 10,000 ConfigMaps (`defineIndex`): a handler's first run sees it complete; after
 *   create/update/delete churn its answers equal what the API server lists; the time to the first complete
 *   list is printed (memory per object is `npm run bench`'s).
 * - Split brain: two replicas with short leases, each talking through a fault proxy of its own; the
 *   leader is frozen (SIGSTOP) in the middle of a handler that writes children through `ctx.client`, the
 *   standby takes over and finishes the object; let go (SIGCONT), the old leader's calls fail with
 *   FencedWriteError and no write of it reaches the API server (its proxy sees none, and the children's
 *   resourceVersions do not move).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientFor, eventually, skip, TEST_TIMEOUT } from '../helpers/envtest.js';
import { E2eSuite, MYRESOURCES_CRD, WEBAPPS_CRD } from '../helpers/e2e-suite.js';
import {
  create,
  namespace,
  objectPath,
  myResources as my,
  myResourceObject,
  sleep,
  untilOutput,
  type Body,
} from '../helpers/e2e-objects.js';
import { allowed, install, runInstalled, spawnNode, stopRun, type Install, type Run } from '../helpers/rbac-install.js';
import { FaultProxy } from '../helpers/proxy.js';
import { defineHandler, defineIndex, Registry } from '../../src/runtime/index.js';
import { builtins } from '../../src/runtime/builtin-kinds.js';
import { Operator } from '../../src/runtime/operator.js';
import { captureLogger, myResource } from '../helpers/e2e-objects.js';

const NAME = `webapp-e2e-${process.pid}`;
const FORBIDDEN = /\b403\b|forbidden/i;

let installed: Install;
const suite = new E2eSuite({
  crds: [MYRESOURCES_CRD, WEBAPPS_CRD],
  setup: async () => {
    installed = await install(suite, 'examples/webapp/operator.ts', NAME, []);
  },
});

const webapps = (ns: string, name = '') => objectPath('example.com', 'v1', 'webapps', ns, name);
const core = (ns: string, plural: string, name = '') => `/api/v1/namespaces/${ns}/${plural}${name ? `/${name}` : ''}`;
const deployments = (ns: string, name = '') => objectPath('apps', 'v1', 'deployments', ns, name);

/** The object at `path`, or undefined on 404. */
async function maybe(path: string): Promise<Body | undefined> {
  try {
    return await suite.get(path);
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined;
    throw error;
  }
}

/** A replica of the split-brain operator, talking to the API server through its own fault proxy. */
function replica(id: string, kubeconfig: string, ns: string, pauseMs: number) {
  const options = {
    namespace: ns,
    leaderElection: true,
    leaderElectionId: `split-${process.pid}`,
    leaderElectionNamespace: ns,
    leaseDuration: 3,
    renewDeadline: 2,
    retryPeriod: 0.5,
  };
  const script =
    "import { runOperator } from './dist/src/cli/run.js'; process.exitCode = await runOperator(process.argv[1], JSON.parse(process.env.RUN_OPTIONS));";
  const env = {
    ...process.env,
    KUBECONFIG: kubeconfig,
    REPLICA: id,
    PAUSE_MS: String(pauseMs),
    RUN_OPTIONS: JSON.stringify(options),
  };
  return spawnNode(['--input-type=module', '-e', script, 'test/fixtures/runtime/split-brain-operator.ts'], env);
}

/** `run(i)` for i in 0..count-1, at most `width` at once. */
async function inParallel(count: number, width: number, run: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await run(next++);
  };
  await Promise.all(Array.from({ length: width }, lane));
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

describe('operators that manage other resources (one envtest)', { skip }, () => {
  suite.hooks();

  it('grants the owned kinds exactly the verbs their declarations need', { timeout: TEST_TIMEOUT }, async () => {
    const client = clientFor(installed.kubeconfig);
    try {
      const deploy = { group: 'apps', resource: 'deployments', namespace: 'x' };
      const cases: [Record<string, string>, boolean][] = [
        ...['get', 'list', 'watch', 'create', 'patch', 'delete'].map((verb): [Record<string, string>, boolean] => [
          { ...deploy, verb },
          true,
        ]),
        [{ ...deploy, verb: 'update' }, false],
        [{ ...deploy, verb: 'patch', subresource: 'status' }, false],
        [{ group: '', resource: 'services', verb: 'create', namespace: 'x' }, true],
        [{ group: '', resource: 'configmaps', verb: 'delete', namespace: 'x' }, true],
        [{ group: '', resource: 'secrets', verb: 'get', namespace: 'x' }, false],
        [
          { group: 'example.com', resource: 'webapps', subresource: 'finalizers', verb: 'update', namespace: 'x' },
          true,
        ],
        [{ group: 'example.com', resource: 'webapps', verb: 'create', namespace: 'x' }, false],
      ];
      const got = await Promise.all(cases.map(async ([attributes]) => [attributes, await allowed(client, attributes)]));
      assert.deepEqual(got, cases);
    } finally {
      client.close();
    }
  });

  it(
    'owns its children, re-creates a deleted Deployment, mirrors its readiness, runs its delete handler: zero 403s',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'webapp');
      const run: Run = await runInstalled(installed);
      try {
        await untilOutput('the operator to watch', run.output, 'watching webapps', 30_000);
        const app = await create(suite.client, webapps(ns), {
          apiVersion: 'example.com/v1',
          kind: 'WebApp',
          metadata: { name: 'web' },
          spec: { image: 'nginx:1.27', replicas: 2 },
        });
        const owner = {
          apiVersion: 'example.com/v1',
          kind: 'WebApp',
          name: 'web',
          uid: app.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        };
        for (const path of [deployments(ns, 'web'), core(ns, 'services', 'web'), core(ns, 'configmaps', 'web')]) {
          const child = await eventually(`${path} to exist`, () => maybe(path));
          assert.deepEqual(child.metadata.ownerReferences, [owner], path);
          // applied under the operator's name (the Deployment's --leader-election-id)
          const managers = (child.metadata.managedFields as Body[]).map((m) => `${m.manager} ${m.operation}`);
          assert.ok(managers.includes(`${NAME} Apply`), `${path}: ${managers.join(', ')}`);
        }
        const configMap = await suite.get(core(ns, 'configmaps', 'web'));
        assert.deepEqual(configMap.data, { greeting: 'hello' }, 'the server filled in the default the child used');
        assert.equal((await suite.get(deployments(ns, 'web'))).spec.template.spec.containers[0].image, 'nginx:1.27');
        await suite.untilPhase('Deploying', webapps(ns, 'web'), 'Deploying', 'deploy');

        // kubectl delete deployment: the child handler makes it again
        const before = (await suite.get(deployments(ns, 'web'))).metadata.uid;
        suite.cluster.kubectl('delete', 'deployment', 'web', '-n', ns, '--wait=false');
        const deleted = Date.now();
        const again = await eventually(
          'the Deployment to be re-created',
          async () => {
            const now = await maybe(deployments(ns, 'web'));
            return now && now.metadata.uid !== before ? now : undefined;
          },
          10_000,
        );
        const seconds = (Date.now() - deleted) / 1000;
        assert.deepEqual(again.metadata.ownerReferences, [owner]);
        await untilOutput('the child handler to say so', run.output, 'deployment web was deleted: re-created');
        process.stdout.write(`# re-created the deleted Deployment in ${seconds.toFixed(1)} s\n`);

        // 20 single deletions: each time the status ends with the newest Deployment's state (Deploying: no
        // controller makes it ready in envtest), never the stale "Repairing" of the run for the deleted one
        for (let round = 0; round < 20; round++) {
          const gone = (await suite.get(deployments(ns, 'web'))).metadata.uid;
          await suite.client.request('DELETE', deployments(ns, 'web'));
          await eventually(`round ${round}: the Deployment re-created`, async () => {
            const now = await maybe(deployments(ns, 'web'));
            return now && now.metadata.uid !== gone ? true : undefined;
          });
          await eventually(
            `round ${round}: status.deploy to follow the new Deployment`,
            async () =>
              (await suite.get(webapps(ns, 'web'))).status?.deploy?.phase === 'Deploying' ? true : undefined,
            15_000,
          );
        }

        // a readiness no controller reports in envtest, written by hand, is mirrored into status.deploy
        await suite.client.request('PATCH', `${deployments(ns, 'web')}/status`, {
          body: { status: { replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2 } },
          contentType: 'application/merge-patch+json',
        });
        await eventually('status.deploy to follow the Deployment', async () => {
          const deploy = (await suite.get(webapps(ns, 'web'))).status?.deploy;
          return deploy?.phase === 'Ready' && deploy.readyReplicas === 2 ? true : undefined;
        });

        // every object the operator wrote names its field manager in managedFields, none "unknown"
        for (const path of [
          webapps(ns, 'web'),
          deployments(ns, 'web'),
          core(ns, 'services', 'web'),
          core(ns, 'configmaps', 'web'),
        ]) {
          const managers = ((await suite.get(path)).metadata.managedFields as Body[]).map((m) => String(m.manager));
          assert.ok(managers.includes(NAME) && !managers.includes('unknown'), `${path}: ${managers.join(', ')}`);
        }

        // the delete handler runs, then the finalizer goes
        await suite.client.request('DELETE', webapps(ns, 'web'));
        await untilOutput(
          'the delete handler',
          run.output,
          'deleting: its Deployment, Service and ConfigMap go with it',
        );
        await eventually('the WebApp to be gone', async () =>
          (await maybe(webapps(ns, 'web'))) === undefined ? true : undefined,
        );
        assert.equal(run.child.exitCode, null, run.output());
      } catch (error) {
        process.stdout.write(`# the operator's output:\n${run.output().replace(/^/gm, '# ')}\n`);
        throw error;
      } finally {
        await stopRun(run);
      }
      assert.doesNotMatch(run.output(), FORBIDDEN, run.output());
    },
  );

  it(
    'an index over 10,000 ConfigMaps: complete before handlers run, right after churn',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'index');
      const COUNT = 10_000;
      const team = (i: number) => `team-${i % 50}`;
      const configMap = (i: number, owner = team(i)) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${i}`, labels: { team: owner } },
        data: { n: String(i) },
      });
      await inParallel(COUNT, 48, (i) => create(suite.client, core(ns, 'configmaps'), configMap(i)));
      const registry = new Registry();
      const byTeam = defineIndex(
        builtins.configMaps,
        (cm) => (cm.metadata?.labels?.team ? { [cm.metadata.labels.team]: cm.metadata.name ?? '' } : undefined),
        { registry, id: 'by-team' },
      );
      defineHandler<unknown, { phase?: string }>(myResource, 'myapp').onCreate(
        () => ({ phase: `${String(byTeam.ready)} ${byTeam.size} ${byTeam.get('team-7').length}` }),
        { registry },
      );
      await create(suite.client, my(ns), myResourceObject('reader', { image: 'x' }));
      const started = performance.now();
      const operator = suite.track(
        new Operator({ registry, namespace: ns, logger: captureLogger(), leaderElection: false }),
      );
      await operator.start();
      await eventually('the index to list', async () => (byTeam.ready ? true : undefined), 60_000);
      const seconds = (performance.now() - started) / 1000;
      // the handler ran only once the index was complete
      await suite.untilPhase('the handler to read the index', my(ns, 'reader'), `true ${COUNT} ${COUNT / 50}`);
      // churn: 200 move to another team, 200 are deleted, 200 are created
      await inParallel(200, 24, (i) =>
        suite.mergePatch(core(ns, 'configmaps', `cm-${i}`), { metadata: { labels: { team: 'moved' } } }),
      );
      await inParallel(200, 24, (i) => suite.client.request('DELETE', core(ns, 'configmaps', `cm-${200 + i}`)));
      await inParallel(200, 24, (i) => create(suite.client, core(ns, 'configmaps'), configMap(COUNT + i, 'new')));
      const listed = async () => {
        const byKey = new Map<string, string[]>();
        for (const cm of (await suite.get(core(ns, 'configmaps'))).items as Body[]) {
          const key = cm.metadata.labels?.team;
          if (key) byKey.set(key, [...(byKey.get(key) ?? []), cm.metadata.name].sort());
        }
        return byKey;
      };
      const want = await listed();
      assert.equal(want.get('moved')?.length, 200);
      const answers = () => new Map([...want.keys()].map((key) => [key, [...byTeam.get(key)].sort()]));
      await eventually('the index to follow the churn', async () =>
        JSON.stringify([...answers()]) === JSON.stringify([...want]) && byTeam.size === COUNT ? true : undefined,
      );
      assert.deepEqual(answers(), want);
      assert.deepEqual(byTeam.get('team-0').length, COUNT / 50 - 8, 'moved and deleted ones are gone from their key');
      process.stdout.write(`# index over ${COUNT} ConfigMaps: first complete list in ${seconds.toFixed(1)} s\n`);
      await operator.stop();
    },
  );

  it(
    'the old leader, let go, sends no write through ctx.client: its calls fail with FencedWriteError',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'split');
      const proxies = [
        await FaultProxy.start(suite.cluster.kubeconfig),
        await FaultProxy.start(suite.cluster.kubeconfig),
      ];
      // r1 is frozen within its long pause (a margin for a loaded machine); r2 finishes quickly. The frozen
      // time counts towards r1's pause, so it goes on as soon as it is let go.
      const first = replica('r1', proxies[0].kubeconfig, ns, 8000);
      let second: ReturnType<typeof replica> | undefined;
      try {
        await untilOutput('r1 to lead', first.output, 'watching myresources', 30_000);
        second = replica('r2', proxies[1].kubeconfig, ns, 200);
        await untilOutput('r2 to stand by', second.output, 'is held by', 30_000);
        await create(suite.client, my(ns), myResourceObject('obj', { image: 'x' }));
        await untilOutput('r1 mid-handler', first.output, 'midway obj r1', 30_000);
        first.child.kill('SIGSTOP');
        await untilOutput('r2 to take over', second.output, 'watching myresources', 30_000);
        await suite.untilPhase('r2 to finish the object', my(ns, 'obj'), 'done by r2');
        const children = async () =>
          Object.fromEntries(
            ((await suite.get(core(ns, 'configmaps'))).items as Body[])
              .filter((cm) => cm.metadata.name.startsWith('obj-'))
              .map((cm) => [cm.metadata.name, { by: cm.data.by, rv: cm.metadata.resourceVersion }]),
          );
        const finished = await children();
        assert.deepEqual(Object.keys(finished).sort(), ['obj-second', 'obj-third'], 'r2 deleted obj-first');
        const seen = proxies[0].seen.length;
        first.child.kill('SIGCONT');
        await untilOutput('r1 to go on', first.output, 'after the pause obj r1', 30_000);
        const line =
          first
            .output()
            .split('\n')
            .find((l) => l.startsWith('after the pause obj r1')) ?? '';
        const calls = JSON.parse(line.slice('after the pause obj r1 '.length)) as Record<string, string>;
        assert.deepEqual(calls, {
          apply: 'FencedWriteError',
          create: 'FencedWriteError',
          patch: 'FencedWriteError',
          delete: 'FencedWriteError',
        });
        await sleep(3000); // time for anything late to arrive
        const late = proxies[0].seen.slice(seen).filter((r) => WRITES.has(r.method) && !r.path.includes('/leases/'));
        assert.deepEqual(late, [], 'no write of the old leader reached the API server');
        assert.deepEqual(await children(), finished, 'the children did not move');
        assert.equal((await suite.get(my(ns, 'obj'))).status?.myapp?.phase, 'done by r2');
      } finally {
        first.child.kill('SIGCONT');
        first.child.kill('SIGKILL');
        second?.child.kill('SIGKILL');
        for (const proxy of proxies) await proxy.close();
      }
    },
  );
});
