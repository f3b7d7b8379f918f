/**
 * Two operator processes (`runOperator` on one module) with leader election on one CRD: every create,
 * update and delete handler runs exactly once (each invocation appends a line to a file the test reads);
 * `kill -9` of the leader: the standby takes over within lease duration + retry period, and what happened
 * meanwhile is handled once; SIGTERM of the leader: the standby takes over within 3 s.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defineHandler, Registry } from '../../src/runtime/index.js';
import { Operator } from '../../src/runtime/operator.js';
import { FaultProxy } from '../helpers/proxy.js';
import { clientFor, eventually, skip } from '../helpers/envtest.js';
import {
  captureLogger,
  create,
  myResource,
  namespace,
  type Body,
  myResources as my,
  untilOutput,
  myResourceObject,
} from '../helpers/e2e-objects.js';
import { E2eSuite, MYRESOURCES_CRD } from '../helpers/e2e-suite.js';
import { tempDir } from '../helpers/temp-dirs.js';

const suite = new E2eSuite({ crds: [MYRESOURCES_CRD] });

/** Short lease timings keep the test quick; the bounds asserted are stated in them. */
const LEASE_S = 6;
const RENEW_S = 4;
const RETRY_S = 1;

interface Replica {
  name: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startReplica(
  name: string,
  ns: string,
  countFile: string,
  env: Record<string, string> = {},
  logFormat = 'text',
): Replica {
  const options = {
    namespace: ns,
    logFormat,
    leaderElection: true,
    leaderElectionId: `ops-${ns}`,
    leaderElectionNamespace: ns,
    leaseDuration: LEASE_S,
    renewDeadline: RENEW_S,
    retryPeriod: RETRY_S,
  };
  const script =
    'import { runOperator } from "./dist/src/cli/run.js"; ' +
    'process.exitCode = await runOperator(process.argv[1], JSON.parse(process.env.RUN_OPTIONS));';
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', script, 'test/fixtures/runtime/counting-operator.ts'],
    {
      env: {
        ...process.env,
        KUBECONFIG: suite.cluster.kubeconfig,
        RUN_OPTIONS: JSON.stringify(options),
        COUNT_FILE: countFile,
        REPLICA: name,
        POD_NAME: name,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { name, child, output: () => output, exited };
}

/** The time (epoch ms) of the log line saying this replica acquired the lease, once it has. */
function leadingSince(replica: Replica): number | undefined {
  const line = replica
    .output()
    .split('\n')
    .find((l) => l.includes('leading: acquired'));
  if (!line) return undefined;
  const time = line.startsWith('{') ? (JSON.parse(line) as { time: string }).time : line.slice(0, line.indexOf(' '));
  return Date.parse(time);
}

function invocations(countFile: string): string[] {
  return existsSync(countFile) ? readFileSync(countFile, 'utf8').split('\n').filter(Boolean) : [];
}

/** How often each `<cause> <name> <image>` ran (the replica that ran it left out). */
function counts(countFile: string): Map<string, number> {
  const seen = new Map<string, number>();
  for (const line of invocations(countFile)) {
    const key = line.split(' ').slice(0, 3).join(' ');
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return seen;
}

async function handledOnce(countFile: string, expected: string[]): Promise<void> {
  await eventually(
    `${expected.length} invocations`,
    async () => {
      const seen = counts(countFile);
      return expected.every((key) => seen.has(key)) ? true : undefined;
    },
    60_000,
  );
  await new Promise((r) => setTimeout(r, 2000)); // a second invocation would show by now
  const seen = counts(countFile);
  const doubled = [...seen].filter(([, n]) => n > 1);
  assert.deepEqual(doubled, [], `handled more than once:\n${invocations(countFile).join('\n')}`);
  assert.deepEqual([...seen.keys()].sort(), [...expected].sort());
}

const body = (name: string, image: string) => myResourceObject(name, { image });
const patchImage = (ns: string, name: string, image: string) => suite.mergePatch(my(ns, name), { spec: { image } });

describe('leader election: two operator processes on one CRD', { skip }, () => {
  suite.hooks();

  // Records in annotations (two writes per outcome), and in status.kopfgen (one /status write carries them).
  for (const records of ['annotations', 'status'] as const) {
    it(
      `each handler once per cause; kill -9 of the leader: taken over in time, nothing lost or doubled; SIGTERM: over within 3 s (records in ${records})`,
      { timeout: 240_000 },
      async () => {
        const ns = await namespace(suite.client, 'leader');
        const countFile = join(tempDir('kopfgen-count-'), 'invocations');
        const mode = { STATUS_RECORDS: records === 'status' ? '1' : '0' };
        const replicas = [
          startReplica('a', ns, countFile, { HANDLER_MS: '3000', ...mode }),
          startReplica('b', ns, countFile, { HANDLER_MS: '3000', ...mode }),
        ];
        const extra: Replica[] = [];
        try {
          const leader = await eventually(
            'a leader',
            async () => replicas.find((r) => leadingSince(r) !== undefined),
            60_000,
          );
          const standby = replicas.find((r) => r !== leader)!;
          await untilOutput('the standby to see the leader', standby.output, `is held by ${leader.name}_`);
          assert.equal(leadingSince(standby), undefined, 'one leader at a time');

          // Create, update, delete while both run.
          const names = ['o-1', 'o-2', 'o-3', 'o-4'];
          for (const name of names) await create(suite.client, my(ns), body(name, 'v1'));
          await handledOnce(
            countFile,
            names.map((n) => `create ${n} v1`),
          );
          for (const name of names) await patchImage(ns, name, 'v2');
          const updated = names.map((n) => `update ${n} v2`);
          await handledOnce(countFile, [...names.map((n) => `create ${n} v1`), ...updated]);
          for (const name of names.slice(0, 2)) await suite.client.request('DELETE', my(ns, name));
          const deleted = names.slice(0, 2).map((n) => `delete ${n} v2`);
          await handledOnce(countFile, [...names.map((n) => `create ${n} v1`), ...updated, ...deleted]);
          assert.ok(
            invocations(countFile).every((line) => line.endsWith(` ${leader.name}`)),
            'only the leader handled',
          );

          // kill -9 of the leader while its handlers run (each takes 3 s); changes keep coming meanwhile.
          for (const name of ['k-1', 'k-2']) await create(suite.client, my(ns), body(name, 'v1'));
          await new Promise((r) => setTimeout(r, 1000));
          const killedAt = Date.now();
          leader.child.kill('SIGKILL');
          await patchImage(ns, 'o-3', 'v3');
          await suite.client.request('DELETE', my(ns, 'o-4'));
          const since = await eventually('the standby to take over', async () => leadingSince(standby), 60_000);
          const takeover = (since - killedAt) / 1000;
          // lease duration + retry period (the standby's look is jittered up to 1.2x, as client-go's), plus the
          // round trip of the takeover write
          const bound = LEASE_S + 1.2 * RETRY_S + 0.5;
          process.stdout.write(`# takeover after kill -9: ${takeover.toFixed(1)} s (bound ${bound} s)\n`);
          assert.ok(takeover <= bound, `took over ${takeover} s after the kill`);
          const all = [
            ...names.map((n) => `create ${n} v1`),
            ...updated,
            ...deleted,
            'create k-1 v1',
            'create k-2 v1',
            'update o-3 v3',
            'delete o-4 v2',
          ];
          await handledOnce(countFile, all);
          for (const name of ['k-1', 'k-2']) {
            const handled = await suite.client.request<Body>('GET', my(ns, name));
            assert.equal(handled.status?.myapp?.phase, 'Created');
            const stored = records === 'status' ? handled.status?.kopfgen : handled.metadata.annotations;
            const other = records === 'status' ? handled.metadata.annotations : handled.status?.kopfgen;
            assert.ok(stored?.['kopfgen.dev/last-handled-configuration'], `records in ${records}`);
            assert.equal(other?.['kopfgen.dev/last-handled-configuration'], undefined);
          }

          // SIGTERM of the (new) leader with a fresh standby: released, taken over within 3 s.
          const third = startReplica('c', ns, countFile, mode, 'json');
          extra.push(third);
          await eventually(
            'the new standby to see the leader',
            async () => (third.output().includes(`is held by ${standby.name}_`) ? true : undefined),
            60_000,
          );
          const stoppedAt = Date.now();
          standby.child.kill('SIGTERM');
          const handover = await eventually('the third replica to take over', async () => leadingSince(third), 30_000);
          const seconds = (handover - stoppedAt) / 1000;
          process.stdout.write(`# takeover after SIGTERM: ${seconds.toFixed(1)} s\n`);
          assert.ok(seconds <= 3, `took over ${seconds} s after SIGTERM`);
          assert.equal(await standby.exited, 0, standby.output());
          assert.match(standby.output(), /released/);
          await create(suite.client, my(ns), body('t-1', 'v1'));
          await handledOnce(countFile, [...all, 'create t-1 v1']);
          // --log-format json: one object per outcome line, with the fields log collectors index
          const outcome = await eventually('the JSON outcome line', async () =>
            third
              .output()
              .split('\n')
              .filter((l) => l.startsWith('{'))
              .map((l) => JSON.parse(l) as Record<string, unknown>)
              .find((o) => o.msg === 'handler myapp succeeded' && o.name === 't-1'),
          );
          assert.deepEqual(
            [outcome.level, outcome.resource, outcome.namespace, outcome.handler, outcome.cause, outcome.outcome],
            ['info', 'myresources', ns, 'myapp', 'create', 'success'],
          );
        } finally {
          for (const replica of [...replicas, ...extra]) replica.child.kill('SIGKILL');
        }
      },
    );
  }

  it(
    "a leader that cannot renew stops at its renew deadline: the handler's signal aborts, its write is not sent",
    { timeout: 120_000 },
    async () => {
      const ns = await namespace(suite.client, 'fence');
      const proxy = await FaultProxy.start(suite.cluster.kubeconfig);
      const registry = new Registry();
      const seen: { started?: number; aborted?: number } = {};
      defineHandler<unknown, { phase?: string }>(myResource, 'myapp').onCreate(
        async ({ signal }) => {
          seen.started = Date.now();
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          seen.aborted = Date.now();
          await new Promise((resolve) => setTimeout(resolve, 500)); // then it returns a result all the same
          return { phase: 'Done' };
        },
        { registry },
      );
      const logger = captureLogger();
      const timings = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 };
      const operator = new Operator({
        registry,
        namespace: ns,
        logger,
        client: clientFor(proxy.kubeconfig),
        leaderElection: { id: `fence-${ns}`, namespace: ns, ...timings },
      });
      await operator.start();
      try {
        await eventually('leading', async () => (operator.isLeader() ? true : undefined), 30_000);
        await create(suite.client, my(ns), body('f-1', 'v1'));
        await eventually('the handler to start', async () => seen.started);
        const failingFrom = Date.now();
        proxy.inject({ method: 'PUT', path: /\/leases\//, status: 500, times: 10_000 });
        const aborted = await eventually("the handler's signal to abort", async () => seen.aborted, 30_000);
        const after = (aborted - failingFrom) / 1000;
        process.stdout.write(
          `# lease renewals failing: handler signal aborted after ${after.toFixed(1)} s (renew deadline 2 s)\n`,
        );
        assert.ok(after <= 2 + 0.5 + 0.5, `aborted ${after} s after the renewals started failing`);
        await eventually('the refused write to be logged', async () =>
          logger.lines.some((l) => /PATCH .*f-1.* not sent: this replica .* no longer holds the lease/.test(l))
            ? true
            : undefined,
        );
        const object = await suite.client.request<Body>('GET', my(ns, 'f-1'));
        assert.equal(object.status?.myapp, undefined, 'no status written after the lease was lost');
        const writes = proxy.seen.filter((r) => r.method === 'PATCH' && r.path.includes('/myresources/f-1'));
        assert.ok(writes.length <= 1, `only the finalizer patch before the handler ran: ${JSON.stringify(writes)}`);
        assert.equal(operator.isLeader(), false);
      } finally {
        await operator.stop();
        await proxy.close();
      }
    },
  );
});
