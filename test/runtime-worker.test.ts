import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isNewer, Slots } from '../src/runtime/worker.js';

const at = (rv: string) => ({ metadata: { resourceVersion: rv } });

describe('worker building blocks', () => {
  it('orders states by resourceVersion numerically (etcd revisions), any difference otherwise', () => {
    assert.equal(isNewer(at('10'), at('9')), true);
    assert.equal(isNewer(at('9'), at('10')), false, 'an intermediate event of our own patch is older than its answer');
    assert.equal(isNewer(at('10'), at('10')), false);
    assert.equal(isNewer(at('b'), at('a')), true);
  });
  it('bounds the work in flight and reports when it drained', async () => {
    const slots = new Slots(2);
    let running = 0;
    let peak = 0;
    const job = async () => {
      await slots.acquire();
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 10));
      running--;
      slots.release();
    };
    const jobs = Array.from({ length: 7 }, job);
    await new Promise((r) => setTimeout(r, 1));
    const drained = slots.drained();
    await Promise.all(jobs);
    await drained;
    assert.equal(peak, 2);
    assert.equal(running, 0);
  });
});
