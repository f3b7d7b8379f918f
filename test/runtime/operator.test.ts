/** The operator's decisions that need no cluster: when leader election is on, and the default Lease name. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineHandler, Registry } from '../../src/runtime/index.js';
import { defaultLeaseName, electionOptions } from '../../src/runtime/operator.js';
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
