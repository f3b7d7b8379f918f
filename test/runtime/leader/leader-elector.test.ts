/**
 * The elector's loop against an in-memory Lease endpoint (real timers, short timings: lease 1 s,
 * renew deadline 600 ms, retry 200 ms): which requests it makes, when terms start and end, release.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FailureLog, LeaderElector, REPEAT_WARNING_MS } from '../../../src/runtime/leader/leader-elector.js';
import { KubeError } from '../../../src/runtime/kube/client.js';
import type { LeaderTimings } from '../../../src/runtime/leader/lease-decision.js';
import { formatMicroTime, recordOf } from '../../../src/runtime/leader/lease-record.js';
import { FakeLeaseApi } from '../../helpers/fake-lease-api.js';
import { eventually } from '../../helpers/envtest.js';
import { captureLogger } from '../../helpers/e2e-objects.js';
import { outsideUnitScope } from '../../helpers/test-scope.js';

const timings: LeaderTimings = { leaseDurationMs: 1_000, renewDeadlineMs: 600, retryPeriodMs: 200 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function start(api: FakeLeaseApi, drainMs = 0, identity = 'me_1') {
  const logger = captureLogger();
  const options = { client: api, name: 'op', namespace: 'ns', identity, logger, ...timings };
  const elector = new LeaderElector(options);
  const stop = new AbortController();
  const seen = { started: [] as number[], stopped: [] as number[], drained: [] as number[], leaders: [] as string[] };
  const signals: AbortSignal[] = [];
  const done = elector.run(stop.signal, {
    onStartedLeading(signal) {
      seen.started.push(Date.now());
      signals.push(signal);
      return new Promise<void>((resolve) =>
        signal.addEventListener('abort', () =>
          setTimeout(() => {
            seen.drained.push(Date.now());
            resolve();
          }, drainMs),
        ),
      );
    },
    onStoppedLeading: () => seen.stopped.push(Date.now()),
    onNewLeader: (id) => seen.leaders.push(id),
  });
  return { elector, stop, seen, signals, done, logger };
}

/** Another candidate writes itself as holder, as a takeover would. */
function steal(api: FakeLeaseApi, holder = 'other_2'): void {
  const lease = api.lease;
  assert.ok(lease);
  const now = formatMicroTime(Date.now());
  const spec = { ...lease.spec, holderIdentity: holder, acquireTime: now, renewTime: now, leaseDurationSeconds: 1 };
  api.store({ ...lease, spec });
}

const recordIn = (api: FakeLeaseApi) => recordOf(api.lease ?? { metadata: { name: 'op' } });
const holder = (api: FakeLeaseApi) => recordIn(api).holderIdentity;

/** The term ended at the renew deadline of the last renew that reached the server, not later. */
function assertAtDeadline(api: FakeLeaseApi, stoppedAt: number): void {
  const late = stoppedAt - recordIn(api).renewTime;
  const { renewDeadlineMs } = timings;
  assert.ok(late >= renewDeadlineMs && late <= renewDeadlineMs + 50, `stopped ${late} ms after the last renew`);
}

describe('LeaderElector loop', { skip: outsideUnitScope('real timers (about 10 s of lease terms)') }, () => {
  it('a lone candidate creates the lease, renews by PUT on its own resourceVersion, no GET per renew', async () => {
    const api = new FakeLeaseApi();
    const c = start(api);
    await eventually('leading', async () => (c.elector.isLeader() ? true : undefined), 2_000);
    const since = Date.now();
    await sleep(1_100);
    c.stop.abort();
    await c.done;
    assert.deepEqual(
      api.requests.slice(0, 2).map((r) => `${r.method} ${r.status}`),
      ['GET 404', 'POST 201'],
    );
    assert.equal(api.count('GET', since), 0, 'the leader does not read before each renew');
    assert.ok(api.count('PUT', since) >= 4, `renews every retry period (${api.count('PUT', since)} PUTs in 1.1 s)`);
    assert.equal(c.seen.started.length, 1);
    assert.deepEqual(c.seen.leaders, ['me_1']);
    const record = recordIn(api);
    assert.equal(record.holderIdentity, '', 'released on stop');
    assert.equal(record.leaseDurationSeconds, 1);
    assert.equal(record.leaseTransitions, 0);
    assert.equal(c.elector.state().role, 'stopped');
  });

  it('a lease written over by another ends the term at the next renew: 409, read, stop at once', async () => {
    const api = new FakeLeaseApi();
    const c = start(api);
    await eventually('leading', async () => (c.elector.isLeader() ? true : undefined), 2_000);
    const stolenAt = Date.now();
    steal(api);
    await eventually('stopped', async () => (c.seen.stopped.length ? true : undefined), 2_000);
    assert.ok(c.seen.stopped[0] - stolenAt <= timings.retryPeriodMs + 100, `${c.seen.stopped[0] - stolenAt} ms`);
    assert.ok(c.signals[0].aborted);
    assert.match(String((c.signals[0].reason as Error).message), /held by other_2/);
    assert.deepEqual(c.seen.leaders, ['me_1', 'other_2']);
    assert.equal(c.elector.state().role, 'standby');
    assert.equal(c.elector.state().holder, 'other_2');
    assert.equal(c.elector.holds(), false, 'the write fence closes with the term');
    const conflict = api.requests.findIndex((r) => r.method === 'PUT' && r.status === 409);
    assert.equal(api.requests[conflict + 1]?.method, 'GET', 'reads right after the conflict');
    c.stop.abort();
    await c.done;
    assert.equal(holder(api), 'other_2', 'not ours: not released');
  });

  it("after a lost term it seeks no new term before the old term's work settled", async () => {
    const api = new FakeLeaseApi();
    const c = start(api, 1_500);
    await eventually('leading', async () => (c.elector.isLeader() ? true : undefined), 2_000);
    steal(api); // and never renewed: expired for us a lease duration after we see it
    await eventually('leading again', async () => (c.seen.started.length === 2 ? true : undefined), 5_000);
    assert.ok(c.seen.started[1] >= c.seen.drained[0], 'the new term starts after the old work drained');
    assert.equal(recordIn(api).leaseTransitions, 1);
    c.stop.abort();
    await c.done;
  });

  it('a graceful stop ends the term at once, keeps renewing while the work drains, then releases', async () => {
    const api = new FakeLeaseApi();
    const c = start(api, 900); // longer than the renew deadline: without renews the lease would lapse
    await eventually('leading', async () => (c.elector.isLeader() ? true : undefined), 2_000);
    assert.equal(c.elector.holds(), true);
    const stoppedAt = Date.now();
    c.stop.abort();
    assert.equal(c.elector.isLeader(), false);
    assert.ok(c.signals[0].aborted, 'aborted in the abort itself');
    // The term's work may still write while it drains: the lease is renewed meanwhile.
    await sleep(timings.renewDeadlineMs + 100);
    assert.equal(c.elector.holds(), true, 'the fence stays open while the work drains on a renewed lease');
    await c.done;
    assert.equal(c.elector.holds(), false, 'released: the fence is closed');
    const draining = (r: { at: number }) => r.at > stoppedAt && r.at < c.seen.drained[0];
    const renewsWhileDraining = api.requests.filter((r) => r.method === 'PUT' && draining(r));
    assert.ok(renewsWhileDraining.length >= 3, `${renewsWhileDraining.length} renews while draining`);
    const release = api.requests.at(-1);
    assert.equal(release?.method, 'PUT');
    assert.ok((release?.at ?? 0) >= c.seen.drained[0], 'released after the drain');
    assert.equal(recordIn(api).holderIdentity, '');
    assert.equal(c.seen.stopped.length, 1);
  });

  it('an API failing every request: stops at the renew deadline, one line per kind of failure, recovers', async () => {
    const api = new FakeLeaseApi();
    const c = start(api);
    await eventually('leading', async () => (c.elector.isLeader() ? true : undefined), 2_000);
    api.failing = 500;
    await eventually('stopped', async () => (c.seen.stopped.length ? true : undefined), 2_000);
    assertAtDeadline(api, c.seen.stopped[0]);
    assert.equal(c.elector.holds(), false, 'past the renew deadline no write may be sent');
    await sleep(1_000);
    api.failing = undefined;
    await eventually('leading again', async () => (c.seen.started.length === 2 ? true : undefined), 3_000);
    const warnings = c.logger.lines.filter((l) => l.includes(' WARN ') && l.includes('failed'));
    assert.ok(api.requests.filter((r) => r.status === 500).length >= 5);
    const kinds = warnings.map((l) => /(renewing|reading) lease/.exec(l)?.[1]);
    assert.deepEqual(kinds, ['renewing', 'reading'], warnings.join('\n'));
    assert.ok(c.logger.lines.some((l) => /reading lease ns\/op works again after \d+ failed attempts/.test(l)));
    c.stop.abort();
    await c.done;
  });

  it('a renew that hangs: the term still ends at the renew deadline', async () => {
    const api = new FakeLeaseApi();
    const c = start(api);
    await eventually('leading', async () => (c.elector.isLeader() ? true : undefined), 2_000);
    api.failing = 0;
    await eventually('stopped', async () => (c.seen.stopped.length ? true : undefined), 2_000);
    assertAtDeadline(api, c.seen.stopped[0]);
    c.stop.abort();
    await c.done;
  });

  it('a stop while the API server does not answer: run() ends within two renew deadlines, says why', async () => {
    const api = new FakeLeaseApi();
    const c = start(api);
    await eventually('leading', async () => (c.elector.isLeader() ? true : undefined), 2_000);
    api.failing = 0;
    const stoppedAt = Date.now();
    c.stop.abort();
    await c.done;
    const took = Date.now() - stoppedAt;
    // the renew on the wire times out at the deadline, then the release's own timeout
    assert.ok(took <= 2 * timings.renewDeadlineMs + 100, `run() ended ${took} ms after the stop`);
    assert.ok(c.logger.lines.some((l) => l.includes('releasing lease ns/op failed') && l.includes('when it expires')));
    assert.equal(holder(api), 'me_1', 'not released: the standby waits out the lease');
  });

  it('the lease deleted under the leader: it stops at its next renew; nobody creates it again for a lease duration', async () => {
    const api = new FakeLeaseApi();
    const c = start(api);
    await eventually('leading', async () => (c.elector.isLeader() ? true : undefined), 2_000);
    const deletedAt = Date.now();
    api.lease = undefined;
    await eventually('stopped', async () => (c.seen.stopped.length ? true : undefined), 2_000);
    assert.ok(c.seen.stopped[0] - deletedAt <= timings.retryPeriodMs + 150, `${c.seen.stopped[0] - deletedAt} ms`);
    assert.equal(c.elector.holds(), false);
    await eventually('leading again', async () => (c.seen.started.length === 2 ? true : undefined), 5_000);
    const created = api.requests.filter((r) => r.method === 'POST' && r.status === 201).at(-1);
    assert.ok(
      created && created.at - deletedAt >= timings.leaseDurationMs,
      `created ${created?.at ?? 0 - deletedAt} ms after`,
    );
    c.stop.abort();
    await c.done;
  });

  it('an edit naming the standby as holder: no term on a record it did not write; the leader stops at its next renew', async () => {
    const api = new FakeLeaseApi();
    const a = start(api, 0, 'a_1');
    await eventually('a leading', async () => (a.elector.isLeader() ? true : undefined), 2_000);
    const b = start(api, 0, 'b_2');
    try {
      await eventually('b standing by', async () => (b.elector.state().holder === 'a_1' ? true : undefined), 2_000);
      const editedAt = Date.now();
      steal(api, 'b_2');
      await eventually('a stopped', async () => (a.seen.stopped.length ? true : undefined), 2_000);
      assert.ok(a.seen.stopped[0] - editedAt <= timings.retryPeriodMs + 150);
      await eventually(
        'someone leads again',
        async () => (a.seen.started.length + b.seen.started.length === 2 ? true : undefined),
        5_000,
      );
      const restarted = [...a.seen.started.slice(1), ...b.seen.started];
      assert.ok(
        restarted.every((at) => at - editedAt >= timings.leaseDurationMs),
        `a term began ${Math.min(...restarted) - editedAt} ms after the edit`,
      );
    } finally {
      for (const c of [a, b]) c.stop.abort();
      await Promise.all([a.done, b.done]);
    }
  });

  it('a Lease it cannot read for longer than the lease duration is a health problem naming it and the failure', async () => {
    const api = new FakeLeaseApi();
    const c = start(api);
    await eventually('leading', async () => (c.elector.isLeader() ? true : undefined), 2_000);
    assert.equal(c.elector.problem(), undefined);
    api.failing = 403;
    await sleep(timings.leaseDurationMs / 2);
    assert.equal(c.elector.problem(), undefined, 'within the lease duration: no problem yet');
    const problem = await eventually('a problem', async () => c.elector.problem(), 3_000);
    assert.match(
      problem,
      /^leader election: no read or write of lease ns\/op succeeded for \d+ s \(limit: the lease duration, 1 s\): (renewing|reading) lease ns\/op failed: .*403/,
    );
    api.failing = undefined;
    await eventually('healthy again', async () => (c.elector.problem() === undefined ? true : undefined), 3_000);
    c.stop.abort();
    await c.done;
  });

  it('refuses timings client-go refuses, naming each problem', () => {
    const logger = captureLogger();
    assert.throws(
      () =>
        new LeaderElector({
          client: new FakeLeaseApi(),
          name: 'op',
          logger,
          leaseDurationMs: 2_000,
          renewDeadlineMs: 2_000,
        }),
      /leaseDurationMs \(2000\) must be greater than renewDeadlineMs \(2000\)/,
    );
  });
});

describe('FailureLog: a failure that lasts is never silent', () => {
  it('a warning per new kind, debug for repeats, a warning again every minute, info when it works again', () => {
    let now = 0;
    const logger = captureLogger();
    const log = new FailureLog(logger, {}, () => now);
    const forbidden = new KubeError('GET x: 403 forbidden', 403, undefined);
    const levels = () => logger.lines.map((l) => l.split(' ')[1]);
    log.failed('reading lease ns/op', forbidden);
    now += 2_000;
    log.failed('reading lease ns/op', forbidden);
    assert.deepEqual(levels(), ['WARN', 'DEBUG']);
    now += REPEAT_WARNING_MS;
    log.failed('reading lease ns/op', forbidden);
    assert.equal(levels().at(-1), 'WARN');
    assert.match(
      logger.lines.at(-1) ?? '',
      /reading lease ns\/op still fails \(3 failures in a row\): GET x: 403 forbidden/,
    );
    log.failed('reading lease ns/op', new KubeError('GET x: 500 etcd', 500, undefined));
    assert.equal(levels().at(-1), 'WARN', 'another kind: at once');
    assert.match(log.last ?? '', /500 etcd/);
    log.succeeded('reading lease ns/op');
    assert.match(logger.lines.at(-1) ?? '', /INFO.*works again after 4 failed attempts/);
    assert.equal(log.last, undefined);
  });
});
