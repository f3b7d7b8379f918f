/**
 * The start gate on a real API server: two operator processes with leader election (lease 6 s, renew
 * deadline 4 s, retry 1 s, --concurrency 4) on 200 objects whose create handler awaits 200 ms and 5 objects
 * with a 1 s timer. The leader is paused while it works through the backlog: frozen with SIGSTOP for 15 s,
 * or its event loop held 10 s by a CPU-bound handler. Once it runs again it starts no handler and no timer
 * tick (it no longer holds the lease; the other replica took over); every object is handled; runs for one
 * object never overlap (a paused process runs no code while paused); only runs in flight at the pause
 * (their results not written) run twice.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { eventually, skip } from '../helpers/envtest.js';
import { namespace, myResources as my, myResourceObject, sleep, type Body } from '../helpers/e2e-objects.js';
import { E2eSuite, MYRESOURCES_CRD } from '../helpers/e2e-suite.js';
import { overlappingRuns, readRuns, type HandlerRun } from '../helpers/handler-runs.js';

const suite = new E2eSuite({ crds: [MYRESOURCES_CRD] });

const OBJECTS = 200;
const TIMERS = 5;

interface Replica {
  name: string;
  child: ChildProcess;
  output: () => string;
}

function startReplica(name: string, ns: string, dir: string): Replica {
  const options = {
    namespace: ns,
    concurrency: 4,
    leaderElection: true,
    leaderElectionId: `gate-${ns}`,
    leaderElectionNamespace: ns,
    leaseDuration: 6,
    renewDeadline: 4,
    retryPeriod: 1,
  };
  const script =
    'import { runOperator } from "./dist/src/cli/run.js"; ' +
    'process.exitCode = await runOperator(process.argv[1], JSON.parse(process.env.RUN_OPTIONS));';
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', script, 'test/fixtures/runtime/gate-operator.ts'],
    {
      env: {
        ...process.env,
        KUBECONFIG: suite.cluster.kubeconfig,
        RUN_OPTIONS: JSON.stringify(options),
        RECORD_FILE: join(dir, 'runs'),
        SPIN_FILE: join(dir, 'spun'),
        REPLICA: name,
        POD_NAME: name,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  return { name, child, output: () => output };
}

/** Epoch ms of each `leading: acquired` line of the replica. */
function acquired(replica: Replica): number[] {
  return replica
    .output()
    .split('\n')
    .filter((l) => l.includes('leading: acquired'))
    .map((l) => Date.parse(l.slice(0, l.indexOf(' '))));
}

async function createAll(ns: string, spin: boolean): Promise<void> {
  const bodies: Body[] = [];
  for (let i = 0; i < OBJECTS; i++) bodies.push(myResourceObject(`c-${String(i).padStart(3, '0')}`, { image: 'v1' }));
  for (let i = 0; i < TIMERS; i++) {
    const body = myResourceObject(`t-${i}`, { image: 'v1' });
    body.metadata.labels = { timer: 'yes' };
    bodies.push(body);
  }
  // The CPU-bound handler's object comes a little way into the backlog, so it runs while the leader works.
  if (spin) bodies.splice(30, 0, myResourceObject('spin', { image: 'spin' }));
  for (let i = 0; i < bodies.length; i += 20) {
    await Promise.all(bodies.slice(i, i + 20).map((body) => suite.client.request('POST', my(ns), { body })));
  }
}

/**
 * What a paused replica ran is cut by the pause (it ran no code then), except the run that paused it (a
 * CPU-bound handler's run does run throughout); then no two runs for one object may overlap.
 */
describe('the start gate: a leader paused past its lease starts nothing once it runs again', { skip }, () => {
  suite.hooks();

  for (const pause of ['SIGSTOP for 15 s', 'a handler holding the event loop for 10 s'] as const) {
    const spin = pause !== 'SIGSTOP for 15 s';
    it(`the leader paused by ${pause}`, { timeout: 240_000 }, async () => {
      const ns = await namespace(suite.client, spin ? 'spin' : 'freeze');
      const dir = mkdtempSync(join(tmpdir(), 'kopfgen-gate-'));
      const replicas = [startReplica('a', ns, dir), startReplica('b', ns, dir)];
      try {
        const leader = await eventually('a leader', async () => replicas.find((r) => acquired(r).length > 0), 60_000);
        const other = replicas.find((r) => r !== leader);
        assert.ok(other);
        await eventually('the standby to see the leader', async () =>
          other.output().includes(`is held by ${leader.name}_`) ? true : undefined,
        );
        await createAll(ns, spin);

        let from: number;
        let to: number;
        if (spin) {
          // The leader reaches the CPU-bound handler; the other takes over while it holds the loop.
          const spun = await eventually(
            'the spinning handler to end',
            async () => readRuns(dir).find((r) => r.name === 'spin'),
            90_000,
          );
          assert.equal(spun.replica, leader.name, 'the leader ran the CPU-bound handler');
          from = spun.start;
          to = spun.end;
        } else {
          await eventually('the leader to be part way through', async () =>
            readRuns(dir).filter((r) => r.kind === 'create').length >= 30 ? true : undefined,
          );
          from = Date.now();
          leader.child.kill('SIGSTOP');
          await sleep(15_000);
          to = Date.now();
          leader.child.kill('SIGCONT');
        }
        await eventually('the other replica to take over', async () => (acquired(other).length > 0 ? true : undefined));

        const names = [
          ...Array.from({ length: OBJECTS }, (_, i) => `c-${String(i).padStart(3, '0')}`),
          ...Array.from({ length: TIMERS }, (_, i) => `t-${i}`),
          ...(spin ? ['spin'] : []),
        ];
        await eventually(
          'every object handled',
          async () => {
            const done = new Set(readRuns(dir).map((r) => (r.kind === 'create' ? r.name : '')));
            return names.every((n) => done.has(n)) ? true : undefined;
          },
          120_000,
        );
        await eventually('timer ticks on the new leader', async () =>
          readRuns(dir).some((r) => r.kind === 'timer' && r.replica === other.name && r.start > to) ? true : undefined,
        );
        await sleep(3_000); // a late start would show by now
        const all = readRuns(dir);

        // Nothing started by the paused replica once it ran again, unless it led again first.
        const leadsAgain = acquired(leader).find((t) => t > to) ?? Infinity;
        const late = all.filter((r) => r.replica === leader.name && r.start >= to && r.start < leadsAgain);
        assert.deepEqual(late, [], `started after the pause by ${leader.name}:\n${JSON.stringify(late, null, 1)}`);

        // Twice only what was in flight at the pause (started before it, its result not written then).
        const created = all.filter((r) => r.kind === 'create');
        const count = new Map<string, HandlerRun[]>();
        for (const run of created) count.set(run.name, [...(count.get(run.name) ?? []), run]);
        const doubled = [...count].filter(([, list]) => list.length > 1);
        for (const [name, list] of doubled) {
          const [first, ...rest] = list.sort((a, b) => a.start - b.start);
          assert.equal(rest.length, 1, `${name} ran ${list.length} times`);
          assert.ok(
            first.replica === leader.name && first.start <= from + 1 && rest[0].replica === other.name,
            `${name} ran twice, the first run not in flight at the pause: ${JSON.stringify(list)}`,
          );
        }
        assert.ok(
          doubled.length <= 4 + (spin ? 1 : 0),
          `at most the runs in flight (--concurrency 4): ${doubled.length}`,
        );
        assert.deepEqual(overlappingRuns(all, leader.name, from, to, spin ? 'spin' : undefined), []);

        const lost = leader
          .output()
          .split('\n')
          .filter((l) => l.includes('left to the next leader'));
        process.stdout.write(
          `# ${pause}: ${created.length} create runs for ${names.length} objects, ${doubled.length} run twice ` +
            `(in flight at the pause); the paused replica said: ${lost.join(' | ')}\n`,
        );
        assert.equal(lost.length, 1, leader.output());
        assert.match(lost[0], /stopped leading lease .*: \d+ queued start\(s\) left to the next leader/);
      } finally {
        for (const replica of replicas) {
          replica.child.kill('SIGCONT');
          replica.child.kill('SIGKILL');
        }
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
