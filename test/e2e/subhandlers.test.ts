/**
 * Sub-handlers against a real API server (kopf's `kopf.register` inside a handler): a sub-handler
 * failing temporarily twice is retried alone, on its own progress record (`<parent>/<sub>`), while its
 * sibling runs once; what they return lands in the parent's `status.<id>`; the parent's outcome is
 * logged once, after both, and every record is purged when the cause completes (as kopf purges).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, Registry, TemporaryError } from '../../src/runtime/index.js';
import { Operator } from '../../src/runtime/operator.js';
import { progressAnnotation, type ProgressRecord } from '../../src/runtime/reconcile/progress.js';
import { eventually, skip, TEST_TIMEOUT } from '../helpers/envtest.js';
import { blob, blobs, captureLogger, create, namespace } from '../helpers/e2e-objects.js';
import { BLOBS_CRD, E2eSuite } from '../helpers/e2e-suite.js';

const suite = new E2eSuite({ crds: [BLOBS_CRD] });

/** The Blob fixture's object: any spec, any status. */
type Blob = { spec: Record<string, unknown>; status?: Record<string, unknown> };
type Status = { flaky?: number; steady?: string; total?: number };

/** The records the object carried when each attempt of `flaky` ran, as the attempt saw them. */
interface Seen {
  retry: number;
  flaky: ProgressRecord | undefined;
  steady: ProgressRecord | undefined;
}

const record = (annotations: Record<string, string> | undefined, key: string): ProgressRecord | undefined => {
  const raw = annotations?.[progressAnnotation(key)];
  return raw === undefined ? undefined : (JSON.parse(raw) as ProgressRecord);
};

/** Where the records are kept: annotations, or `status.kopfgen` (records.ts). */
const PLACES = [
  { place: 'annotations', statusRecords: false },
  { place: 'status.kopfgen', statusRecords: true },
];

describe('sub-handlers (e2e)', { skip }, () => {
  suite.hooks();

  for (const { place, statusRecords } of PLACES)
    it(
      `a sub-handler failing temporarily twice retries alone; its sibling runs once; the parent succeeds once (records in ${place})`,
      { timeout: TEST_TIMEOUT },
      async () => {
        const ns = await namespace(suite.client, 'subhandlers');
        const registry = new Registry();
        const calls = { parent: 0, flaky: 0, steady: 0 };
        const seen: Seen[] = [];
        defineHandler<Blob, Status>({ ...blob, statusRecords }, 'parent').onCreate(
          (ctx) => {
            calls.parent++;
            ctx.subhandler('flaky', (sub) => {
              const annotations = statusRecords
                ? (sub.body.status?.kopfgen as Record<string, string> | undefined)
                : sub.meta.annotations;
              seen.push({
                retry: sub.retry,
                flaky: record(annotations, 'parent/flaky'),
                steady: record(annotations, 'parent/steady'),
              });
              if (++calls.flaky < 3) throw new TemporaryError('not yet', { delay: 1 });
              return { flaky: calls.flaky };
            });
            ctx.subhandler('steady', () => {
              calls.steady++;
              return { steady: 'done' };
            });
            return { total: 2 };
          },
          { registry },
        );
        const logger = captureLogger();
        const op = suite.track(new Operator({ registry, namespace: ns, logger }));
        await op.start();
        await create(suite.client, blobs(ns), {
          apiVersion: 'policy.kopfgen.dev/v1',
          kind: 'Blob',
          metadata: { name: 'a' },
          spec: {},
        });
        await eventually('the parent to succeed', async () =>
          logger.lines.some((l) => l.includes('handler parent succeeded')) ? true : undefined,
        );
        const object = await suite.get(blobs(ns, 'a'));
        // each sub-handler attempt ran on its own record: flaky's retries counted apart, steady done once
        assert.deepEqual(calls, { parent: 4, flaky: 3, steady: 1 });
        assert.deepEqual(
          seen.map((s) => [s.retry, s.flaky?.retries, s.flaky?.purpose, s.steady?.success]),
          [
            [0, undefined, undefined, undefined],
            [1, 1, 'create', true],
            [2, 2, 'create', true],
          ],
        );
        assert.ok(seen.slice(1).every((s) => s.flaky?.message === 'not yet' && typeof s.flaky.delayed === 'string'));
        // what they returned is merged into the parent's status, with the parent's own
        const { kopfgen, ...status } = object.status ?? {};
        assert.deepEqual(status, { parent: { flaky: 3, steady: 'done', total: 2 } });
        // every progress record purged once the cause completed, the last-handled essence written
        const kept = statusRecords ? kopfgen : object.metadata.annotations;
        assert.deepEqual(Object.keys(kept ?? {}), ['kopfgen.dev/last-handled-configuration']);
        const outcomes = logger.lines
          .map((l) => / handler (\S+) (succeeded|failed \w+|waits)/.exec(l))
          .flatMap((m) => (m ? [`${m[1]} ${m[2]}`] : []));
        assert.deepEqual(
          outcomes.filter((o) => !o.endsWith('waits')),
          [
            'parent/flaky failed temporarily',
            'parent/steady succeeded',
            'parent/flaky failed temporarily',
            'parent/flaky succeeded',
            'parent succeeded',
          ],
        );
      },
    );
});
