/**
 * The story's handler, tested without a cluster (`npm test` runs this file): `invoke` runs the
 * `myapp` handler as one reconcile of the operator would and returns what it would write;
 * `buildMyResource` (generated beside the types) builds the smallest valid MyResource, with what a
 * test cares about laid over it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expectOutcome, invoke } from 'kopfgen/testing';
import { MyResourceMyapp } from '../generated/index.js';
import { buildMyResource as myResource } from '../generated/example.com/myresources.schemas.js';
import '../handlers/myresources.js';

test('first attempt waits for an image (Pending, retried in 30 s); the retry starts it and clears the reason', async () => {
  const first = await invoke(MyResourceMyapp, 'create', myResource({ metadata: { name: 'web' } }));
  expectOutcome(first, { kind: 'temporary', delay: 30, retry: 0, status: { phase: 'Pending', reason: 'no-image' } });
  assert.deepEqual(first.object.status?.myapp, { phase: 'Pending', reason: 'no-image' });
  assert.match(first.events[0]?.message ?? '', /Handler myapp failed temporarily: spec.image is empty/);

  // The user sets the image; the operator retries the same creation (its record says attempt 2).
  const second = await invoke(MyResourceMyapp, 'create', { ...first.object, spec: { image: 'nginx', replicas: 1 } });
  expectOutcome(second, { kind: 'success', retry: 1, status: { phase: 'Starting', reason: null } });
  assert.deepEqual(second.object.status?.myapp, { phase: 'Starting' });
  assert.deepEqual(second.events, []);
});

test('scaled to zero: the handler-specific error carries its status', async () => {
  const result = await invoke(MyResourceMyapp, 'update', myResource({ spec: { image: 'nginx', replicas: 0 } }), {
    old: myResource({ spec: { image: 'nginx' } }),
  });
  expectOutcome(result, { kind: 'temporary', delay: 60, status: { phase: 'Pending', reason: 'scaled-to-zero' } });
});

test('the builder fills in what the schema requires and the defaults', () => {
  assert.deepEqual(myResource().spec, { image: '', replicas: 1 });
});
