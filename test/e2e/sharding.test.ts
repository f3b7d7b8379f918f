/**
 * Scaling out on a real API server (`kopfgen run --shards 16`, lease 4 s, renew deadline 3 s, retry 0.5 s,
 * --concurrency 4): three replica processes, each talking through a fault proxy of its own (what each sends
 * is seen), share objects whose create handler awaits 200 ms and records replica, start and end. Objects
 * come in bursts while, in turn, a fourth replica joins, the replica whose TemporaryError retry is pending
 * for the seed object is SIGKILLed, another is SIGSTOPped past its lease and thawed, and one is rolled
 * (SIGTERM, a new replica in its place). Shown: every object handled; twice only a run in flight when its
 * replica was killed or frozen (its result not written); no two runs for one object at overlapping times
 * (a frozen replica runs no code while frozen); the seed's retry finishes on the replica that took its range;
 * once thawed, the frozen replica writes nothing for an object (its proxy sees no request) and starts no
 * handler until it takes a range again; envtest (1.20) has no `shardSelector`: each replica says once that
 * it filters on arrival.
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
import { FaultProxy } from '../helpers/proxy.js';
import { rangeLeaseName } from '../../src/runtime/shard/lease-sightings.js';
import { rangeOf } from '../../src/runtime/shard/ranges.js';
import { freePort } from '../helpers/free-port.js';

const suite = new E2eSuite({ crds: [MYRESOURCES_CRD] });

const SHARDS = 16;
const BURST = 60;

interface Replica {
  name: string;
  /** Its `/readyz` and `/metrics`. */
  healthPort: number;
  child: ChildProcess;
  proxy: FaultProxy;
  output: () => string;
  exited: Promise<number | null>;
}

/** A port free now (the replica's health server takes it a moment later). */

async function startReplica(name: string, ns: string, dir: string): Promise<Replica> {
  const proxy = await FaultProxy.start(suite.cluster.kubeconfig);
  const healthPort = await freePort();
  const options = {
    namespace: ns,
    concurrency: 4,
    shards: SHARDS,
    leaderElectionId: `shard-${ns}`,
    leaderElectionNamespace: ns,
    leaseDuration: 8,
    renewDeadline: 6,
    retryPeriod: 1,
    healthPort,
    drainTimeout: 10,
  };
  const script =
    'import { runOperator } from "./dist/src/cli/run.js"; ' +
    'process.exitCode = await runOperator(process.argv[1], JSON.parse(process.env.RUN_OPTIONS));';
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', script, 'test/fixtures/runtime/shard-operator.ts'],
    {
      env: {
        ...process.env,
        KUBECONFIG: proxy.kubeconfig,
        RUN_OPTIONS: JSON.stringify(options),
        RECORD_FILE: join(dir, 'runs'),
        REPLICA: name,
        POD_NAME: name,
        SEED_DELAY: '40',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { name, healthPort, child, proxy, output: () => output, exited };
}

/** Epoch ms of each `holding range` line of the replica (a range taken). */
function takes(replica: Replica): number[] {
  return replica
    .output()
    .split('\n')
    .filter((l) => l.includes(' holding range '))
    .map((l) => Date.parse(l.slice(0, l.indexOf(' '))));
}

async function burst(ns: string, prefix: string, count: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
  for (let i = 0; i < names.length; i += 20) {
    await Promise.all(
      names
        .slice(i, i + 20)
        .map((name) => suite.client.request('POST', my(ns), { body: myResourceObject(name, { image: 'v1' }) })),
    );
  }
  return names;
}

/** Overlapping runs for one object, the frozen replica's runs cut by its freeze (it ran no code then). */
describe('sharding: replicas share the objects by hash ranges', { skip }, () => {
  suite.hooks();

  it(
    'a join, a SIGKILL, a SIGSTOP past the lease and a roll: each object handled once, none by two at once',
    { timeout: 240_000 },
    async () => {
      const ns = await namespace(suite.client, 'shards');
      const dir = mkdtempSync(join(tmpdir(), 'kopfgen-shards-'));
      const replicas: Replica[] = [];
      const start = async (name: string) => {
        const replica = await startReplica(name, ns, dir);
        replicas.push(replica);
        return replica;
      };
      const began = Date.now();
      const names = ['seed'];
      const step = (what: string) => process.stdout.write(`# ${((Date.now() - began) / 1000).toFixed(1)} s: ${what}\n`);
      try {
        const [a, b, c] = [await start('a'), await start('b'), await start('c')];
        await eventually('each of three replicas to hold ranges', async () =>
          [a, b, c].every((r) => takes(r).length > 0) ? true : undefined,
        );
        await suite.client.request('POST', my(ns), { body: myResourceObject('seed', { image: 'seed' }) });
        const seeded = await eventually('the seed to fail once', async () =>
          readRuns(dir).find((r) => r.kind === 'seed-fail'),
        );
        step(`the seed failed once on ${seeded.replica}`);

        // a join during a burst
        const joining = start('d');
        names.push(...(await burst(ns, 'join', BURST)));
        const d = await joining;
        await eventually('the newcomer to take ranges', async () => (takes(d).length > 0 ? true : undefined));
        step('d joined');

        // the replica holding the seed's range (its retry pending there) killed
        const seedUid = String((await suite.get(my(ns, 'seed'))).metadata?.uid);
        const seedLease = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${rangeLeaseName(`shard-${ns}`, rangeOf(seedUid, SHARDS))}`;
        const holder = String((await suite.get(seedLease)).spec?.holderIdentity);
        const killed = replicas.find((r) => holder.startsWith(`${r.name}_`));
        assert.ok(killed, `the seed's range is held by ${holder} (first failed on ${seeded.replica})`);
        assert.ok(Date.now() < seeded.start + 35_000, 'the retry is still pending');
        const killedAt = Date.now();
        killed.child.kill('SIGKILL');
        names.push(...(await burst(ns, 'kill', BURST)));
        step(`${killed.name} killed`);

        // another frozen past its lease, then thawed
        const frozen = replicas.find((r) => r !== killed && r.child.exitCode === null);
        assert.ok(frozen);
        const from = Date.now();
        frozen.child.kill('SIGSTOP');
        names.push(...(await burst(ns, 'freeze', BURST)));
        await sleep(Math.max(0, from + 12_000 - Date.now())); // past the lease duration and a look
        const sentBefore = frozen.proxy.seen.length;
        const to = Date.now();
        frozen.child.kill('SIGCONT');
        step(`${frozen.name} thawed`);

        // a roll: one replica stopped gracefully (its ranges drained and released), a new one in its place
        const rolled = replicas.find((r) => r !== killed && r !== frozen && r.child.exitCode === null);
        assert.ok(rolled);
        rolled.child.kill('SIGTERM');
        const rolling = start('e');
        names.push(...(await burst(ns, 'roll', BURST)));
        assert.equal(await rolled.exited, 0, rolled.output());
        await rolling;
        step(`${rolled.name} rolled`);

        await eventually(
          'every object handled',
          async () => {
            const done = new Set(readRuns(dir).flatMap((r) => (r.kind === 'create' ? [r.name] : [])));
            return names.every((n) => done.has(n)) ? true : undefined;
          },
          90_000,
        );
        await sleep(2_000); // a late or second run would show by now
        const all = readRuns(dir);
        const created = all.filter((r) => r.kind === 'create');

        // the seed's retry finished on the replica that took its range over
        const seedRuns = created.filter((r) => r.name === 'seed');
        assert.equal(seedRuns.length, 1, JSON.stringify(seedRuns));
        assert.notEqual(seedRuns[0].replica, killed.name, 'the retry ran on the new holder');
        assert.ok(seedRuns[0].start > killedAt, 'after the kill');

        // twice only what was in flight at the kill or the freeze (its result not written)
        const byName = new Map<string, HandlerRun[]>();
        for (const run of created) byName.set(run.name, [...(byName.get(run.name) ?? []), run]);
        const doubled = [...byName].filter(([, list]) => list.length > 1);
        for (const [name, list] of doubled) {
          const [first, ...rest] = list.sort((x, y) => x.start - y.start);
          assert.equal(rest.length, 1, `${name} ran ${list.length} times: ${JSON.stringify(list)}`);
          const inFlight =
            (first.replica === killed.name && first.start <= killedAt) ||
            (first.replica === frozen.name && first.start <= from + 1);
          assert.ok(
            inFlight,
            `${name} ran twice, the first run not in flight at the kill or freeze: ${JSON.stringify(list)}`,
          );
        }
        assert.ok(doubled.length <= 8, `at most the runs in flight (--concurrency 4, twice): ${doubled.length}`);
        assert.deepEqual(overlappingRuns(all, frozen.name, from, to), []);

        // once thawed, the frozen replica starts nothing and writes nothing for an object until it takes a range
        const retaken = takes(frozen).find((t) => t > to) ?? Infinity;
        const late = created.filter((r) => r.replica === frozen.name && r.start >= to && r.start < retaken);
        assert.deepEqual(late, [], `started after the thaw by ${frozen.name}`);
        const sent = frozen.proxy.seen.slice(sentBefore);
        const firstTake = sent.findIndex(
          (s) => s.method === 'PUT' && /\/leases\/shard-[^/?]*-r\d+(\?|$)/.test(s.path) && s.status < 300,
        );
        const writes = sent
          .slice(0, firstTake < 0 ? sent.length : firstTake)
          .filter((s) => s.method !== 'GET' && s.path.includes('/myresources'));
        assert.deepEqual(writes, [], 'object writes from the thawed replica before it took a range again');

        // envtest 1.20 ignores shardSelector: each replica filters on arrival, and says so once
        // (the killed replica may have died before a list that asked for its ranges)
        for (const replica of replicas) {
          const told = replica.output().match(/does not filter \S+ by shardSelector/g) ?? [];
          const want = replica === killed ? [0, 1] : [1];
          assert.ok(want.includes(told.length), `${replica.name}: ${told.length} fallback lines`);
        }
        // the ranges a replica holds and those handed over are on /metrics; it is ready
        const steady = replicas.find((r) => r !== killed && r !== frozen && r !== rolled && r.name !== 'e');
        assert.ok(steady);
        const metrics = await (await fetch(`http://127.0.0.1:${steady.healthPort}/metrics`)).text();
        const held = Number(/^kopfgen_shard_ranges_held (\d+)$/m.exec(metrics)?.[1]);
        assert.ok(held >= 1 && held <= Math.ceil(SHARDS / 3), `${steady.name} holds ${held} ranges`);
        assert.match(metrics, /^kopfgen_shard_handovers_total\{direction="in"\} [1-9]/m);
        assert.equal((await fetch(`http://127.0.0.1:${steady.healthPort}/readyz`)).status, 200);
        const outcome = replicas
          .flatMap((r) => r.output().split('\n'))
          .find((l) => l.includes('handler myapp succeeded'));
        assert.match(outcome ?? '', / range=\d+/, 'an outcome line names its range');
        process.stdout.write(
          `# ${names.length} objects, ${created.length} create runs, ${doubled.length} run twice (in flight at ` +
            `the kill or the freeze), ${SHARDS} ranges over ${replicas.length} replica processes in ` +
            `${Math.round((Date.now() - began) / 1000)} s; runs per replica ` +
            `${JSON.stringify(Object.fromEntries(replicas.map((r) => [r.name, created.filter((x) => x.replica === r.name).length])))}\n`,
        );
      } catch (error) {
        const done = new Set(readRuns(dir).flatMap((r) => (r.kind === 'create' ? [r.name] : [])));
        const missing = names.filter((n) => !done.has(n));
        const list = await suite.client.request<{ items: Body[] }>('GET', my(ns)).catch(() => ({ items: [] }));
        const rangeOfName = new Map(
          list.items.map((o) => [o.metadata?.name, rangeOf(String(o.metadata?.uid), SHARDS)]),
        );
        const leases = await suite.client
          .request<{ items: Body[] }>('GET', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`)
          .catch(() => ({ items: [] }));
        const holders = leases.items.map((l) => `${l.metadata?.name}=${l.spec?.holderIdentity ?? ''}`);
        process.stdout.write(
          `# missing: ${missing.map((n) => `${n}@${rangeOfName.get(n)}`).join(' ')}\n# leases: ${holders.join(' ')}\n`,
        );
        for (const replica of replicas) {
          const lines = replica.output().split('\n');
          process.stdout.write(
            `# ${replica.name}:\n${lines
              .slice(-40)
              .map((l) => `#   ${l}`)
              .join('\n')}\n`,
          );
        }
        throw error;
      } finally {
        for (const replica of replicas) {
          replica.child.kill('SIGCONT');
          replica.child.kill('SIGKILL');
        }
        await Promise.all(replicas.map((r) => r.exited));
        for (const replica of replicas) await replica.proxy.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
