/**
 * Built-in kinds end to end (src/runtime/api/builtins.ts): a ConfigMap handler on create (retried,
 * its progress in an annotation meanwhile), update and delete (behind the finalizer), with discovery
 * through /api/v1 and no CRD lookup; a status returned anyway (JavaScript has no compile error) is
 * not written and the log says so.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtins, defineHandler, Registry, TemporaryError } from '../../src/runtime/index.js';
import type { DiffItem } from '../../src/runtime/api/context.js';
import { Operator } from '../../src/runtime/operator.js';
import { FINALIZER, LAST_HANDLED_ANNOTATION } from '../../src/runtime/reconcile/essence.js';
import { progressAnnotation } from '../../src/runtime/reconcile/progress.js';
import { eventually, skip, TEST_TIMEOUT } from '../helpers/envtest.js';
import { captureLogger, namespace } from '../helpers/e2e-objects.js';
import { E2eSuite } from '../helpers/e2e-suite.js';

const suite = new E2eSuite();

const configMaps = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;

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
});
