/**
 * A watch frozen by the fault proxy (the connection stays open, no byte comes through): the operator notices
 * the silence with its default idle limit, reopens the watch from the last resourceVersion, and handles the
 * change made meanwhile within 90 s, once; `/healthz` reports the stall while it lasts and is fine after;
 * `/metrics`, scraped before and after, shows the counters moving.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, Registry } from '../../src/runtime/index.js';
import { Operator } from '../../src/runtime/operator.js';
import { clientFor, eventually, skip } from '../helpers/envtest.js';
import {
  captureLogger,
  create,
  myResource,
  namespace,
  type Body,
  myResources as my,
  myResourceObject,
} from '../helpers/e2e-objects.js';
import { E2eSuite, MYRESOURCES_CRD } from '../helpers/e2e-suite.js';

const suite = new E2eSuite({ crds: [MYRESOURCES_CRD], proxy: true });

const STALL_SECONDS = 20;

/** The value of one sample line of the exposition (`name{labels} value`), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith(name) &&
        !l.startsWith('#') &&
        wanted.every((w) => l.includes(w)) &&
        (l[name.length] === '{' || l[name.length] === ' '),
    );
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('watch liveness', { skip }, () => {
  suite.hooks();

  it(
    'a frozen watch: the change made meanwhile is handled within 90 s, /healthz reports the stall, /metrics moves',
    { timeout: 180_000 },
    async () => {
      const ns = await namespace(suite.client, 'frozen');
      const registry = new Registry();
      const handled: string[] = [];
      defineHandler<unknown, { phase?: string }>(myResource, 'myapp').onCreate(
        ({ name }) => {
          handled.push(name);
          return { phase: 'Done' };
        },
        { registry },
      );
      const logger = captureLogger();
      const operator = new Operator({
        registry,
        namespace: ns,
        logger,
        client: clientFor(suite.proxy.kubeconfig),
        leaderElection: false,
        health: { port: 0, host: '127.0.0.1', stallSeconds: STALL_SECONDS },
      });
      await operator.start();
      const url = operator.health!.url;
      const fetchText = async (path: string) => {
        const answer = await fetch(`${url}${path}`);
        return { status: answer.status, text: await answer.text() };
      };
      const done = async (name: string) =>
        (await suite.client.request<Body>('GET', my(ns, name))).status?.myapp?.phase === 'Done' ? true : undefined;
      try {
        await eventually('ready', async () => ((await fetchText('/readyz')).status === 200 ? true : undefined));
        await create(suite.client, my(ns), myResourceObject('before', { image: 'x' }));
        await eventually('the first object handled', () => done('before'));
        const first = (await fetchText('/metrics')).text;
        assert.equal(
          sample(first, 'kopfgen_handler_runs_total', { handler: 'myapp', cause: 'create', outcome: 'success' }),
          1,
        );
        assert.equal(sample(first, 'kopfgen_leader'), 1);

        assert.ok(suite.proxy.freezeWatches() >= 1, 'a watch to freeze');
        suite.proxy.thaw(); // the open connection stays frozen; a reopened one is forwarded again
        const frozenAt = Date.now();
        await create(suite.client, my(ns), myResourceObject('during', { image: 'x' }));
        let stall: string | undefined;
        const handledAt = await eventually(
          'the change made meanwhile to be handled',
          async () => {
            const health = await fetchText('/healthz');
            if (health.status === 500) stall ??= health.text;
            return (await done('during')) ? Date.now() : undefined;
          },
          120_000,
        );
        const seconds = (handledAt - frozenAt) / 1000;
        process.stdout.write(`# frozen watch: the change made meanwhile handled after ${seconds.toFixed(1)} s\n`);
        assert.ok(seconds < 90, `handled after ${seconds} s`);
        assert.match(
          stall ?? '',
          /\[-\]watch myresources\.example\.com\/v1: nothing received for \d+ s \(limit 20 s\)/,
        );
        assert.equal((await fetchText('/healthz')).status, 200, 'healthy again once the watch resumed');
        assert.deepEqual(handled, ['before', 'during'], 'each once');
        assert.ok(
          logger.lines.some((l) =>
            /watch of .* dropped, resuming from resourceVersion \d+: .*nothing received/.test(l),
          ),
        );

        const second = (await fetchText('/metrics')).text;
        assert.equal(
          sample(second, 'kopfgen_handler_runs_total', { handler: 'myapp', cause: 'create', outcome: 'success' }),
          2,
        );
        assert.ok(sample(second, 'kopfgen_watch_restarts_total') >= 1, 'the restart counted');
        const patches = (text: string) => sample(text, 'kopfgen_api_requests_total', { verb: 'PATCH', code: '200' });
        assert.ok(patches(second) > patches(first), 'API requests counted');
        assert.ok(sample(second, 'kopfgen_handler_duration_seconds_count', { handler: 'myapp' }) >= 2);
      } finally {
        await operator.stop();
      }
    },
  );
});
