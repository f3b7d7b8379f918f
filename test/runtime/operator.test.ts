/** The operator's decisions that need no cluster: when leader election is on, and the default Lease name. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, PermanentError, Registry, TemporaryError } from '../../src/runtime/index.js';
import { defaultLeaseName, electionOptions, hookRetry } from '../../src/runtime/operator.js';
import { myResourceDescriptor } from '../helpers/resource-env.js';

const resource = myResourceDescriptor();

function registryWith(...ids: string[]): Registry {
  const registry = new Registry();
  for (const id of ids) defineHandler(resource, id).onCreate(() => undefined, { registry });
  return registry;
}

describe('Operator', () => {
  it('leader election: on in a cluster by default, as asked otherwise', () => {
    const inCluster = { KUBERNETES_SERVICE_HOST: '10.0.0.1' };
    const cases: { option: Parameters<typeof electionOptions>[0]; env: Record<string, string>; want: unknown }[] = [
      { option: undefined, env: {}, want: undefined },
      { option: undefined, env: inCluster, want: {} },
      { option: false, env: inCluster, want: undefined },
      { option: true, env: {}, want: {} },
      { option: { id: 'x' }, env: {}, want: { id: 'x' } },
    ];
    for (const { option, env, want } of cases) assert.deepEqual(electionOptions(option, env), want);
  });

  it('the default Lease: shared by replicas of one operator, another for other handlers on the same CRD', () => {
    const name = defaultLeaseName(registryWith('myapp', 'audit'));
    assert.match(name, /^kopfgen-[0-9a-f]{12}$/);
    assert.equal(defaultLeaseName(registryWith('audit', 'myapp')), name, 'registration order does not matter');
    assert.notEqual(defaultLeaseName(registryWith('myapp')), name);
  });
});

describe('hookRetry: a failing startup hook, retried as kopf retries its activities', () => {
  const started = new Date('2026-01-01T00:00:00Z');
  const at = (seconds: number) => new Date(started.getTime() + seconds * 1000);
  const cases: {
    name: string;
    retrying: Parameters<typeof hookRetry>[0];
    error: unknown;
    attempts: number;
    now: Date;
    want: [string, number | undefined];
  }[] = [
    {
      name: 'a TemporaryError: after its delay',
      retrying: {},
      error: new TemporaryError('later', { delay: 1 }),
      attempts: 1,
      now: at(0),
      want: ['temporary', 1],
    },
    {
      name: 'a PermanentError: the start ends',
      retrying: {},
      error: new PermanentError('no'),
      attempts: 1,
      now: at(0),
      want: ['permanent', undefined],
    },
    {
      name: "any other error: the start ends (errors: 'permanent', the default onStartup gives)",
      retrying: { errors: 'permanent' },
      error: new Error('x'),
      attempts: 1,
      now: at(0),
      want: ['permanent', undefined],
    },
    {
      name: "errors: 'temporary': after the backoff",
      retrying: { errors: 'temporary', backoff: 2 },
      error: new Error('x'),
      attempts: 1,
      now: at(0),
      want: ['temporary', 2],
    },
    {
      name: 'retries used up',
      retrying: { retries: 3 },
      error: new TemporaryError('later', { delay: 1 }),
      attempts: 3,
      now: at(3),
      want: ['permanent', undefined],
    },
    {
      name: 'timeout passed',
      retrying: { timeout: 5 },
      error: new TemporaryError('later', { delay: 1 }),
      attempts: 2,
      now: at(5),
      want: ['permanent', undefined],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const outcome = hookRetry(c.retrying, c.error, c.attempts, started, c.now);
      assert.deepEqual([outcome.kind, outcome.delay], c.want);
    });
  }
});
