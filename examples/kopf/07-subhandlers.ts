/**
 * kopf's examples/07-subhandlers: the create handler registers one sub-handler per `spec.items` entry
 * (known only when it runs); each is tracked by its own progress record (`create_fn/<item>`) and runs
 * once, and `create_fn` succeeds once all of them have (kopf's `@kopf.subhandler` inside a handler).
 */
import { KopfExampleCreateFn } from './generated/index.js';

KopfExampleCreateFn.onCreate((ctx) => {
  const items = Array.isArray(ctx.spec.items) ? ctx.spec.items : [];
  for (const item of items.map(String)) {
    ctx.subhandler(item, (sub) => {
      sub.logger.info(`=== Handling creation for ${item}. ===`);
    });
  }
});
