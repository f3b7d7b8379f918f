import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deploymentObject } from '../../src/manifests/deployment-manifest.js';
import { disruptionBudgetObject } from '../../src/manifests/disruption-budget.js';
import { resource, target } from '../helpers/manifest-fixtures.js';

describe('disruptionBudgetObject', () => {
  const cases: { given: { replicas?: number; namespace?: string }; want: string | undefined }[] = [
    { given: {}, want: 'myresource-operator-system/myresource-operator maxUnavailable=1' },
    { given: { replicas: 3 }, want: 'myresource-operator-system/myresource-operator maxUnavailable=1' },
    { given: { replicas: 2, namespace: 'team-a' }, want: 'team-a/myresource-operator maxUnavailable=1' },
    { given: { replicas: 1 }, want: undefined },
  ];
  for (const { given, want } of cases) {
    it(`${JSON.stringify(given)} -> ${want ?? 'none (a budget of one pod only blocks drains)'}`, () => {
      const budget = disruptionBudgetObject(target([resource()], given)) as Record<string, any> | undefined;
      const got =
        budget && `${budget.metadata.namespace}/${budget.metadata.name} maxUnavailable=${budget.spec.maxUnavailable}`;
      assert.equal(got, want);
    });
  }

  it("policy/v1, counting exactly the Deployment's pods", () => {
    const t = target([resource()], { replicas: 3, shards: 32 });
    const budget = disruptionBudgetObject(t) as Record<string, any>;
    const deployment = deploymentObject(t) as Record<string, any>;
    assert.equal(budget.apiVersion, 'policy/v1');
    assert.deepEqual(budget.spec.selector, deployment.spec.selector);
    assert.deepEqual(budget.metadata.labels, deployment.metadata.labels);
  });
});
