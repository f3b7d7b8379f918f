/** Startup checks: the namespace, the cluster's CRD over the descriptor, one line per forbidden access, the bound. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeError, type KubeClient, type RequestOptions } from '../../../src/runtime/kube/client.js';
import { builtins } from '../../../src/runtime/builtin-kinds.js';
import { StartupError } from '../../../src/runtime/kube/discovery.js';
import {
  declaredAccesses,
  namespaceProblem,
  startupChecks,
  tokenSubject,
  userOf,
} from '../../../src/runtime/kube/startup-checks.js';
import { uses } from '../../../src/runtime/api/access.js';
import { Registry } from '../../../src/runtime/api/registry.js';
import { myResourceDescriptor } from '../../helpers/resource-env.js';

const resource = myResourceDescriptor();

type Answer = (method: string, path: string, options: RequestOptions) => unknown;

interface Cluster {
  /** `verb resource/subresource` the SelfSubjectAccessReview denies. */
  denied?: string[];
  crd?: () => unknown;
  list?: () => unknown;
  token?: string;
  hang?: boolean;
}

const crd = (status: boolean) => ({
  spec: {
    versions: [
      { name: 'v1', served: true, subresources: status ? { status: {} } : {} },
      { name: 'v2', served: false },
    ],
  },
});

function fakeClient(cluster: Cluster): KubeClient {
  const answer: Answer = (method, path, options) => {
    if (path === '/version') return {};
    if (path === '/apis/example.com/v1') return { resources: [{ name: 'myresources' }] };
    if (path.startsWith('/apis/apiextensions.k8s.io/')) return (cluster.crd ?? (() => crd(true)))();
    if (path.endsWith('/myresources')) return (cluster.list ?? (() => ({ items: [] })))();
    if (path.endsWith('/selfsubjectaccessreviews')) {
      const spec = (options.body as { spec: { resourceAttributes: Record<string, string> } }).spec.resourceAttributes;
      const name = `${spec.verb} ${spec.resource}${spec.subresource ? `/${spec.subresource}` : ''}`;
      return { status: { allowed: !(cluster.denied ?? []).includes(name) } };
    }
    throw new Error(`unexpected ${method} ${path}`);
  };
  const fake = {
    server: new URL('https://127.0.0.1:6443'),
    async request(method: string, path: string, options: RequestOptions = {}) {
      // An API server that never answers: a promise that never settles, which holds no timer open.
      if (cluster.hang) await new Promise(() => undefined);
      return answer(method, path, options);
    },
    async authorization() {
      return cluster.token;
    },
  };
  return fake as unknown as KubeClient;
}

/** A JWT with this subject (the signature is not checked: only the name is read). */
const jwt = (sub: string) => `Bearer x.${Buffer.from(JSON.stringify({ sub })).toString('base64url')}.y`;

describe('startup checks', () => {
  it('namespace names: RFC 1123 labels only', () => {
    const cases: [string, boolean][] = [
      ['default', true],
      ['team-a', true],
      ['a1', true],
      ['x'.repeat(63), true],
      ['Bad_NS!', false],
      ['UPPER', false],
      ['-lead', false],
      ['trail-', false],
      ['', false],
      ['x'.repeat(64), false],
      ['dots.are.subdomains', false],
    ];
    for (const [given, valid] of cases) assert.equal(namespaceProblem(given) === undefined, valid, given);
    assert.match(namespaceProblem('Bad_NS!') ?? '', /^namespace "Bad_NS!" is not a valid namespace name/);
  });

  it('who the operator is: from a 403 message or a service account token', () => {
    const forbidden = new KubeError(
      'myresources.example.com is forbidden: User "system:serviceaccount:ops:op" cannot list',
      403,
      undefined,
    );
    assert.equal(userOf(forbidden), 'system:serviceaccount:ops:op');
    assert.equal(userOf(new Error('other')), undefined);
    assert.equal(tokenSubject(jwt('system:serviceaccount:ops:op')), 'system:serviceaccount:ops:op');
    assert.equal(tokenSubject('Bearer opaque-token'), undefined);
    assert.equal(tokenSubject(undefined), undefined);
  });

  it('KG360: a CRD converting through a webhook without registered conversion functions is a warning', async () => {
    const webhook = () => ({ spec: { ...crd(true).spec, conversion: { strategy: 'Webhook' } } });
    const without = await startupChecks(fakeClient({ crd: webhook }), [resource]);
    const kg360 = without.warnings.filter((w) => w.startsWith('KG360'));
    assert.deepEqual(kg360, [
      'KG360 the CRD myresources.example.com declares spec.conversion.strategy Webhook, but no conversion functions are ' +
        'registered for it: the API server cannot convert MyResource between its versions; register them with ' +
        'MyResourceConversion.register(…) from the generated myresources.conversion.ts',
    ]);
    const registered = await startupChecks(fakeClient({ crd: webhook }), [resource], {
      conversions: new Set(['myresources.example.com']),
    });
    assert.deepEqual(
      registered.warnings.filter((w) => w.startsWith('KG360')),
      [],
    );
    const none = await startupChecks(fakeClient({}), [resource]);
    assert.deepEqual(
      none.warnings.filter((w) => w.startsWith('KG360')),
      [],
    );
  });

  it('a bad namespace fails before the cluster is asked anything', async () => {
    const client = fakeClient({ hang: true });
    await assert.rejects(
      startupChecks(client, [resource], { namespace: 'Bad_NS!' }),
      (error: unknown) =>
        error instanceof StartupError && /"Bad_NS!" is not a valid namespace name/.test(error.message),
    );
  });

  it('given what the cluster allows, wants one line per forbidden verb and resource, all of them', async () => {
    const user = 'system:serviceaccount:ops:op';
    const cases: { given: Cluster; namespace?: string; lease?: string; shards?: boolean; want: string[] }[] = [
      { given: { token: jwt(user) }, want: [] },
      // leader election does not list leases; sharding does, every retry period
      { given: { token: jwt(user), denied: ['list leases'] }, lease: 'ops', want: [] },
      {
        given: { token: jwt(user), denied: ['list leases'] },
        lease: 'ops',
        shards: true,
        want: [`list on leases.coordination.k8s.io (namespace ops) is forbidden for ${user}`],
      },
      {
        given: { token: jwt(user), denied: ['watch myresources', 'patch myresources/status', 'update leases'] },
        namespace: 'team',
        lease: 'ops',
        want: [
          `watch on myresources.example.com (namespace team) is forbidden for ${user}`,
          `patch on myresources/status.example.com (namespace team) is forbidden for ${user}`,
          `update on leases.coordination.k8s.io (namespace ops) is forbidden for ${user}`,
        ],
      },
      {
        given: {
          list: () => {
            throw new KubeError(`forbidden: User "${user}" cannot list resource`, 403, undefined);
          },
          denied: ['create events'],
        },
        want: [
          `list on myresources.example.com (all namespaces) is forbidden for ${user}`,
          `create on events (all namespaces) is forbidden for ${user}`,
        ],
      },
      {
        given: { denied: ['patch myresources'] },
        want: ["patch on myresources.example.com (all namespaces) is forbidden for the operator's user"],
      },
    ];
    for (const { given, namespace, lease, shards, want } of cases) {
      const options = { namespace, leaseNamespace: lease, leaseList: shards };
      const checked = startupChecks(fakeClient(given), [resource], options);
      if (want.length === 0) {
        await checked;
        continue;
      }
      await assert.rejects(checked, (error: unknown) => {
        assert.ok(error instanceof StartupError);
        assert.deepEqual(error.message.split('\n'), want);
        return true;
      });
    }
  });

  it("records stay in status only where the cluster's CRD keeps unknown fields there, else annotations with a warning", async () => {
    const withRecords = { ...resource, statusRecords: true };
    const keeping = (schema: unknown) => () => ({
      spec: {
        versions: [{ name: 'v1', served: true, subresources: { status: {} }, schema: { openAPIV3Schema: schema } }],
      },
    });
    const preserving = {
      type: 'object',
      properties: { status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    };
    const kept = await startupChecks(fakeClient({ crd: keeping(preserving) }), [withRecords]);
    assert.deepEqual([kept.resources[0], kept.warnings], [withRecords, []]);
    const open = await startupChecks(
      fakeClient({ crd: keeping({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }) }),
      [withRecords],
    );
    assert.deepEqual([open.resources[0], open.warnings], [withRecords, []]);
    const closed = {
      type: 'object',
      properties: { status: { type: 'object', properties: { phase: { type: 'string' } } } },
    };
    const pruning = await startupChecks(fakeClient({ crd: keeping(closed) }), [withRecords]);
    assert.equal(pruning.resources[0].statusRecords, false);
    assert.equal(pruning.warnings.length, 1);
    assert.match(
      pruning.warnings[0],
      /does not keep unknown fields in status, the generated descriptor says it does \(statusRecords\); keeping the operator's records in annotations: regenerate/,
    );
  });

  it("the cluster's CRD wins over the descriptor, with a warning to regenerate; a 403 on it is a warning", async () => {
    const lacking = await startupChecks(fakeClient({ crd: () => crd(false) }), [resource]);
    assert.equal(lacking.resources[0].statusSubresource, false);
    assert.equal(lacking.warnings.length, 1);
    assert.match(
      lacking.warnings[0],
      /the cluster's CRD has no status subresource, the generated descriptor says it has; following the cluster: regenerate/,
    );
    const same = await startupChecks(fakeClient({}), [resource]);
    assert.equal(same.resources[0], resource);
    assert.deepEqual(same.warnings, []);
    const forbidden = await startupChecks(
      fakeClient({
        crd: () => {
          throw new KubeError('403', 403, undefined);
        },
      }),
      [resource],
    );
    assert.equal(forbidden.resources[0], resource);
    assert.match(forbidden.warnings[0], /cannot be checked against the generated descriptor: reading it is forbidden/);
  });

  it('a built-in kind: discovery in /api/v1, no CRD asked for, no status access checked', async () => {
    const asked: string[] = [];
    const base = fakeClient({});
    const fake = {
      server: base.server,
      authorization: () => base.authorization(),
      async request(method: string, path: string, options: RequestOptions = {}) {
        asked.push(`${method} ${path}`);
        if (path === '/api/v1') return { resources: [{ name: 'configmaps' }] };
        if (path.endsWith('/configmaps')) return { items: [] };
        return base.request(method, path, options);
      },
    };
    const report = await startupChecks(fake as unknown as KubeClient, [builtins.configMaps]);
    assert.deepEqual(report, { resources: [builtins.configMaps], warnings: [] });
    assert.ok(asked.includes('GET /api/v1'), asked.join('\n'));
    assert.ok(!asked.some((a) => a.includes('customresourcedefinitions')), asked.join('\n'));
  });

  it('every verb declared on a kind the code uses is asked for, once, in the namespace of its scope', async () => {
    const registry = new Registry();
    uses(builtins.secrets, ['get', 'apply'], { registry });
    uses(builtins.secrets, ['get'], { registry });
    uses(builtins.namespaces, ['list'], { registry });
    const denied = ['patch secrets', 'list namespaces'];
    const checked = startupChecks(fakeClient({ denied }), [resource], { namespace: 'team', declared: registry.access });
    await assert.rejects(checked, (error: unknown) => {
      assert.ok(error instanceof StartupError);
      assert.deepEqual(error.message.split('\n'), [
        "patch on secrets (namespace team) is forbidden for the operator's user",
        "list on namespaces (all namespaces) is forbidden for the operator's user",
      ]);
      return true;
    });
    assert.deepEqual(
      declaredAccesses(registry.access, 'team').map((a) => `${a.verb} ${a.resource} ${a.namespace || '*'}`),
      ['get secrets team', 'patch secrets team', 'create secrets team', 'list namespaces *'],
    );
  });

  it('checks that do not finish within the bound: one line saying so', async () => {
    await assert.rejects(
      startupChecks(fakeClient({ hang: true }), [resource], { timeoutSeconds: 0.05 }),
      (error: unknown) =>
        error instanceof StartupError && /did not finish within 0\.05 s \(--cache-sync-timeout\)/.test(error.message),
    );
  });
});
