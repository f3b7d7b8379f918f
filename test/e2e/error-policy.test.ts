/**
 * The one error policy against a real API server: failures that retrying cannot fix — a 403 on
 * /status (from the fault proxy), annotations over 256 KiB (a real 422), a status subresource
 * removed from the CRD under the running operator, a result JSON cannot carry — each count as
 * attempts of the handler, back off exponentially, end by the handler's `retries`, and post one
 * Event series. A TemporaryError with delay 0 does not flood Events. A 200 KB spec is handled
 * and updated with an exact diff.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defineHandler, defineResource, Registry, TemporaryError, type DiffItem } from '../../src/runtime/index.js';
import { Operator, type OperatorOptions } from '../../src/runtime/operator.js';
import { clientFor, eventually, skip, TEST_TIMEOUT } from '../helpers/envtest.js';
import {
  captureLogger,
  create,
  events,
  namespace,
  objectPath,
  type Body,
  blobs,
  sleep,
  blob,
} from '../helpers/e2e-objects.js';
import { E2eSuite, BLOBS_CRD, GADGETS_CRD } from '../helpers/e2e-suite.js';
import { tempDir } from '../helpers/temp-dirs.js';

const suite = new E2eSuite({ crds: [BLOBS_CRD, GADGETS_CRD], proxy: true });

const gadget = defineResource<{ spec: Record<string, unknown> }>({
  group: 'policy.kopfgen.dev',
  version: 'v1',
  plural: 'gadgets',
  kind: 'Gadget',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [],
});
const gadgets = (ns: string, name = '') => objectPath('policy.kopfgen.dev', 'v1', 'gadgets', ns, name);
const fast = { baseMs: 300, maxMs: 60_000 };

async function operate(registry: Registry, ns: string, options: Partial<OperatorOptions> = {}) {
  const logger = captureLogger();
  const operator = new Operator({ registry, namespace: ns, logger, ...options });
  suite.track(operator);
  await operator.start();
  return { operator, logger };
}

/** The gaps between attempts, in ms: each at least the backoff's doubling (with some slack for the clock). */
function assertBackoff(times: number[], baseMs: number): void {
  const gaps = times.slice(1).map((t, i) => t - times[i]);
  gaps.forEach((gap, i) =>
    assert.ok(gap >= baseMs * 2 ** i - 50, `gap ${i + 1} of ${gaps.join(', ')} ms shorter than ${baseMs * 2 ** i} ms`),
  );
}

/** Warning Events about `name` whose message starts with `prefix`: one object per series. */
async function series(ns: string, name: string, prefix: string): Promise<Body[]> {
  return (await events(suite.client, ns, name)).filter(
    (e) => typeof e.message === 'string' && e.message.startsWith(prefix),
  );
}

/** The handler's record once it failed for good. */
async function failedRecord(path: string, annotation = 'policy.kopfgen.dev/myapp'): Promise<Record<string, unknown>> {
  return eventually(`${annotation} failed for good`, async () => {
    const raw = (await suite.get(path)).metadata.annotations?.[annotation];
    const record = raw ? JSON.parse(raw) : undefined;
    return record?.failure ? record : undefined;
  });
}

function kubectlApply(body: Body): void {
  const file = join(tempDir('kopfgen-apply-'), 'object.json');
  writeFileSync(file, JSON.stringify(body));
  suite.cluster.kubectl('apply', '-f', file);
}

describe('the error policy against a real API server', { skip }, () => {
  suite.hooks();

  it(
    '403 on /status: attempts counted, exponential backoff, retries end it, one Event series, one line naming the object',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'forbidden');
      suite.proxy.inject({
        method: 'PATCH',
        path: new RegExp(`/namespaces/${ns}/blobs/b/status`),
        status: 403,
        times: 1000,
      });
      const registry = new Registry();
      const attempts: number[] = [];
      defineHandler(blob, 'myapp').onCreate(
        () => {
          attempts.push(Date.now());
          return { phase: 'Ready' };
        },
        { registry, retries: 4 },
      );
      const { logger } = await operate(registry, ns, {
        client: clientFor(suite.proxy.kubeconfig),
        backoff: fast,
        marks: { prefix: 'policy.kopfgen.dev' },
      });
      await create(suite.client, blobs(ns), {
        apiVersion: 'policy.kopfgen.dev/v1',
        kind: 'Blob',
        metadata: { name: 'b' },
        spec: { x: 1 },
      });
      const record = await failedRecord(blobs(ns, 'b'));
      assert.equal(attempts.length, 4, 'retries: 4 ended it');
      assert.equal(record.retries, 4);
      const why = `forbidden: patch on blobs/status in namespace ${ns} — grant it in the operator's Role`;
      assert.equal(record.message, `${why} (gave up after 4 attempt(s))`);
      assertBackoff(attempts, fast.baseMs);
      const lines = logger.lines.filter((l) => l.includes('ERROR'));
      assert.equal(lines.length, 4, lines.join('\n'));
      assert.ok(
        lines.every((l) => l.includes(`blobs ${ns}/b: handler myapp failed`) && l.includes(why)),
        lines.join('\n'),
      );
      const repeated = await eventually('the Event series', async () => {
        const found = await series(ns, 'b', 'Handler myapp failed:');
        return found.length === 1 && found[0].count === 3 ? found : undefined;
      });
      assert.equal(repeated[0].reason, 'myappFailed');
      assert.equal(repeated[0].message, `Handler myapp failed: ${why}`);
      assert.equal((await series(ns, 'b', 'Handler myapp failed permanently')).length, 1);
      const body = await suite.get(blobs(ns, 'b'));
      assert.ok(
        body.metadata.annotations['policy.kopfgen.dev/last-handled-configuration'],
        'the cause completed after the failure',
      );
    },
  );

  it(
    '422 annotations too large: attempts counted, retries end it, the failure recorded once the patch fits',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'toolarge');
      const registry = new Registry();
      const attempts: number[] = [];
      defineHandler(blob, 'myapp').onCreate(
        ({ patch }) => {
          attempts.push(Date.now());
          patch.metadata.annotations = { huge: 'x'.repeat(300_000) };
          return { phase: 'Ready' };
        },
        { registry, retries: 3 },
      );
      await operate(registry, ns, { backoff: fast, marks: { prefix: 'policy.kopfgen.dev' } });
      await create(suite.client, blobs(ns), {
        apiVersion: 'policy.kopfgen.dev/v1',
        kind: 'Blob',
        metadata: { name: 'big' },
        spec: {},
      });
      const record = await failedRecord(blobs(ns, 'big'));
      assert.equal(attempts.length, 3);
      assertBackoff(attempts, fast.baseMs);
      assert.match(
        String(record.message),
        /^patch on blobs rejected: the object's annotations would exceed 256 KiB .*\(gave up after 3 attempt\(s\)\)$/,
      );
      const found = await eventually('the Event series', async () => {
        const list = await series(ns, 'big', 'Handler myapp failed:');
        return list.length === 1 && list[0].count === 2 ? list : undefined;
      });
      assert.equal(found.length, 1);
    },
  );

  it(
    'a result JSON cannot carry (BigInt): attempts counted, retries end it, one Event series',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'bigint');
      const registry = new Registry();
      const attempts: number[] = [];
      defineHandler(blob, 'myapp').onCreate(
        () => {
          attempts.push(Date.now());
          return { n: 10n };
        },
        { registry, retries: 3 },
      );
      await operate(registry, ns, { backoff: fast, marks: { prefix: 'policy.kopfgen.dev' } });
      await create(suite.client, blobs(ns), {
        apiVersion: 'policy.kopfgen.dev/v1',
        kind: 'Blob',
        metadata: { name: 'n' },
        spec: {},
      });
      const record = await failedRecord(blobs(ns, 'n'));
      assert.equal(attempts.length, 3);
      assertBackoff(attempts, fast.baseMs);
      assert.match(
        String(record.message),
        /^the handler's result cannot be written as JSON: .*BigInt.* \(gave up after 3 attempt\(s\)\)$/,
      );
      await eventually('one Event series', async () => {
        const list = await series(ns, 'n', 'Handler myapp failed:');
        return list.length === 1 && list[0].count === 2 ? true : undefined;
      });
    },
  );

  it(
    'status subresource removed from the CRD under the running operator: default backoff, a handful of attempts, timeout ends it',
    { timeout: TEST_TIMEOUT },
    async (t) => {
      const ns = await namespace(suite.client, 'nostatus');
      const registry = new Registry();
      const attempts: number[] = [];
      defineHandler(gadget, 'myapp').onCreate(
        () => {
          attempts.push(Date.now());
          return { phase: 'Ready' };
        },
        { registry, timeout: 20 },
      );
      const { logger } = await operate(registry, ns, { marks: { prefix: 'policy.kopfgen.dev' } }); // the default backoff: 1 s doubling
      const probeNs = await namespace(suite.client, 'probe'); // not watched by the operator
      await create(suite.client, gadgets(probeNs), {
        apiVersion: 'policy.kopfgen.dev/v1',
        kind: 'Gadget',
        metadata: { name: 'probe' },
        spec: {},
      });
      suite.cluster.kubectl(
        'patch',
        'crd',
        'gadgets.policy.kopfgen.dev',
        '--type=json',
        '-p',
        '[{"op":"remove","path":"/spec/versions/0/subresources"}]',
      );
      await eventually('/status to be gone', () =>
        suite.client.request('GET', `${gadgets(probeNs, 'probe')}/status`).then(
          () => undefined,
          () => true,
        ),
      );
      await create(suite.client, gadgets(ns), {
        apiVersion: 'policy.kopfgen.dev/v1',
        kind: 'Gadget',
        metadata: { name: 'g' },
        spec: {},
      });
      const record = await eventually(
        'timeout to end it',
        async () => {
          const raw = (await suite.get(gadgets(ns, 'g'))).metadata.annotations?.['policy.kopfgen.dev/myapp'];
          const parsed = raw ? JSON.parse(raw) : undefined;
          return parsed?.failure ? parsed : undefined;
        },
        60_000,
      );
      // 1 s doubling: attempts at about 0, 1, 3, 7, 15 s; the retry after 31 s would fall past the 20 s timeout.
      t.diagnostic(`attempts at ${attempts.map((a) => ((a - attempts[0]) / 1000).toFixed(1)).join(', ')} s`);
      assert.ok(attempts.length >= 4 && attempts.length <= 5, `${attempts.length} attempts`);
      assertBackoff(attempts, 1000);
      assert.match(String(record.message), /has no status subresource in the cluster.*\(timed out after 20s\)$/);
      assert.ok(logger.lines.some((l) => l.includes(`gadgets ${ns}/g: handler myapp failed permanently`)));
      await eventually('one Event series', async () =>
        (await series(ns, 'g', 'Handler myapp failed:')).length === 1 ? true : undefined,
      );
    },
  );

  it(
    'TemporaryError with delay 0 retries at once but posts one Event, not thousands',
    { timeout: TEST_TIMEOUT },
    async (t) => {
      const ns = await namespace(suite.client, 'hotloop');
      const registry = new Registry();
      let calls = 0;
      const until = Date.now() + 5000;
      defineHandler(blob, 'myapp').onCreate(
        () => {
          calls++;
          if (Date.now() < until) throw new TemporaryError('not yet', { delay: 0 });
          return { phase: 'Ready' };
        },
        { registry },
      );
      await operate(registry, ns, { marks: { prefix: 'policy.kopfgen.dev' } });
      await create(suite.client, blobs(ns), {
        apiVersion: 'policy.kopfgen.dev/v1',
        kind: 'Blob',
        metadata: { name: 'h' },
        spec: {},
      });
      await suite.untilPhase('the handler to succeed', blobs(ns, 'h'), 'Ready');
      await sleep(1000);
      const all = await events(suite.client, ns, 'h');
      t.diagnostic(`${calls} attempts in 5 s, ${all.length} Event object(s), count ${all[0]?.count}`);
      assert.ok(calls > 20, `${calls} attempts`);
      assert.equal(all.length, 1, `${all.length} Event objects for ${calls} attempts`);
      assert.equal(all[0].message, 'Handler myapp failed temporarily: not yet, retry in 0s');
      assert.ok(
        all[0].count >= 2 && all[0].count <= 26,
        `count ${all[0].count}: the spam filter's burst bounds the writes`,
      );
    },
  );

  it(
    'a 200 KB spec applied with kubectl is handled, then updated with an exact diff',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'large');
      const registry = new Registry();
      const diffs: DiffItem[][] = [];
      const h = defineHandler(blob, 'myapp');
      h.onCreate(() => ({ phase: 'Created' }), { registry });
      h.onUpdate(
        ({ diff }) => {
          diffs.push([...diff]);
          return { phase: 'Updated' };
        },
        { registry },
      );
      await operate(registry, ns, { marks: { prefix: 'policy.kopfgen.dev' } });
      const items = Object.fromEntries(
        Array.from({ length: 2300 }, (_, i) => [
          `item-${i}`,
          { name: `item-${i}`, image: `registry.example.com/team/app-${i % 7}:1.2.${i % 13}`, replicas: 3 },
        ]),
      );
      const body = {
        apiVersion: 'policy.kopfgen.dev/v1',
        kind: 'Blob',
        metadata: { name: 'l', namespace: ns },
        spec: { items },
      };
      assert.ok(JSON.stringify(body.spec).length > 200_000);
      kubectlApply(body);
      const handled = await eventually('created', async () => {
        const current = await suite.get(blobs(ns, 'l'));
        return current.status?.myapp?.phase === 'Created' &&
          current.metadata.annotations?.['policy.kopfgen.dev/last-handled-configuration']
          ? current
          : undefined;
      });
      const stored = handled.metadata.annotations['policy.kopfgen.dev/last-handled-configuration'];
      assert.ok(stored.startsWith('gzip+base64:') && stored.length <= 32 * 1024, `${stored.length} characters`);
      items['item-7'].replicas = 4;
      kubectlApply(body);
      await suite.untilPhase('updated', blobs(ns, 'l'), 'Updated');
      assert.deepEqual(diffs, [[['change', ['spec', 'items', 'item-7', 'replicas'], 3, 4]]]);
    },
  );
});
