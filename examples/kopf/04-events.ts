/**
 * kopf's examples/04-events: Events posted by the handler about its object (kopf's `kopf.event`,
 * `info`, `warn`, `exception`: `ctx.event`, `ctx.info`, `ctx.warn`, `ctx.exception`), besides the
 * operator's own. Different from kopf: an Event's type is Normal or Warning, the two Kubernetes defines
 * (kopf's example posts "SomeType"; its `exception` posts "Error"), so the first is a Normal one here.
 * Run with `--success-events`, the operator also posts a Normal Event for the handler's success, as
 * kopf does by default.
 */
import { KopfExampleCreateFn } from './generated/index.js';

KopfExampleCreateFn.onCreate((ctx) => {
  // The all-purpose function for the event creation.
  ctx.event(ctx.body, { type: 'Normal', reason: 'SomeReason', message: 'Some message' });
  // The shortcuts for the conventional events and common cases.
  ctx.info(ctx.body, 'SomeReason', 'Some message');
  ctx.warn(ctx.body, 'SomeReason', 'Some message');
  try {
    throw new Error('Exception text.');
  } catch (error) {
    ctx.exception(ctx.body, error, 'SomeReason', 'Some exception:');
  }
});
