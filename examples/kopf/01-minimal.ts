/**
 * kopf's examples/01-minimal: one create handler; what it returns becomes `status.create_fn`.
 * `create_fn` is the handler the CRD's printer columns name (`.status.create_fn.message`), so its
 * definition and status type are generated (generated/, from kopfexamples.yaml).
 */
import { KopfExampleCreateFn } from './generated/index.js';

KopfExampleCreateFn.onCreate((ctx) => {
  ctx.logger.info(`And here we are! Creating: ${JSON.stringify(ctx.spec)}`);
  return { message: 'hello world' }; // will be the new status
});
