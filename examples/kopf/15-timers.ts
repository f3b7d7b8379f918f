/**
 * kopf's examples/15-timers: two timers per object, each run once the object has been left unchanged
 * for `idle` seconds, then every `interval` seconds.
 */
import { defineHandler } from 'kopfgen/runtime';
import { KopfExampleDescriptor, type KopfExample } from './generated/index.js';

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'every_few_seconds_sync').onTimer(
  (ctx) => ctx.logger.info(`Ping from a sync timer: field=${JSON.stringify(ctx.spec?.field)}`),
  { idle: 5, interval: 2 },
);

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'every_few_seconds_async').onTimer(
  async (ctx) => ctx.logger.info(`Ping from an async timer: field=${JSON.stringify(ctx.spec?.field)}`),
  { idle: 10, interval: 4 },
);
