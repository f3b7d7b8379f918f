/** The adaptive concurrency limit: grows while objects wait and writes go through, shrinks on congestion. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdaptiveLimit, fixedLimit, type Sample } from '../../src/runtime/adaptive-limit.js';

const ok = (ms = 10): Sample => ({ code: 200, seconds: ms / 1000 });
const settings = { initial: 8, min: 2, max: 20 };

/** Feeds `samples` one per millisecond from `start`; returns the limit after each. */
function feed(limit: AdaptiveLimit, samples: Sample[], start = 0): number[] {
  return samples.map((sample, i) => {
    limit.observe(sample, start + i);
    return limit.value;
  });
}

describe('AdaptiveLimit', () => {
  it('slow start: +1 per answer while objects wait, up to the maximum', () => {
    let grew = 0;
    const limit = new AdaptiveLimit(
      settings,
      () => true,
      () => grew++,
    );
    assert.deepEqual(
      feed(
        limit,
        Array.from({ length: 14 }, () => ok()),
      ),
      [9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 20, 20],
    );
    assert.equal(grew, 12);
  });

  it('no growth without demand', () => {
    const limit = new AdaptiveLimit(settings, () => false);
    assert.deepEqual(feed(limit, [ok(), ok(), ok()]), [8, 8, 8]);
  });

  it('a 429, a 5xx or no answer shrinks it by 0.7, once per second; then it grows by one per round of `limit` answers', () => {
    const limit = new AdaptiveLimit(settings);
    feed(limit, [ok(), ok()]); // 10
    const throttled = feed(
      limit,
      [
        { code: 429, seconds: 0.01 },
        { code: 503, seconds: 0.01 },
      ],
      100,
    );
    assert.deepEqual(throttled, [7, 7], 'the second sign within the second counts once');
    assert.deepEqual(feed(limit, [{ code: undefined, seconds: 1 }], 1200), [4]);
    assert.deepEqual(
      feed(
        limit,
        Array.from({ length: 9 }, () => ok()),
        1300,
      ),
      [4, 4, 4, 5, 5, 5, 5, 5, 6],
    );
    assert.deepEqual(
      feed(
        limit,
        Array.from({ length: 5 }, () => ({ code: 500, seconds: 0 })),
        3000,
      ),
      [4, 4, 4, 4, 4],
    );
    assert.deepEqual(feed(limit, [{ code: 500, seconds: 0 }], 5000), [2], 'never below the minimum');
    assert.deepEqual(feed(limit, [{ code: 500, seconds: 0 }], 7000), [2]);
  });

  it('latency far above its long-run average (and above 250 ms) shrinks it by 0.9', () => {
    const limit = new AdaptiveLimit({ initial: 20, min: 2, max: 20 });
    feed(
      limit,
      Array.from({ length: 50 }, () => ok(20)),
    );
    assert.equal(limit.value, 20);
    const slow = feed(
      limit,
      Array.from({ length: 6 }, () => ok(2000)),
      1000,
    );
    assert.deepEqual(slow, [18, 18, 18, 18, 18, 18], 'one decrease within the second');
    const steady = new AdaptiveLimit({ initial: 20, min: 2, max: 20 });
    feed(
      steady,
      Array.from({ length: 50 }, () => ok(200)),
    );
    assert.deepEqual(feed(steady, [ok(240), ok(240)], 1000), [20, 20], 'below 250 ms is never congestion');
  });

  it('latency above a second shrinks it even when it rose slowly (the average followed it)', () => {
    const limit = new AdaptiveLimit({ initial: 20, min: 2, max: 20 });
    const rising = Array.from({ length: 400 }, (_, i) => ok(200 + 3 * i)); // 0.2 s to 1.4 s
    const values = feed(limit, rising);
    assert.equal(values[250], 20, 'below a second, no decrease');
    assert.ok(values[399] < 20, `shrunk above a second: ${values[399]}`);
  });

  it('fixedLimit is a constant', () => {
    assert.equal(fixedLimit(16).value, 16);
  });
});
