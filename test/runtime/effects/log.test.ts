/** The log lines: their format, the object's name, one line per outcome and per failure. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  childLogger,
  createLogger,
  fieldsLogger,
  logFailure,
  logOutcome,
  objectRef,
} from '../../../src/runtime/effects/log.js';
import type { ResourceEnv } from '../../../src/runtime/env.js';
import type { KubeClient } from '../../../src/runtime/kube/client.js';
import type { Outcome } from '../../../src/runtime/reconcile/outcome.js';
import { policyEnv, myResourceDescriptor } from '../../helpers/resource-env.js';

const resource = myResourceDescriptor();

function env() {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', write: (l) => lines.push(l.slice(25)) }); // without the timestamp
  const signal = new AbortController().signal;
  const exec: ResourceEnv = {
    client: {} as KubeClient,
    resource,
    logger,
    signal,
    now: () => new Date(),
    ...policyEnv(),
  };
  return { exec, lines };
}

describe('log lines', () => {
  it('level, message, then key=value fields (quoted when they hold spaces); below the level nothing', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', write: (l) => lines.push(l.slice(25)) });
    logger.debug('hidden');
    childLogger(logger, 'ns/a myapp').warn('slow', { took: 'two seconds', n: 3 });
    assert.deepEqual(lines, ['WARN  ns/a myapp: slow took="two seconds" n=3']);
  });
  it("adds a range's fields to every line, after the line's own", () => {
    const lines: string[] = [];
    const logger = fieldsLogger(createLogger({ level: 'debug', write: (l) => lines.push(l.slice(25)) }), { range: 7 });
    logger.info('handler create succeeded', { name: 'a' });
    logger.error('failed');
    assert.deepEqual(lines, ['INFO  handler create succeeded name=a range=7', 'ERROR failed range=7']);
  });
  it('names an object as kubectl does', () => {
    assert.equal(objectRef({ metadata: { name: 'a', namespace: 'ns' } }), 'ns/a');
    assert.equal(objectRef({ metadata: { name: 'cluster-wide' } }), 'cluster-wide');
  });
  it('one line per outcome, at the level its kind deserves', () => {
    const cases: { given: Outcome; want: string }[] = [
      { given: { kind: 'success' }, want: 'INFO  handler myapp succeeded' },
      { given: { kind: 'ignored', message: 'x' }, want: 'WARN  handler myapp failed, error ignored: x' },
      {
        given: { kind: 'temporary', delay: 5, message: 'x' },
        want: 'WARN  handler myapp failed temporarily, retry in 5s: x',
      },
      { given: { kind: 'permanent', message: 'x' }, want: 'ERROR handler myapp failed permanently: x' },
    ];
    for (const { given, want } of cases) {
      const { exec, lines } = env();
      logOutcome(exec, { metadata: { name: 'a', namespace: 'ns' } }, 'myapp', 'create', given);
      const fields = `resource=myresources namespace=ns name=a handler=myapp cause=create outcome=${given.kind}`;
      assert.deepEqual(lines, [`${want} ${fields}`]);
    }
  });
  it('a failed reconcile: one line naming the object by namespace/name, uid only when it is no longer known', () => {
    const { exec, lines } = env();
    logFailure(exec, { metadata: { name: 'a', namespace: 'ns' } }, 'u1', 'processing failed, retrying in 1s: boom');
    logFailure(exec, undefined, 'u1', 'processing failed, retrying in 2s: boom');
    assert.deepEqual(lines, [
      'ERROR myresources ns/a: processing failed, retrying in 1s: boom resource=myresources object=ns/a uid=u1',
      'ERROR myresources uid u1: processing failed, retrying in 2s: boom resource=myresources uid=u1',
    ]);
  });
});
