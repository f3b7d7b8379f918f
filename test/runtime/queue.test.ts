/** The queue: never two equal keys at once, dirty re-runs, one timer per key, the shared bound. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Action, FailureCounts, Queue, Slots, type Work } from '../../src/runtime/queue.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Work that records each run and how many runs of the same key overlapped. */
function recorder(ms: number) {
  const runs: string[] = [];
  const active = new Map<string, number>();
  let overlap = 0;
  const work: Work = async (key) => {
    runs.push(key);
    const now = (active.get(key) ?? 0) + 1;
    active.set(key, now);
    overlap = Math.max(overlap, now);
    await sleep(ms);
    active.set(key, now - 1);
    return Action.done();
  };
  return { runs, work, overlap: () => overlap };
}

describe('Slots', () => {
  it('bounds the work in flight and reports when it drained', async () => {
    const slots = new Slots(2);
    let running = 0;
    let peak = 0;
    const job = async () => {
      await slots.acquire();
      running++;
      peak = Math.max(peak, running);
      await sleep(10);
      running--;
      slots.release();
    };
    const jobs = Array.from({ length: 7 }, job);
    await sleep(1);
    const drained = slots.drained();
    await Promise.all(jobs);
    await drained;
    assert.equal(peak, 2);
    assert.equal(running, 0);
  });
});

describe('Queue', () => {
  it('a limit that grows lets waiting work start; one that shrinks hands no slot over until below it', async () => {
    const limit = { value: 1 };
    const slots = new Slots(limit);
    await slots.acquire();
    const started: number[] = [];
    const waiting = [1, 2, 3].map((n) => slots.acquire().then(() => started.push(n)));
    await sleep(1);
    assert.deepEqual([started, slots.waiters], [[], 3]);
    limit.value = 3;
    slots.grew();
    await sleep(1);
    assert.deepEqual([started, slots.waiters], [[1, 2], 1]);
    limit.value = 1;
    slots.release(); // 3 active, limit 1: the slot is not handed over
    slots.release();
    await sleep(1);
    assert.deepEqual(started, [1, 2]);
    slots.release(); // now below the limit: freed
    slots.release(); // hands over to the last waiter
    await Promise.all(waiting);
    assert.deepEqual(started, [1, 2, 3]);
  });

  it('a long run lends its slot to waiting work and takes one back ahead of it; drained waits for it', async () => {
    const slots = new Slots(1);
    await slots.acquire();
    const order: string[] = [];
    let finish = () => {};
    const handler = new Promise<string>((resolve) => (finish = () => resolve('handled')));
    const long = slots.around(handler, 5).then((value) => {
      order.push(`reclaimed ${value}`);
      slots.release();
    });
    const other = slots.acquire().then(async () => {
      order.push('other started');
      await sleep(20);
      order.push('other done');
      slots.release();
    });
    const third = slots.acquire().then(() => {
      order.push('third started');
      slots.release();
    });
    await sleep(10);
    assert.deepEqual(order, ['other started'], 'the slot was lent after 5 ms');
    let drained = false;
    void slots.drained().then(() => (drained = true));
    finish();
    await Promise.all([long, other, third]);
    assert.deepEqual(order, ['other started', 'other done', 'reclaimed handled', 'third started']);
    assert.equal(drained, true);
    const quick = slots.acquire().then(() => slots.around(Promise.resolve(7), 1000));
    assert.equal(await quick, 7, 'a quick run keeps its slot');
    slots.release();
    await slots.drained();
  });

  it('never runs one key twice at once: an add while it runs marks it dirty and it runs once more after', async () => {
    const slots = new Slots(4);
    const runs: string[] = [];
    const releases: (() => void)[] = [];
    let active = 0;
    let overlap = 0;
    const work: Work = async (key) => {
      runs.push(key);
      overlap = Math.max(overlap, ++active);
      await new Promise<void>((release) => releases.push(release));
      active--;
      return Action.done();
    };
    const queue = new Queue(slots, work);
    queue.add('a');
    await sleep(1);
    queue.add('a');
    queue.add('a');
    assert.deepEqual(runs, ['a'], 'the adds wait for the running reconcile');
    releases.shift()?.();
    await sleep(1);
    assert.deepEqual(runs, ['a', 'a'], 'the adds during a run collapse into one re-run');
    releases.shift()?.();
    await slots.drained();
    assert.deepEqual([runs.length, overlap], [2, 1]);
  });
  it('a key waiting for a slot is queued once however often it is added', async () => {
    const slots = new Slots(1);
    const r = recorder(10);
    const queue = new Queue(slots, r.work);
    queue.add('a');
    for (let i = 0; i < 5; i++) queue.add('b');
    await sleep(50);
    await slots.drained();
    assert.deepEqual(r.runs, ['a', 'b']);
  });
  it('different keys run concurrently up to the shared bound', async () => {
    const slots = new Slots(2);
    let running = 0;
    let peak = 0;
    const work: Work = async () => {
      running++;
      peak = Math.max(peak, running);
      await sleep(10);
      running--;
      return Action.done();
    };
    const queues = [new Queue(slots, work), new Queue(slots, work)];
    for (const key of ['a', 'b', 'c']) for (const queue of queues) queue.add(key);
    await sleep(5);
    await slots.drained();
    assert.equal(peak, 2);
  });
  it('requeue after a duration runs the key again then; the newest timer wins', async () => {
    const slots = new Slots(1);
    const r: { runs: string[] } = { runs: [] };
    const work: Work = async (key) => {
      r.runs.push(key);
      return r.runs.length === 1 ? Action.requeueAfter(20) : Action.done(); // settles at once: no timer of its own
    };
    const queue = new Queue(slots, work);
    queue.add('a');
    await sleep(1); // the first run has returned its Action; due before the 20 ms timer it asked for
    assert.deepEqual(r.runs, ['a']);
    queue.requeueAfter('a', 60_000); // replaces the 20 ms timer
    await sleep(60);
    assert.deepEqual(r.runs, ['a'], 'the replaced timer did not fire');
    queue.requeueAfter('a', 1);
    await sleep(30);
    assert.deepEqual(r.runs, ['a', 'a']);
    queue.stop();
  });
  it('forget cancels the key’s timer; after stop nothing new runs', async () => {
    const slots = new Slots(1);
    const r = recorder(0);
    const queue = new Queue(slots, r.work);
    queue.requeueAfter('a', 5);
    queue.forget('a');
    queue.requeueAfter('b', 5);
    queue.stop();
    queue.add('c');
    await sleep(20);
    assert.deepEqual(r.runs, []);
    assert.equal(queue.stopped, true);
  });
  it("idle waits for this queue's own runs, not for the shared slots' other queues; stop takes its waiting keys out of line", async () => {
    const slots = new Slots(2);
    const ended: string[] = [];
    const work =
      (ms: number): Work =>
      async (key) => {
        await sleep(ms);
        ended.push(key);
        return Action.done();
      };
    const short = new Queue(slots, work(10));
    const long = new Queue(slots, work(80));
    await short.idle(); // nothing ran: idle at once
    long.add('slow');
    short.add('a');
    short.add('b'); // waits for a slot: both are taken
    long.add('after'); // waits behind b
    short.stop(); // b leaves the line: a stopped queue starts nothing new
    await short.idle();
    assert.deepEqual(ended, ['a'], 'its running key ended, its waiting one never starts, the other queue still runs');
    await long.idle();
    assert.deepEqual(ended, ['a', 'slow', 'after'], "b's place went to the other queue's next key");
    assert.equal(short.depth, 0);
  });
});

describe('FailureCounts', () => {
  it('counts failures in a row per key; a reset starts over', () => {
    const counts = new FailureCounts();
    assert.deepEqual([counts.failed('a'), counts.failed('a'), counts.failed('b'), counts.failed('a')], [1, 2, 1, 3]);
    counts.reset('a');
    assert.deepEqual([counts.get('a'), counts.failed('a'), counts.get('b')], [0, 1, 1]);
  });
});
