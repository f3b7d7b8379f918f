/**
 * Conditions and observedGeneration from the handlers' outcomes, against a real API server, read the
 * way the rest of the cluster reads them: `kubectl wait --for=condition=Ready` returns once the retried
 * handler succeeds and not before, times out on a PermanentError (Stalled), and a spec change is
 * Reconciling until handled, observedGeneration following metadata.generation. Every status a watch
 * observes meanwhile goes through the kstatus checker (helpers/kstatus.ts): a finished object never
 * reads InProgress, a failing one never Current. The handler writes `status.ensure.phase` as
 * `<Done|Retrying|Failed> <generation>` in the same write as the conditions, which tells the checker
 * where each observed state stands independently of the conditions.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { defineHandler, defineResource, PermanentError, Registry, TemporaryError } from '../../src/runtime/index.js';
import { KubeClient, type RequestOptions } from '../../src/runtime/kube/client.js';
import { Operator } from '../../src/runtime/operator.js';
import { eventually, skip, TEST_TIMEOUT } from '../helpers/envtest.js';
import { captureLogger, namespace, objectPath, type Body } from '../helpers/e2e-objects.js';
import { E2eSuite } from '../helpers/e2e-suite.js';
import { kstatus } from '../helpers/kstatus.js';
import { startOperator } from '../../src/testing/start-operator.js';

const GROUP = 'conditions.kopfgen.dev';
const suite = new E2eSuite({
  crds: [{ file: 'test/fixtures/crds/conditions.yaml', group: GROUP, version: 'v1', plural: 'beacons' }],
});
const beacons = (ns: string, name = '') => objectPath(GROUP, 'v1', 'beacons', ns, name);

interface Beacon {
  metadata?: { name?: string; namespace?: string; generation?: number };
  spec: { mode?: string; size?: number };
  status?: {
    ensure?: { phase?: string };
    observedGeneration?: number;
    conditions?: { type: 'Ready' | 'Reconciling' | 'Stalled' | 'Degraded'; status: 'True' | 'False' | 'Unknown' }[];
  };
}

const descriptor = defineResource<Beacon>({
  group: GROUP,
  version: 'v1',
  plural: 'beacons',
  kind: 'Beacon',
  scope: 'Namespaced',
  statusSubresource: true,
  statusConditions: true,
  statusObservedGeneration: true,
  printerColumns: [],
});

/**
 * `spec.mode`: `ok` succeeds; `retry:N` fails with a TemporaryError (1 s) on its first N attempts;
 * `fail` raises a PermanentError. Create and update alike.
 */
function ensure({ spec, meta, retry }: { spec: Beacon['spec']; meta: { generation?: number }; retry: number }) {
  const generation = meta.generation ?? 0;
  const mode = spec.mode ?? 'ok';
  if (mode === 'fail')
    throw new PermanentError('the spec asks for failure', { status: { phase: `Failed ${generation}` } });
  const retries = mode.startsWith('retry:') ? Number(mode.slice(6)) : 0;
  if (retry < retries)
    throw new TemporaryError(`database not ready (attempt ${retry + 1})`, {
      delay: 1,
      status: { phase: `Retrying ${generation}` },
    });
  return { phase: `Done ${generation}` };
}

/** An operator on `ns` counting the requests it sends to Beacons. */
async function operator(ns: string) {
  const registry = new Registry();
  const h = defineHandler<Beacon, { phase?: string }>(descriptor, 'ensure');
  h.onCreate(ensure, { registry });
  h.onUpdate(ensure, { registry });
  const client = await KubeClient.fromDefault();
  const writes: string[] = [];
  const count = (counted: KubeClient): KubeClient => {
    const request = counted.request.bind(counted);
    counted.request = <T>(method: string, path: string, options?: RequestOptions) => {
      if (method !== 'GET' && path.includes('/beacons/'))
        writes.push(`${method} ${path.slice(path.indexOf('/beacons/') + 9)}`);
      return request<T>(method, path, options);
    };
    const fenced = counted.fenced.bind(counted);
    counted.fenced = (fence) => count(fenced(fence));
    return counted;
  };
  count(client);
  const op = suite.track(new Operator({ registry, namespace: ns, logger: captureLogger(), client }));
  await op.start();
  return { op, writes };
}

/** Every state of the Beacons in `ns` a watch delivers, from the start, each checked against kstatus as it comes. */
function observe(ns: string) {
  const states: Body[] = [];
  const problems: string[] = [];
  const abort = new AbortController();
  const check = (object: Body) => {
    const phase: string = object.status?.ensure?.phase ?? '';
    const [word, generation] = phase.split(' ');
    const current = Number(generation) === object.metadata.generation;
    const read = kstatus(object);
    const where = `${object.metadata.name} generation ${object.metadata.generation} phase "${phase}"`;
    if (current && word === 'Done' && read !== 'Current') problems.push(`${where}: finished but kstatus reads ${read}`);
    if (current && word === 'Failed' && read !== 'Failed') problems.push(`${where}: failed but kstatus reads ${read}`);
    if (word === 'Retrying' && read !== 'InProgress') problems.push(`${where}: retrying but kstatus reads ${read}`);
    if (read === 'Current' && !(current && word === 'Done') && phase !== '')
      problems.push(`${where}: reads Current before it is handled`);
  };
  const watching = suite.client
    .stream(
      beacons(ns),
      { watch: 'true', allowWatchBookmarks: 'false' },
      (line) => {
        const event = line as { type: string; object: Body };
        if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return;
        states.push(event.object);
        check(event.object);
      },
      abort.signal,
      120_000,
    )
    .catch(() => undefined);
  return {
    states,
    problems,
    stop: async () => {
      abort.abort();
      await watching;
    },
  };
}

/** `kubectl wait --for=condition=Ready` on one Beacon: its exit code and when it exited. */
function kubectlWait(ns: string, name: string, timeout: string) {
  const child = spawn(
    'kubectl',
    [
      '--kubeconfig',
      suite.cluster.kubeconfig,
      'wait',
      '-n',
      ns,
      `beacons.${GROUP}/${name}`,
      '--for=condition=Ready',
      `--timeout=${timeout}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise<{ code: number | null; at: number; output: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, at: Date.now(), output })),
  );
}

/** `kubectl apply` of a Beacon, as a user would create or change it. */
function kubectlApply(ns: string, name: string, spec: Beacon['spec']): void {
  const manifest = JSON.stringify({
    apiVersion: `${GROUP}/v1`,
    kind: 'Beacon',
    metadata: { name, namespace: ns },
    spec,
  });
  execFileSync('kubectl', ['--kubeconfig', suite.cluster.kubeconfig, 'apply', '-f', '-'], {
    input: manifest,
    stdio: ['pipe', 'ignore', 'inherit'],
    timeout: 60_000,
  });
}

const condition = (object: Body | undefined, type: string): Body | undefined =>
  object?.status?.conditions?.find((c: Body) => c.type === type);

describe('conditions from outcomes (kstatus)', { skip }, () => {
  suite.hooks();

  it(
    'kubectl wait --for=condition=Ready returns once the retried handler succeeds, not before',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'conditions');
      const seen = observe(ns);
      const { op, writes } = await operator(ns);
      try {
        kubectlApply(ns, 'a', { mode: 'retry:2' });
        const waited = kubectlWait(ns, 'a', '60s');
        const { code, at, output } = await waited;
        assert.equal(code, 0, output);
        const object = await suite.get(beacons(ns, 'a'));
        assert.equal(condition(object, 'Ready')?.status, 'True');
        assert.equal(object.status.observedGeneration, object.metadata.generation);
        assert.equal(condition(object, 'Reconciling'), undefined, 'Reconciling removed once handled');
        await eventually('the watch to see the final state', async () =>
          seen.states.some((s) => s.status?.ensure?.phase === 'Done 1') ? true : undefined,
        );
        const retrying = seen.states.filter((s) => s.status?.ensure?.phase === 'Retrying 1');
        assert.ok(retrying.length >= 2, 'both retries observed');
        for (const state of retrying) {
          assert.equal(condition(state, 'Reconciling')?.status, 'True');
          assert.match(condition(state, 'Reconciling')?.message, /^database not ready \(attempt [12]\)$/);
          assert.equal(condition(state, 'Reconciling')?.reason, 'Create:ensure');
          assert.notEqual(condition(state, 'Ready')?.status, 'True');
        }
        assert.equal(
          condition(retrying[0], 'Reconciling')?.lastTransitionTime,
          condition(retrying[retrying.length - 1], 'Reconciling')?.lastTransitionTime,
          'no transition between the two retries: lastTransitionTime unchanged',
        );
        const done = seen.states.find((s) => s.status?.ensure?.phase === 'Done 1');
        assert.ok(done && condition(done, 'Ready')?.status === 'True', 'Ready in the same write as the outcome');
        assert.ok(
          at >= Date.parse(condition(object, 'Ready')?.lastTransitionTime) - 1000,
          'kubectl wait returned after Ready',
        );
        // finalizer-free, one outcome write per attempt: three /status writes, nothing else
        assert.deepEqual(writes.filter((w) => w.endsWith('a/status')).length, 3, writes.join(', '));
        await seen.stop();
        assert.deepEqual(seen.problems, []);
      } finally {
        await seen.stop();
        await op.stop();
      }
    },
  );

  it(
    'a PermanentError: Stalled=True and kubectl wait --for=condition=Ready times out',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'conditions-fail');
      const seen = observe(ns);
      const { op } = await operator(ns);
      try {
        kubectlApply(ns, 'f', { mode: 'fail' });
        const waited = kubectlWait(ns, 'f', '8s');
        const stalled = await eventually('Stalled', async () => {
          const object = await suite.get(beacons(ns, 'f')).catch(() => undefined);
          return condition(object, 'Stalled')?.status === 'True' ? object : undefined;
        });
        assert.match(condition(stalled, 'Stalled')?.message, /the spec asks for failure/);
        assert.equal(condition(stalled, 'Ready')?.status, 'False');
        assert.equal(
          stalled?.status.observedGeneration,
          stalled?.metadata.generation,
          'the failed generation observed',
        );
        assert.equal(kstatus(stalled ?? {}), 'Failed');
        const { code, output } = await waited;
        assert.notEqual(code, 0, `kubectl wait must time out: ${output}`);
        assert.match(output, /timed out/);
        await seen.stop();
        assert.deepEqual(seen.problems, []);
      } finally {
        await seen.stop();
        await op.stop();
      }
    },
  );

  it(
    'a spec change is Reconciling until handled; observedGeneration follows metadata.generation',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'conditions-update');
      const seen = observe(ns);
      const { op } = await operator(ns);
      try {
        kubectlApply(ns, 'u', { mode: 'ok', size: 1 });
        const first = await eventually('Ready', async () => {
          const object = await suite.get(beacons(ns, 'u')).catch(() => undefined);
          return condition(object, 'Ready')?.status === 'True' ? object : undefined;
        });
        const readySince = condition(first, 'Ready')?.lastTransitionTime;
        // A spec change handled at once: Ready stays True, its transition time too; the new generation is observed.
        await suite.mergePatch(beacons(ns, 'u'), { spec: { size: 2 } });
        const second = await eventually('generation 2 observed', async () => {
          const object = await suite.get(beacons(ns, 'u'));
          return object.status?.observedGeneration === 2 ? object : undefined;
        });
        assert.equal(second.metadata.generation, 2);
        assert.equal(condition(second, 'Ready')?.status, 'True');
        assert.equal(
          condition(second, 'Ready')?.lastTransitionTime,
          readySince,
          'no transition: lastTransitionTime unchanged',
        );
        // A spec change whose handler retries: Reconciling until handled, kubectl wait returns after.
        await suite.mergePatch(beacons(ns, 'u'), { spec: { size: 3, mode: 'retry:1' } });
        const reconciling = await eventually('Reconciling', async () => {
          const object = await suite.get(beacons(ns, 'u'));
          return condition(object, 'Reconciling')?.status === 'True' ? object : undefined;
        });
        assert.equal(reconciling.status.observedGeneration, 2, 'generation 3 not yet observed');
        assert.equal(kstatus(reconciling), 'InProgress');
        const { code, output } = await kubectlWait(ns, 'u', '60s');
        assert.equal(code, 0, output);
        const handled = await suite.get(beacons(ns, 'u'));
        assert.equal(handled.status.observedGeneration, 3);
        assert.equal(handled.status.ensure.phase, 'Done 3');
        assert.equal(kstatus(handled), 'Current');
        await seen.stop();
        assert.deepEqual(seen.problems, []);
        assert.ok(seen.states.length >= 5, `the watch observed the writes (${seen.states.length})`);
      } finally {
        await seen.stop();
        await op.stop();
      }
    },
  );
  it(
    'startOperator.waitForCondition: Ready for the current generation, as kubectl wait reads it',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'conditions-kit');
      const registry = new Registry();
      const h = defineHandler<Beacon, { phase?: string }>(descriptor, 'ensure');
      h.onCreate(ensure, { registry });
      h.onUpdate(ensure, { registry });
      const running = await startOperator(registry, { kubeconfig: suite.cluster.kubeconfig, namespace: ns });
      try {
        await running.create(descriptor, { metadata: { name: 'k', namespace: ns }, spec: { mode: 'retry:1' } });
        const ready = await running.waitForCondition(descriptor, 'k', 'Ready', 'True', { namespace: ns });
        assert.equal(ready.status?.ensure?.phase, 'Done 1');
        await running.patch(descriptor, 'k', { spec: { mode: 'fail' } }, { namespace: ns });
        const stalled = await running.waitForCondition(descriptor, 'k', 'Stalled', 'True', { namespace: ns });
        assert.equal(stalled.status?.observedGeneration, 2);
        assert.equal(kstatus(stalled as Body), 'Failed');
      } finally {
        await running.stop();
      }
    },
  );
});
