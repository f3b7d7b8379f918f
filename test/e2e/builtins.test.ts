/**
 * Built-in kinds end to end (src/runtime/api/builtins.ts): a ConfigMap handler on create (retried,
 * its progress in an annotation meanwhile), update and delete (behind the finalizer), with discovery
 * through /api/v1 and no CRD lookup; a status returned anyway (JavaScript has no compile error) is
 * not written and the log says so; label-filtered Secret and ConfigMap handlers write nothing to the
 * thousands of objects they do not match, and a Secret's data never reaches its annotations.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtins } from '../../src/runtime/builtin-kinds.js';
import { defineHandler, Registry, TemporaryError } from '../../src/runtime/index.js';
import type { DiffItem } from '../../src/runtime/api/field-paths.js';
import { Operator } from '../../src/runtime/operator.js';
import { FINALIZER, LAST_HANDLED_ANNOTATION } from '../../src/runtime/reconcile/essence.js';
import { progressAnnotation } from '../../src/runtime/reconcile/progress.js';
import { eventually, skip, TEST_TIMEOUT } from '../helpers/envtest.js';
import { captureLogger, namespace } from '../helpers/e2e-objects.js';
import { DIGEST_KEY_SECRET } from '../../src/runtime/kube/digest-key.js';
import { leaseNamespace } from '../../src/runtime/leader/leader-identity.js';
import { E2eSuite } from '../helpers/e2e-suite.js';

const suite = new E2eSuite();

const configMaps = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
const secrets = (ns: string, name = '') => `/api/v1/namespaces/${ns}/secrets${name ? `/${name}` : ''}`;

/** Creates the bodies, 32 requests at a time. */
async function createAll(path: string, bodies: Record<string, unknown>[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) await suite.client.request('POST', path, { body: bodies[next++] });
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

/** name → resourceVersion of every object at `path`. */
async function versions(path: string): Promise<Map<string, string>> {
  const list = await suite.client.request<{ items: { metadata: { name: string; resourceVersion: string } }[] }>(
    'GET',
    path,
  );
  return new Map(list.items.map((o) => [o.metadata.name, o.metadata.resourceVersion]));
}

describe('built-in kinds end to end', { skip }, () => {
  suite.hooks();

  it(
    'a ConfigMap handler runs on create (progress annotated while it retries), update and delete',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'configmaps');
      const registry = new Registry();
      const seen: string[] = [];
      const diffs: (readonly DiffItem[])[] = [];
      const audit = defineHandler(builtins.configMaps, 'audit');
      audit.onCreate(
        ({ body, retry }) => {
          seen.push(`create ${body.metadata?.name} ${retry} ${body.data?.colour}`);
          if (retry === 0) throw new TemporaryError('not yet', { delay: 2 });
        },
        { registry },
      );
      audit.onUpdate(
        ({ body, diff }) => {
          seen.push(`update ${body.data?.colour}`);
          diffs.push(diff);
        },
        { registry },
      );
      audit.onDelete(({ name }) => void seen.push(`delete ${name}`), { registry });
      const logger = captureLogger();
      const operator = new Operator({ registry, namespace: ns, logger });
      suite.track(operator);
      await operator.start();
      assert.ok(
        logger.lines.some((l) => l.includes('watching configmaps/v1')),
        logger.lines.join('\n'),
      );
      assert.ok(!logger.lines.some((l) => /CRD/.test(l)), logger.lines.join('\n'));

      await suite.client.request('POST', configMaps(ns), {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { colour: 'red' } },
      });
      const progress = await eventually('the progress annotation of the retried create', async () => {
        const raw = (await suite.get(configMaps(ns, 'settings'))).metadata.annotations?.[progressAnnotation('audit')];
        return raw ? JSON.parse(raw) : undefined;
      });
      assert.equal(progress.retries, 1);
      assert.equal(progress.message, 'not yet');
      const handled = await eventually('the create handled', async () => {
        const cm = await suite.get(configMaps(ns, 'settings'));
        return cm.metadata.annotations?.[LAST_HANDLED_ANNOTATION] ? cm : undefined;
      });
      assert.deepEqual(seen, ['create settings 0 red', 'create settings 1 red']);
      assert.equal(handled.metadata.annotations?.[progressAnnotation('audit')], undefined, 'purged once done');
      assert.ok(handled.metadata.finalizers.includes(FINALIZER), 'a delete handler holds a finalizer');
      assert.equal(handled.status, undefined);

      await suite.mergePatch(configMaps(ns, 'settings'), { data: { colour: 'blue' } });
      await eventually('the update handled', async () => (seen.includes('update blue') ? true : undefined));
      assert.deepEqual(diffs, [[['change', ['data', 'colour'], 'red', 'blue']]]);

      await suite.client.request('DELETE', configMaps(ns, 'settings'));
      await eventually('the ConfigMap gone after its delete handler', async () => {
        try {
          await suite.get(configMaps(ns, 'settings'));
          return undefined;
        } catch {
          return true;
        }
      });
      assert.deepEqual(seen.slice(-1), ['delete settings']);
    },
  );

  it(
    'a status returned for a built-in kind (untyped code) is not written; the log says why',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'cmstatus');
      const registry = new Registry();
      // Explicit type arguments pick the general signature: a status type the runtime still refuses to write.
      defineHandler<unknown, { phase: string }>(builtins.configMaps, 'seen').onCreate(() => ({ phase: 'Seen' }), {
        registry,
      });
      const logger = captureLogger();
      const operator = new Operator({ registry, namespace: ns, logger });
      suite.track(operator);
      await operator.start();
      await suite.client.request('POST', configMaps(ns), {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain' }, data: { a: 'b' } },
      });
      await eventually('the create handled', async () =>
        (await suite.get(configMaps(ns, 'plain'))).metadata.annotations?.[LAST_HANDLED_ANNOTATION] ? true : undefined,
      );
      assert.ok(
        logger.lines.some((l) =>
          /handler seen: its return value is not written: the status of a built-in kind/.test(l),
        ),
        logger.lines.join('\n'),
      );
      assert.equal((await suite.get(configMaps(ns, 'plain'))).status, undefined);
    },
  );

  it(
    "label-filtered Secret and ConfigMap handlers: nothing written to 2,000 unlabelled objects; a Secret's data only as digests",
    { timeout: 300_000 },
    async () => {
      const ns = await namespace(suite.client, 'filtered');
      const registry = new Registry();
      const diffs: string[][] = [];
      const labels = { audit: 'yes' };
      const audit = defineHandler(builtins.secrets, 'audit');
      audit.onCreate(() => undefined, { registry, labels });
      audit.onUpdate(({ diff }) => void diffs.push(diff.map(([op, path]) => `${op} ${path.join('.')}`)), {
        registry,
        labels,
      });
      defineHandler(builtins.configMaps, 'watch').onCreate(() => undefined, { registry, labels });
      const plain = (kind: string, i: number) => ({
        apiVersion: 'v1',
        kind,
        metadata: { name: `plain-${i}` },
        data: kind === 'Secret' ? { token: Buffer.from(`secret-${i}`).toString('base64') } : { n: String(i) },
      });
      await createAll(
        secrets(ns),
        Array.from({ length: 1_000 }, (_, i) => plain('Secret', i)),
      );
      await createAll(
        configMaps(ns),
        Array.from({ length: 1_000 }, (_, i) => plain('ConfigMap', i)),
      );
      const token = Buffer.from('SUPERSECRET').toString('base64');
      await suite.client.request('POST', secrets(ns), {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tagged', labels }, data: { token } },
      });
      const before = { secrets: await versions(secrets(ns)), configMaps: await versions(configMaps(ns)) };
      const operator = new Operator({ registry, namespace: ns, logger: captureLogger() });
      suite.track(operator);
      await operator.start();
      const tagged = await eventually(
        'the labelled Secret handled',
        async () => {
          const secret = await suite.get(secrets(ns, 'tagged'));
          return secret.metadata.annotations?.[LAST_HANDLED_ANNOTATION] ? secret : undefined;
        },
        60_000,
      );
      const stored = String(tagged.metadata.annotations[LAST_HANDLED_ANNOTATION]);
      assert.ok(!stored.includes(token) && !stored.includes('SUPERSECRET'), stored);
      assert.match(stored, /"data":\{"token":\{"\$digest":"hmac-sha256:[0-9a-f]{32}"\}\}/);
      // someone else edits unlabelled objects: still nothing to write
      for (let i = 0; i < 10; i++) {
        await suite.mergePatch(configMaps(ns, `plain-${i}`), { metadata: { annotations: { touched: String(i) } } });
      }
      await suite.mergePatch(secrets(ns, 'tagged'), { data: { token: Buffer.from('OTHER').toString('base64') } });
      await eventually('the update handled with its diff', async () => (diffs.length ? true : undefined));
      assert.deepEqual(diffs, [['change data.token']]);
      await new Promise((r) => setTimeout(r, 2_000)); // a write to the others would show by now
      const after = { secrets: await versions(secrets(ns)), configMaps: await versions(configMaps(ns)) };
      const changed = (kind: 'secrets' | 'configMaps') =>
        [...before[kind]].filter(([name, rv]) => after[kind].get(name) !== rv).map(([name]) => name);
      assert.deepEqual(changed('secrets'), ['tagged']);
      assert.deepEqual(
        changed('configMaps').sort(),
        Array.from({ length: 10 }, (_, i) => `plain-${i}`).sort(),
        'only ours',
      );
      const scrape = await operator.metrics.scrape();
      const patches = scrape
        .split('\n')
        .filter((l) => l.startsWith('kopfgen_api_requests_total{verb="PATCH"'))
        .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
      process.stdout.write(
        `# 2,000 unlabelled objects: ${patches} PATCHes in all (the labelled Secret's create and update)\n`,
      );
      assert.equal(patches, 2, 'one write per outcome of the labelled Secret, none to the others');
      const key = await suite.get(secrets(leaseNamespace(undefined), DIGEST_KEY_SECRET));
      assert.equal(Buffer.from(key.data.key, 'base64').length, 32, 'the digest key, made once');
    },
  );
});
