/**
 * kopf's examples/99-all-at-once: startup hooks (one retried), a cleanup hook, create handlers (one
 * posting Events, one failing its first attempt with an arbitrary error, one creating a labelled Pod
 * child), update, field and delete handlers, and an event handler for the operator's own Pods.
 * Different from kopf: `create_2` names its 1 s backoff (kopf's e2e test sets the default backoff to
 * 1 s; kopfgen's default is kopf's 60 s).
 */
import { defineHandler, onCleanup, onStartup, TemporaryError, uses } from 'kopfgen/runtime';
import { builtins, type Pod } from 'kopfgen/runtime/builtins';
import { KopfExampleDescriptor, type KopfExample } from './generated/index.js';

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

uses(builtins.pods, ['create']);

onStartup(
  async ({ logger }) => {
    logger.info('Starting in 1s...');
    await sleep(1);
  },
  { id: 'startup_fn_simple' },
);

onStartup(
  ({ retry, logger }) => {
    if (retry < 3) throw new TemporaryError(`Going to succeed in ${3 - retry}s`, { delay: 1 });
    logger.info('Starting retried...');
  },
  { id: 'startup_fn_retried' },
);

onCleanup(
  async ({ logger }) => {
    logger.info('Cleaning up in 3s...');
    await sleep(3);
  },
  { id: 'cleanup_fn' },
);

defineHandler<KopfExample, { 'job1-status'?: number }>(KopfExampleDescriptor, 'create_1').onCreate((ctx) => {
  const children: Pod[] = [];
  ctx.info(ctx.body, 'AnyReason');
  ctx.event(ctx.body, { type: 'Warning', reason: 'SomeReason', message: 'Cannot do something' });
  ctx.event(children, { type: 'Normal', reason: 'SomeReason', message: 'Created as part of the job1step' });
  return { 'job1-status': 100 };
});

defineHandler<KopfExample, { 'job2-status'?: number }>(KopfExampleDescriptor, 'create_2').onCreate(
  async (ctx) => {
    await sleep(1); // waiting for something, e.g. an external API poller
    if (!ctx.retry) throw new Error('Whoops!'); // retried by the runtime, also after a restart
    return { 'job2-status': 100 };
  },
  { backoff: 1 },
);

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'update').onUpdate((ctx) =>
  ctx.logger.info(`Handling the diff: ${JSON.stringify(ctx.diff)}`),
);

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'update_lst').onField('spec.lst', (ctx) =>
  ctx.logger.info(`Handling the FIELD = ${JSON.stringify(ctx.old)} -> ${JSON.stringify(ctx.new)}`),
);

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'delete').onDelete(() => undefined);

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'create_pod').onCreate(async (ctx) => {
  const pod = ctx.adopt(builtins.pods, {
    metadata: { generateName: `${ctx.name}-`, labels: { application: 'kopf-example-10' } },
    spec: { containers: [{ name: 'the-only-one', image: 'busybox', command: ['sh', '-x', '-c', 'sleep 1'] }] },
  });
  await ctx.client.create(builtins.pods, pod);
});

defineHandler(builtins.pods, 'example_pod_change').onEvent(({ logger }) => logger.info('This pod is special for us.'), {
  labels: { application: 'kopf-example-10' },
});
