/**
 * request-budget.ts: requests reserve bytes and a slot; past the budget they wait, the first that
 * fits going first, and are refused (undefined) past the wait bound; a release lets the waiting in.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { requestBudget } from '../../../src/runtime/webhooks/request-budget.js';

it('reserves within the bytes and the requests, at once', async () => {
  const budget = requestBudget({ bytes: 100, requests: 2, waitMs: 10_000 });
  const a = await budget.acquire(60);
  const b = await budget.acquire(40);
  assert.ok(a && b);
  assert.deepEqual(budget.held(), { bytes: 100, requests: 2, waiting: 0 });
  a();
  a(); // a second release is no release
  assert.deepEqual(budget.held(), { bytes: 40, requests: 1, waiting: 0 });
  b();
});

it('a request past the budget waits; a smaller one that fits is not held behind it; a release lets it in', async () => {
  const budget = requestBudget({ bytes: 100, requests: 10, waitMs: 10_000 });
  const big = await budget.acquire(80);
  assert.ok(big);
  const order: string[] = [];
  const large = budget.acquire(90).then((r) => {
    order.push('large');
    return r;
  });
  const small = budget.acquire(10).then((r) => {
    order.push('small');
    return r;
  });
  const releaseSmall = await small;
  assert.deepEqual(order, ['small']);
  assert.deepEqual(budget.held(), { bytes: 90, requests: 2, waiting: 1 });
  big();
  releaseSmall?.();
  const releaseLarge = await large;
  assert.ok(releaseLarge);
  assert.deepEqual(order, ['small', 'large']);
  releaseLarge();
});

it('a request that waits past the bound is refused and leaves no trace', async () => {
  const budget = requestBudget({ bytes: 10, requests: 1, waitMs: 50 });
  const first = await budget.acquire(1);
  assert.equal(await budget.acquire(1), undefined);
  assert.deepEqual(budget.held(), { bytes: 1, requests: 1, waiting: 0 });
  first?.();
  // A body larger than the whole budget reserves the whole budget (the body limit refuses it otherwise).
  const whole = await budget.acquire(1_000);
  assert.deepEqual(budget.held(), { bytes: 10, requests: 1, waiting: 0 });
  whole?.();
});
