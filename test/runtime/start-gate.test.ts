/**
 * The start gate: a start is allowed exactly while the term's fence would let a write out; a refusal says
 * why, is counted, and ends a lapsed hold at once. Against the leader elector on a fake monotonic clock:
 * allowed until the last renewal's send + the renew deadline, refused from then on although the deadline
 * timer has not run; a slow answer to a renewal does not extend the hold.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LeaderElector } from '../../src/runtime/leader/leader-elector.js';
import type { RequestOptions } from '../../src/runtime/kube/client.js';
import { TermFence } from '../../src/runtime/kube/fence.js';
import { startGate, startRefusal, StartRefused, type Hold, type RefusalReason } from '../../src/runtime/start-gate.js';
import { FakeLeaseApi } from '../helpers/fake-lease-api.js';
import { eventually } from '../helpers/envtest.js';
import { captureLogger } from '../helpers/e2e-objects.js';

const RENEW_MS = 600;
const timings = { leaseDurationMs: 1_000, renewDeadlineMs: RENEW_MS, retryPeriodMs: 200 };
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('startGate', () => {
  const cases: { name: string; refuse: string | undefined; aborted: boolean; want: RefusalReason | undefined }[] = [
    { name: 'an open fence: allowed', refuse: undefined, aborted: false, want: undefined },
    {
      name: 'refused, the fence still open: the deadline passed unnoticed',
      refuse: 'late',
      aborted: false,
      want: 'renew_deadline',
    },
    { name: 'refused, the fence closed: not held', refuse: 'gone', aborted: true, want: 'not_held' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const controller = new AbortController();
      if (c.aborted) controller.abort();
      let lapsed = 0;
      const hold: Hold = { fence: { refuse: () => c.refuse, signal: controller.signal }, lapse: () => void lapsed++ };
      const counted: RefusalReason[] = [];
      const asked: string[] = [];
      const gate = startGate(
        (uid) => (asked.push(uid), hold),
        (reason) => counted.push(reason),
      );
      const refusal = gate.refuse('uid-1');
      assert.deepEqual(asked, ['uid-1']);
      assert.deepEqual(refusal, c.want ? { reason: c.want, message: c.refuse } : undefined);
      assert.deepEqual(counted, c.want ? [c.want] : []);
      assert.equal(lapsed, 0, 'the hold is ended after the caller unwound, not inside the start');
      await tick();
      assert.equal(lapsed, c.want === 'renew_deadline' ? 1 : 0);
    });
  }

  it('startRefusal finds the refusal among the causes of the error that carries it', () => {
    const refused = new StartRefused({ reason: 'not_held', message: 'lease gone' });
    const wrapped = new Error('handler step failed', { cause: refused });
    assert.equal(startRefusal(wrapped), refused);
    assert.equal(startRefusal(new Error('other')), undefined);
    assert.match(refused.message, /not started: lease gone/);
  });
});

/** A leader elector on a fake monotonic clock `clock.now`, its gate, and what it was told. */
async function leading(api: { request: FakeLeaseApi['request'] }, clock: { now: number }) {
  const logger = captureLogger(false);
  const elector = new LeaderElector({
    client: api,
    name: 'op',
    namespace: 'ns',
    identity: 'me_1',
    logger,
    monotonic: () => clock.now,
    ...timings,
  });
  const stop = new AbortController();
  let term: AbortSignal | undefined;
  const done = elector.run(stop.signal, {
    onStartedLeading: (signal) => {
      term = signal;
      return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    },
    onStoppedLeading: () => undefined,
  });
  await eventually('leading', async () => (elector.isLeader() ? true : undefined), 5_000);
  const counted: RefusalReason[] = [];
  const hold: Hold = { fence: new TermFence([elector.fence()]), lapse: () => elector.lapse() };
  const gate = startGate(
    () => hold,
    (reason) => counted.push(reason),
  );
  const finish = async () => {
    stop.abort();
    await done;
  };
  return { elector, gate, counted, term: () => term, finish };
}

describe('the start gate of a leader, on a fake monotonic clock', () => {
  it('allowed until the last renewal was sent + the renew deadline, refused after though the deadline timer has not run', async () => {
    const api = new FakeLeaseApi();
    const clock = { now: 10_000 };
    const l = await leading(api, clock);
    try {
      // The clock stands still: every renewal so far was sent at 10 000.
      clock.now = 10_000 + RENEW_MS - 1;
      assert.equal(l.gate.refuse('a'), undefined, 'allowed 1 ms before the deadline');
      clock.now = 10_000 + RENEW_MS;
      const refusal = l.gate.refuse('a');
      assert.equal(refusal?.reason, 'renew_deadline');
      assert.match(refusal?.message ?? '', /no longer holds the lease ns\/op/);
      assert.equal(l.elector.isLeader(), true, 'the deadline timer has not run: the term is not over yet');
      assert.deepEqual(l.counted, ['renew_deadline']);
      await tick();
      // The gate ended the term at once: the signal every handler's own signal follows names the lease.
      assert.equal(l.elector.isLeader(), false);
      const reason: unknown = l.term()?.reason;
      assert.ok(reason instanceof Error);
      assert.match(reason.message, /stopped leading lease ns\/op: no renew within the renew deadline/);
      assert.equal(l.gate.refuse('b')?.reason, 'not_held');
    } finally {
      await l.finish();
    }
  });

  it('a renewal answered slowly holds from when it was sent, not from its answer', async () => {
    const api = new FakeLeaseApi();
    const clock = { now: 50_000 };
    let slow: number | undefined;
    let mode: 'fast' | 'slow' | 'hang' = 'fast';
    const client = {
      request: async <T>(method: string, path: string, options: RequestOptions = {}): Promise<T> => {
        if (method !== 'PUT' || mode === 'fast') return api.request<T>(method, path, options);
        if (mode === 'hang') {
          api.failing = 0; // no answer until the request's timeout: no renewal after the slow one
          return api.request<T>(method, path, options);
        }
        mode = 'hang';
        const sent = clock.now;
        clock.now += 500; // the answer takes 500 ms of the 600 ms deadline
        const answer = await api.request<T>(method, path, options);
        slow = sent;
        return answer;
      },
    };
    const l = await leading(client, clock);
    try {
      mode = 'slow';
      const sent = await eventually('the slow renewal', async () => slow, 5_000);
      await tick();
      assert.equal(l.gate.refuse('a'), undefined, 'held right after the answer');
      clock.now = sent + RENEW_MS - 1;
      assert.equal(l.gate.refuse('a'), undefined);
      clock.now = sent + RENEW_MS;
      assert.equal(l.gate.refuse('a')?.reason, 'renew_deadline', 'not held past send + deadline');
    } finally {
      api.failing = undefined;
      await l.finish();
    }
  });
});
