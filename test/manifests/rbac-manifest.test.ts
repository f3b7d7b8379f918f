import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  crdRule,
  declaredRules,
  grantedResources,
  isCustomResource,
  rbacObjects,
  resourceRules,
  serviceAccount,
  type KubeObject,
  type PolicyRule,
} from '../../src/manifests/rbac-manifest.js';
import { builtins } from '../../src/runtime/builtin-kinds.js';
import type { DeclaredAccess } from '../../src/runtime/api/registry.js';
import { accessKind as kindOf } from '../../src/runtime/api/access.js';
import { resource, target } from '../helpers/manifest-fixtures.js';

const pod = resource({ group: '', plural: 'pods', kind: 'Pod', statusSubresource: true });
const node = resource({ group: '', plural: 'nodes', kind: 'Node', scope: 'Cluster', statusSubresource: false });
const widget = resource({
  group: 'acme.io',
  plural: 'widgets',
  kind: 'Widget',
  scope: 'Cluster',
  statusSubresource: false,
});

const rulesOf = (o: KubeObject | undefined) => (o?.rules ?? []) as PolicyRule[];
const find = (objects: KubeObject[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && (o.metadata as { name: string }).name === name);
const summary = (objects: KubeObject[]) =>
  objects.map((o) => {
    const m = o.metadata as { name: string; namespace?: string };
    return `${o.kind} ${m.namespace ? `${m.namespace}/` : ''}${m.name}`;
  });

describe('grantedResources', () => {
  it('one entry per group and plural, sorted; status if any version has the subresource', () => {
    const got = grantedResources([
      resource({ version: 'v2', statusSubresource: false }),
      widget,
      resource({ version: 'v1', statusSubresource: true }),
      pod,
    ]);
    assert.deepEqual(got, [
      { group: '', plural: 'pods', scope: 'Namespaced', status: true },
      { group: 'acme.io', plural: 'widgets', scope: 'Cluster', status: false },
      { group: 'example.com', plural: 'myresources', scope: 'Namespaced', status: true },
    ]);
  });
});

describe('resourceRules', () => {
  const cases: { name: string; given: ReturnType<typeof grantedResources>; want: PolicyRule[] }[] = [
    {
      name: 'a CRD with status: the four verbs, and patch on /status',
      given: grantedResources([resource()]),
      want: [
        { apiGroups: ['example.com'], resources: ['myresources'], verbs: ['get', 'list', 'watch', 'patch'] },
        { apiGroups: ['example.com'], resources: ['myresources/status'], verbs: ['patch'] },
      ],
    },
    {
      name: 'no status subresource: no /status rule',
      given: grantedResources([widget]),
      want: [{ apiGroups: ['acme.io'], resources: ['widgets'], verbs: ['get', 'list', 'watch', 'patch'] }],
    },
    {
      name: 'a built-in resource renders with the core group ""',
      given: grantedResources([pod]),
      want: [
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'patch'] },
        { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
      ],
    },
  ];
  for (const { name, given, want } of cases) it(name, () => assert.deepEqual(resourceRules(given), want));
});

describe('crdRule', () => {
  const cases: { given: string[]; want: boolean }[] = [
    { given: ['example.com'], want: true },
    { given: ['gateway.networking.k8s.io'], want: true },
    { given: [''], want: false },
    { given: ['apps'], want: false },
    { given: ['networking.k8s.io'], want: false },
    { given: ['coordination.k8s.io'], want: false },
  ];
  for (const { given, want } of cases)
    it(`group "${given[0]}" is ${want ? '' : 'not '}a CRD's`, () =>
      assert.equal(isCustomResource({ group: given[0] }), want));

  it("get only, restricted by name to the operator's own CRDs", () => {
    assert.deepEqual(crdRule(grantedResources([resource(), widget, pod])), {
      apiGroups: ['apiextensions.k8s.io'],
      resources: ['customresourcedefinitions'],
      resourceNames: ['widgets.acme.io', 'myresources.example.com'],
      verbs: ['get'],
    });
    assert.equal(crdRule(grantedResources([pod, node])), undefined);
  });
});

describe('rbacObjects', () => {
  it("cluster-wide: one ClusterRole with resources, events and CRDs; leases only in the operator's namespace", () => {
    const t = target([resource()]);
    const objects = rbacObjects([resource()], t);
    assert.deepEqual(summary(objects), [
      'ClusterRole myresource-operator',
      'ClusterRoleBinding myresource-operator',
      'Role myresource-operator-system/myresource-operator-leader-election',
      'RoleBinding myresource-operator-system/myresource-operator-leader-election',
    ]);
    assert.deepEqual(
      rulesOf(objects[0]).map((r) => `${r.apiGroups[0]}/${r.resources[0]}:${r.verbs.join(',')}`),
      [
        'example.com/myresources:get,list,watch,patch',
        'example.com/myresources/status:patch',
        '/events:create,patch',
        'apiextensions.k8s.io/customresourcedefinitions:get',
      ],
    );
    assert.deepEqual(rulesOf(objects[2]), [
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
    ]);
    for (const b of [objects[1], objects[3]]) {
      assert.deepEqual(b.subjects, [
        { kind: 'ServiceAccount', name: 'myresource-operator', namespace: 'myresource-operator-system' },
      ]);
    }
    assert.deepEqual(objects[1].roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'myresource-operator',
    });
    assert.deepEqual(objects[3].roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'myresource-operator-leader-election',
    });
  });

  it('--shards: the Lease rule gains list (members see each other and the range holders by listing), nothing else', () => {
    const leaseRule = (shards?: number) =>
      rulesOf(
        find(
          rbacObjects([resource()], target([resource()], { shards })),
          'Role',
          'myresource-operator-leader-election',
        ),
      );
    assert.deepEqual(leaseRule(32), [
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'create', 'update'] },
    ]);
    assert.deepEqual(leaseRule(undefined)[0].verbs, ['get', 'create', 'update'], 'one leader: no list');
  });

  it("sensitive fields (a Secret handler): the digest key Secret, by name, and create, in the operator's namespace only", () => {
    const secrets = builtins.secrets;
    const t = target([secrets]);
    const plain = find(rbacObjects([secrets], t), 'Role', `${t.name}-leader-election`);
    assert.deepEqual(
      rulesOf(plain).map((r) => r.resources[0]),
      ['leases'],
    );
    const objects = rbacObjects([secrets], t, undefined, { sensitive: true });
    const own = find(objects, 'Role', `${t.name}-leader-election`);
    assert.equal((own?.metadata as { namespace: string }).namespace, t.operatorNamespace);
    assert.deepEqual(rulesOf(own).slice(1), [
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['kopfgen-digest-key'], verbs: ['get'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
    ]);
  });

  it('-n: a Role in that namespace; a ClusterRole (named after the namespace) only for the CRD', () => {
    const objects = rbacObjects([resource()], target([resource()], { namespace: 'team-a' }));
    assert.deepEqual(summary(objects), [
      'Role team-a/myresource-operator',
      'RoleBinding team-a/myresource-operator',
      'ClusterRole myresource-operator-team-a',
      'ClusterRoleBinding myresource-operator-team-a',
      'Role team-a/myresource-operator-leader-election',
      'RoleBinding team-a/myresource-operator-leader-election',
    ]);
    assert.deepEqual(
      rulesOf(objects[0]).map((r) => r.resources[0]),
      ['myresources', 'myresources/status', 'events'],
    );
    assert.deepEqual(
      rulesOf(objects[2]).map((r) => [r.resources[0], r.resourceNames]),
      [['customresourcedefinitions', ['myresources.example.com']]],
    );
  });

  it('-n, a cluster-scoped resource: in the ClusterRole; its Events (posted to default) in a Role there', () => {
    const objects = rbacObjects(
      [resource(), widget],
      target([resource(), widget], { namespace: 'team-a', name: 'op' }),
    );
    assert.deepEqual(
      rulesOf(find(objects, 'ClusterRole', 'op-team-a')).map((r) => r.resources[0]),
      ['widgets', 'customresourcedefinitions'],
    );
    assert.deepEqual(
      rulesOf(find(objects, 'Role', 'op')).map((r) => r.resources[0]),
      ['myresources', 'myresources/status', 'events'],
    );
    const events = find(objects, 'Role', 'op-events');
    assert.equal((events?.metadata as { namespace: string }).namespace, 'default');
    assert.deepEqual(
      rulesOf(events).map((r) => r.resources[0]),
      ['events'],
    );
  });

  it('built-in resources only, with -n: no ClusterRole at all', () => {
    const objects = rbacObjects([pod], target([pod], { namespace: 'team-a', name: 'op' }));
    assert.deepEqual(summary(objects), [
      'Role team-a/op',
      'RoleBinding team-a/op',
      'Role team-a/op-leader-election',
      'RoleBinding team-a/op-leader-election',
    ]);
  });

  it('the runtime\'s built-in descriptors: the core group as "", no status rule, no CRD to read', () => {
    const given = [builtins.configMaps, builtins.deployments];
    assert.deepEqual(resourceRules(grantedResources(given)), [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'patch'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch', 'patch'] },
    ]);
    assert.equal(crdRule(grantedResources(given)), undefined);
  });

  it('never a wildcard, never a verb the runtime does not use', () => {
    const objects = rbacObjects(
      [resource(), widget, pod, node],
      target([resource(), widget, pod, node], { name: 'op' }),
    );
    const verbs = new Set(objects.flatMap((o) => rulesOf(o).flatMap((r) => r.verbs)));
    assert.deepEqual([...verbs].sort(), ['create', 'get', 'list', 'patch', 'update', 'watch']);
    const rules = objects.flatMap(rulesOf);
    assert.ok(rules.every((r) => ![...r.apiGroups, ...r.resources, ...r.verbs].includes('*')));
    // update and create on leases only; create otherwise only on events
    assert.deepEqual(
      rules.filter((r) => r.verbs.includes('update')).map((r) => r.resources),
      [['leases']],
    );
    assert.deepEqual(
      rules.filter((r) => r.verbs.includes('create')).map((r) => r.resources),
      [['events'], ['leases']],
    );
  });

  it("the ServiceAccount lives in the operator's namespace", () => {
    assert.deepEqual(serviceAccount(target([resource()], { namespace: 'team-a', name: 'op' })).metadata, {
      name: 'op',
      namespace: 'team-a',
      labels: {
        'app.kubernetes.io/name': 'op',
        'app.kubernetes.io/component': 'operator',
        'app.kubernetes.io/managed-by': 'kopfgen',
      },
    });
  });
});

describe('declared kinds (onChild, defineIndex, uses)', () => {
  const declared: DeclaredAccess[] = [
    {
      resource: { ...kindOf(builtins.deployments) },
      verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
      via: 'a',
    },
    { resource: { ...kindOf(builtins.configMaps) }, verbs: ['list', 'watch'], via: 'b' },
    { resource: { ...kindOf(builtins.configMaps) }, verbs: ['get'], via: 'c' },
    { resource: { ...kindOf(builtins.namespaces) }, verbs: ['get'], via: 'd' },
  ];

  it('one rule per kind of the scope asked for, the verbs of all its declarations in a fixed order', () => {
    assert.deepEqual(declaredRules(declared, 'Namespaced'), [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
    ]);
    assert.deepEqual(declaredRules(declared, 'Cluster'), [
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get'] },
    ]);
  });

  it('cluster-wide: in the ClusterRole with update on the owners’ finalizers; -n: namespaced ones in the Role', () => {
    const owners = [resource()];
    const wide = rbacObjects([resource()], target([resource()]), undefined, { declared, owners });
    const rules = (o: KubeObject | undefined) =>
      rulesOf(o).map((r) => `${r.apiGroups[0]}/${r.resources[0]}:${r.verbs.join(',')}`);
    assert.deepEqual(rules(find(wide, 'ClusterRole', 'myresource-operator')), [
      'example.com/myresources:get,list,watch,patch',
      'example.com/myresources/status:patch',
      'example.com/myresources/finalizers:update',
      '/configmaps:get,list,watch',
      'apps/deployments:get,list,watch,create,patch,delete',
      '/namespaces:get',
      '/events:create,patch',
      'apiextensions.k8s.io/customresourcedefinitions:get',
    ]);
    const scoped = rbacObjects([resource()], target([resource()], { namespace: 'team' }), undefined, {
      declared,
      owners,
    });
    assert.deepEqual(rules(find(scoped, 'Role', 'myresource-operator')), [
      'example.com/myresources:get,list,watch,patch',
      'example.com/myresources/status:patch',
      'example.com/myresources/finalizers:update',
      '/configmaps:get,list,watch',
      'apps/deployments:get,list,watch,create,patch,delete',
      '/events:create,patch',
    ]);
    assert.deepEqual(rules(find(scoped, 'ClusterRole', 'myresource-operator-team')), [
      '/namespaces:get',
      'apiextensions.k8s.io/customresourcedefinitions:get',
    ]);
  });
});
