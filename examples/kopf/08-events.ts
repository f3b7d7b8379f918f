/**
 * kopf's examples/08-events: raw watch events (kopf's on.event): every event of the object, in order;
 * an error in one handler is logged and the next event comes regardless.
 */
import { defineHandler } from 'kopfgen/runtime';
import { KopfExampleDescriptor, type KopfExample } from './generated/index.js';

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'event_fn_with_error').onEvent(() => {
  throw new Error('Oops!');
});

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'normal_event_fn').onEvent((ctx) => {
  ctx.logger.info(`Event received: ${String(ctx.type)} ${ctx.name}`);
});
