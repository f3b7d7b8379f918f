/**
 * kopf's examples/09-testing: an operator and a test of it. The operator is one create handler that
 * logs; kopf's test (pytest with `kopf.testing.KopfRunner`) runs it in the background against a
 * cluster, creates and deletes kopf's object, and checks the operator's output. kopfgen's
 * counterpart of `KopfRunner` is `startOperator` of `kopfgen/testing` (docs/topics/testing.md):
 * `test/e2e/kopf-examples.test.ts` ("09-testing") is kopf's test, ported with it.
 */
import { KopfExampleCreateFn } from './generated/index.js';

KopfExampleCreateFn.onCreate((ctx) => {
  ctx.logger.info('Something was logged here.');
});
