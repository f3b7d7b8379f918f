/**
 * Leader election against a real API server, with short timings (lease 3 s, renew deadline 2 s,
 * retry 0.5 s): one leader at a time; a graceful stop hands over within about a retry period; a
 * leader killed with SIGKILL is replaced after the lease duration and not before; a leader cut off
 * from the API server stops leading within its renew deadline, before the standby takes over.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { KubeClient } from '../../../src/runtime/kube/client.js';
import { LeaderElector } from '../../../src/runtime/leader/leader-elector.js';
import type { LeaderTimings } from '../../../src/runtime/leader/lease-decision.js';
import { leasePath, recordOf, type Lease, type LeaseRecord } from '../../../src/runtime/leader/lease-record.js';
import { TcpSwitch } from '../../helpers/tcp-switch.js';
import {
  eventually,
  skip,
  START_TIMEOUT,
  startCluster,
  stopCluster,
  TEST_TIMEOUT,
  type Cluster,
} from '../../helpers/envtest.js';
import { captureLogger, namespace, type CapturedLogger } from '../../helpers/e2e-objects.js';

const timings: LeaderTimings = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };
/** Scheduling and request latency on a shared 2-core machine: what the bounds below allow on top. */
const MARGIN_MS = 700;

let cluster: Cluster | undefined;
let ns = '';
const candidates: Candidate[] = [];
const children: ChildProcess[] = [];
const switches: TcpSwitch[] = [];

/** When the test reads a lease it also notes the time: all candidates run on this machine's clock. */
async function lease(name: string): Promise<LeaseRecord> {
  const path = leasePath({ namespace: ns, name });
  return recordOf(await cluster!.client.request<Lease>('GET', path));
}

interface Candidate {
  elector: LeaderElector;
  stop: AbortController;
  logger: CapturedLogger;
  /** When it started and stopped leading (epoch ms), per term. */
  started: number[];
  stopped: number[];
  /** When each term's work (which drains `drainMs` after the leader's signal aborts) settled. */
  drained: number[];
  leaders: string[];
  done: Promise<void>;
}

function candidate(leaseName: string, identity: string, client: KubeClient = cluster!.client, drainMs = 0): Candidate {
  const logger = captureLogger();
  const elector = new LeaderElector({ client, name: leaseName, namespace: ns, identity, logger, ...timings });
  const stop = new AbortController();
  const c: Candidate = {
    elector,
    stop,
    logger,
    started: [],
    stopped: [],
    drained: [],
    leaders: [],
    done: Promise.resolve(),
  };
  c.done = elector.run(stop.signal, {
    onStartedLeading: (signal) => {
      c.started.push(Date.now());
      return new Promise<void>((resolve) => {
        signal.addEventListener('abort', () =>
          setTimeout(() => {
            c.drained.push(Date.now());
            resolve();
          }, drainMs),
        );
      });
    },
    onStoppedLeading: () => c.stopped.push(Date.now()),
    onNewLeader: (id) => c.leaders.push(id),
  });
  candidates.push(c);
  return c;
}

const leading = (c: Candidate) => (c.elector.isLeader() ? true : undefined);

interface ChildEvent {
  event: string;
  at: number;
}

interface Child {
  child: ChildProcess;
  events: ChildEvent[];
}

/** A candidate in a child process, for SIGKILL; resolves once it leads. */
async function childCandidate(
  leaseName: string,
  identity: string,
  times: Partial<LeaderTimings> = timings,
): Promise<Child> {
  const script = fileURLToPath(new URL('../../helpers/leader-child.js', import.meta.url));
  const options = { kubeconfig: cluster!.kubeconfig, namespace: ns, name: leaseName, identity, ...times };
  const env = { ...process.env, LEADER_CHILD: JSON.stringify(options) };
  const stderr = process.env.KOPFGEN_E2E_LOG === '1' ? 'inherit' : 'ignore';
  const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', stderr] });
  children.push(child);
  const events: ChildEvent[] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) events.push(JSON.parse(line));
  });
  const started = async () => (events.some((e) => e.event === 'started') ? true : undefined);
  await eventually(`${identity} to lead`, started, 20_000);
  return { child, events };
}

describe('leader election on a Lease, against a real API server', { skip }, () => {
  before(
    async () => {
      cluster = startCluster();
      ns = await namespace(cluster.client, 'lease');
    },
    { timeout: START_TIMEOUT },
  );

  after(async () => {
    for (const c of candidates) c.stop.abort();
    await Promise.all(candidates.map((c) => c.done));
    for (const child of children) child.kill('SIGKILL');
    for (const s of switches) await s.close();
    stopCluster(cluster);
  });

  it('two candidates on one lease: exactly one leads, the other knows it', { timeout: TEST_TIMEOUT }, async () => {
    const a = candidate('one', 'a_1');
    const b = candidate('one', 'b_1');
    const leader = await eventually('a leader', async () => [a, b].find((c) => c.elector.isLeader()));
    const standby = leader === a ? b : a;
    // Watch it over two lease durations (many renews and standby looks): never two leaders, never none.
    const until = Date.now() + 2 * timings.leaseDurationMs;
    while (Date.now() < until) {
      assert.equal([a, b].filter((c) => c.elector.isLeader()).length, 1, 'exactly one leader');
      await new Promise((r) => setTimeout(r, 50));
    }
    const record = await lease('one');
    assert.equal(record.holderIdentity, leader.elector.identity);
    assert.equal(record.leaseTransitions, 0, 'created once, never changed hands');
    assert.equal(record.leaseDurationSeconds, 3);
    assert.ok(Date.now() - record.renewTime < timings.retryPeriodMs + MARGIN_MS, 'the leader keeps renewing');
    assert.deepEqual(standby.leaders, [leader.elector.identity]);
    assert.equal(standby.elector.state().role, 'standby');
    assert.equal(standby.elector.state().holder, leader.elector.identity);
    assert.equal(leader.elector.state().role, 'leader');
    assert.equal(leader.started.length, 1);
    assert.equal(standby.started.length, 0);
  });

  it(
    'a graceful stop drains, releases, and the standby takes over within a retry period',
    {
      timeout: TEST_TIMEOUT,
    },
    async () => {
      const drainMs = 300;
      const a = candidate('graceful', 'a_2', cluster!.client, drainMs);
      await eventually('a to lead', async () => leading(a));
      const b = candidate('graceful', 'b_2', cluster!.client, drainMs);
      await eventually('b to see a', async () => (b.leaders.includes('a_2') ? true : undefined));
      const stoppedAt = Date.now();
      a.stop.abort();
      assert.equal(a.elector.isLeader(), false, 'stops leading at once');
      await a.done;
      await eventually('b to lead', async () => leading(b));
      const handover = b.started[0] - stoppedAt;
      console.log(`graceful handover: ${handover} ms (drain ${drainMs} ms, retry ${timings.retryPeriodMs} ms)`);
      assert.ok(a.stopped[0] - stoppedAt < 50, `a's signal aborted at once (${a.stopped[0] - stoppedAt} ms)`);
      assert.ok(b.started[0] >= a.drained[0], "b starts only after a's work drained: no overlap");
      assert.ok(handover <= drainMs + timings.retryPeriodMs + MARGIN_MS, `handover took ${handover} ms`);
      assert.ok(a.logger.lines.some((l) => l.includes('released lease')));
      const record = await lease('graceful');
      assert.equal(record.holderIdentity, 'b_2');
      assert.equal(record.leaseTransitions, 1);
      assert.equal(record.leaseDurationSeconds, 3);
    },
  );

  it(
    'with the default timings (15 s, 10 s, 2 s), SIGTERM of the leader hands over within 3 s',
    {
      timeout: TEST_TIMEOUT,
    },
    async () => {
      const { child, events } = await childCandidate('sigterm', 't_5', {});
      const logger = captureLogger();
      const b = new LeaderElector({ client: cluster!.client, name: 'sigterm', namespace: ns, identity: 'b_5', logger });
      const stop = new AbortController();
      let startedAt = 0;
      const done = b.run(stop.signal, {
        onStartedLeading: () => {
          startedAt = Date.now();
        },
        onStoppedLeading: () => undefined,
      });
      try {
        await eventually('b to see t', async () => (b.state().holder === 't_5' ? true : undefined));
        const termAt = Date.now();
        child.kill('SIGTERM');
        await eventually('b to lead', async () => (b.isLeader() ? true : undefined), 10_000);
        console.log(`SIGTERM handover with default timings: ${startedAt - termAt} ms`);
        assert.ok(startedAt - termAt <= 3_000, `${startedAt - termAt} ms`);
        await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(undefined)));
        const terms = events.map((e) => e.event).filter((e) => e !== 'leader');
        assert.deepEqual(terms, ['ready', 'started', 'stopped', 'exited'], 'stopped leading, released, exited');
        assert.equal(child.exitCode, 0);
      } finally {
        stop.abort();
        await done;
      }
    },
  );

  it(
    'a leader killed with SIGKILL is replaced after the lease duration, not before',
    {
      timeout: TEST_TIMEOUT,
    },
    async () => {
      const { child, events } = await childCandidate('killed', 'k_3');
      const b = candidate('killed', 'b_3');
      await eventually('b to see k', async () => (b.leaders.includes('k_3') ? true : undefined));
      await new Promise((r) => setTimeout(r, 1_000)); // a few renews
      const killedAt = Date.now();
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      await new Promise((r) => setTimeout(r, 200)); // a renew already on the wire lands
      const last = await lease('killed');
      assert.equal(last.holderIdentity, 'k_3', 'not released: a killed process cannot');
      await eventually('b to take over', async () => leading(b), 10_000);
      const fromKill = b.started[0] - killedAt;
      const fromRenew = b.started[0] - last.renewTime;
      console.log(`SIGKILL takeover: ${fromKill} ms after the kill, ${fromRenew} ms after the last renew`);
      assert.ok(
        fromRenew >= timings.leaseDurationMs,
        `not before a lease duration after the last renew (${fromRenew})`,
      );
      const bound = timings.leaseDurationMs + timings.retryPeriodMs + MARGIN_MS;
      assert.ok(fromKill <= bound, `within lease + retry (${fromKill} ms)`);
      assert.ok(!events.some((e) => e.event === 'exited'));
      const record = await lease('killed');
      assert.equal(record.holderIdentity, 'b_3');
      assert.equal(record.leaseTransitions, 1);
    },
  );

  it(
    'a leader cut off from the API server stops leading within the renew deadline, before the standby starts',
    {
      timeout: TEST_TIMEOUT,
    },
    async () => {
      const cut = await TcpSwitch.start(cluster!.kubeconfig);
      switches.push(cut);
      const a = candidate('cut', 'a_4', cut.client());
      await eventually('a to lead', async () => leading(a));
      const b = candidate('cut', 'b_4');
      await eventually('b to see a', async () => (b.leaders.includes('a_4') ? true : undefined));
      await new Promise((r) => setTimeout(r, 1_000));
      const cutAt = Date.now();
      cut.kill();
      await eventually('a to stop leading', async () => (a.stopped.length ? true : undefined), 10_000);
      const last = await lease('cut');
      const stoppedAfter = a.stopped[0] - cutAt;
      const afterRenew = a.stopped[0] - last.renewTime;
      console.log(`cut-off leader stopped ${stoppedAfter} ms after the cut, ${afterRenew} ms after its last renew`);
      assert.ok(afterRenew <= timings.renewDeadlineMs + 100, 'at the renew deadline of the last renew');
      assert.ok(
        stoppedAfter <= timings.renewDeadlineMs + 100,
        `within the renew deadline of the cut (${stoppedAfter})`,
      );
      assert.equal(a.elector.isLeader(), false);
      await eventually('b to take over', async () => leading(b), 10_000);
      const gap = b.started[0] - a.stopped[0];
      console.log(`standby took over ${b.started[0] - cutAt} ms after the cut, ${gap} ms after a stopped`);
      assert.ok(b.started[0] - last.renewTime >= timings.leaseDurationMs, 'b waited out the lease');
      assert.ok(b.started[0] > a.stopped[0], 'never two leaders');
      const warnings = a.logger.lines.filter((l) => / WARN /.test(l) && l.includes('failed'));
      assert.ok(warnings.length <= 2, `one line per kind of failure, not per retry:\n${warnings.join('\n')}`);
      assert.ok(a.logger.lines.some((l) => l.includes('stopped leading') && l.includes('renew deadline')));
    },
  );
});
