/**
 * kopf's examples/03-exceptions: a PermanentError fails at once; a TemporaryError is retried after its
 * delay (`ctx.retry` counts the attempts); an arbitrary error is retried until `retries` ends it, or,
 * with `errors: 'permanent'`, fails at once. Handlers the CRD's columns do not name are defined
 * here with `defineHandler`, their status type `never` (they return nothing).
 */
import { defineHandler, PermanentError, TemporaryError } from 'kopfgen/runtime';
import { KopfExampleDescriptor, type KopfExample } from './generated/index.js';

class MyException extends Error {}

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'instant_failure_with_only_a_message').onCreate(() => {
  throw new PermanentError('Fail once and for all.');
});

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'eventual_success_with_a_few_messages').onCreate((ctx) => {
  if (ctx.retry < 3) throw new TemporaryError('Expected recoverable error.', { delay: 1 });
});

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'eventual_failure_with_tracebacks').onCreate(
  () => {
    throw new MyException('An error that is supposed to be recoverable.');
  },
  { retries: 3, backoff: 1 },
);

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'instant_failure_with_traceback').onCreate(
  () => {
    throw new MyException('An error that is supposed to be recoverable.');
  },
  { errors: 'permanent', backoff: 1 },
);
