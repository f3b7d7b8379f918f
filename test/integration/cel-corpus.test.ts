/**
 * The CEL rules of the shared CRD corpus (../shared/crds, read where it lies; skipped when absent):
 * every rule compiles in the test kit's environment (0 unsupported), with the count of rules calling
 * each library function printed (the table in docs). Then real CRDs rule by rule: gateway-api's
 * HTTPRoute and GatewayClass (a transition rule) and cluster-api's Cluster, an object that satisfies
 * the rule admitted, one that breaks it refused with the rule's message.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { compileRules } from '../../src/runtime/admission/cel-rules.js';
import { admitObject, type JsonSchema, type SchemaData } from '../../src/testing/index.js';
import { schemaDataOf } from '../helpers/crd-schema-data.js';

const CRDS = join(process.cwd(), '../shared/crds');
const skip = existsSync(CRDS) ? false : `../shared/crds is absent`;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Every node of a schema with its path. */
function* nodes(schema: JsonSchema, path: string): Generator<[JsonSchema, string]> {
  yield [schema, path];
  for (const [k, v] of Object.entries(schema.properties ?? {})) yield* nodes(v, path ? `${path}.${k}` : k);
  if (schema.items) yield* nodes(schema.items, `${path}[*]`);
  if (schema.additionalProperties && schema.additionalProperties !== true)
    yield* nodes(schema.additionalProperties, `${path}[*]`);
}

describe('CEL rules of the shared corpus', { skip }, () => {
  test('every rule compiles; rules by library function', (t) => {
    let rules = 0;
    const failures: string[] = [];
    const calls = new Map<string, number>();
    for (const file of files(CRDS))
      for (const data of schemaDataOf(file))
        for (const [version, root] of Object.entries(data.versions))
          for (const [node, path] of nodes(root, '')) {
            const own = node['x-kubernetes-validations'] ?? [];
            if (own.length === 0) continue;
            rules += own.length;
            try {
              compileRules(node, path);
            } catch (e) {
              failures.push(`${data.crd} ${version} ${path}: ${e instanceof Error ? e.message : String(e)}`);
            }
            for (const r of own) {
              const names = new Set([...r.rule.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)].map((m) => m[1] ?? ''));
              if (/\boldSelf\b/.test(r.rule)) names.add('oldSelf (transition)');
              if (r.rule.includes('.?')) names.add('.? (optional)');
              for (const n of names) calls.set(n, (calls.get(n) ?? 0) + 1);
            }
          }
    t.diagnostic(`${rules} rules, ${failures.length} not compiled`);
    t.diagnostic(
      [...calls]
        .sort((a, b) => b[1] - a[1])
        .map(([n, c]) => `${n}: ${c}`)
        .join(', '),
    );
    assert.ok(rules > 400, `${rules} rules found`);
    assert.deepEqual(failures, []);
  });

  const [httpRoutes] = existsSync(CRDS)
    ? schemaDataOf(join(CRDS, 'gateway-api/gateway.networking.k8s.io_httproutes.yaml'))
    : [];
  const [gatewayClasses] = existsSync(CRDS)
    ? schemaDataOf(join(CRDS, 'gateway-api/gateway.networking.k8s.io_gatewayclasses.yaml'))
    : [];
  const [clusters] = existsSync(CRDS) ? schemaDataOf(join(CRDS, 'cluster-api/cluster.x-k8s.io_clusters.yaml')) : [];

  const errorsOf = (data: SchemaData | undefined, object: unknown, version: string, old?: unknown) => {
    assert.ok(data);
    return admitObject(data, object, version, { old }).errors.map((e) => `${e.path}: ${e.message}`);
  };

  const route = (spec: Record<string, unknown>) => ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'web', namespace: 'default' },
    spec: { parentRefs: [{ name: 'gw' }], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }], ...spec },
  });

  const routeCases: { name: string; spec: Record<string, unknown>; want: string[] }[] = [
    { name: 'a route with a Service backend and a port', spec: {}, want: [] },
    {
      name: 'Must have port for Service reference',
      spec: { rules: [{ backendRefs: [{ name: 'web' }] }] },
      want: ['spec.rules[0].backendRefs[0]: Invalid value: Must have port for Service reference'],
    },
    {
      name: 'sectionName must be specified',
      spec: { parentRefs: [{ name: 'gw' }, { name: 'gw', sectionName: 'http' }] },
      want: [
        'spec.parentRefs: Invalid value: sectionName must be specified when parentRefs includes 2 or more references to the same parent',
      ],
    },
    {
      name: 'filter.requestHeaderModifier must be specified',
      spec: { rules: [{ filters: [{ type: 'RequestHeaderModifier' }], backendRefs: [{ name: 'web', port: 80 }] }] },
      want: [
        'spec.rules[0].filters[0]: Invalid value: filter.requestHeaderModifier must be specified for RequestHeaderModifier filter.type',
      ],
    },
    {
      name: 'RequestRedirect filter must not be used together with backendRefs',
      spec: {
        rules: [
          {
            filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https' } }],
            backendRefs: [{ name: 'web', port: 80 }],
          },
        ],
      },
      want: ['spec.rules[0]: Invalid value: RequestRedirect filter must not be used together with backendRefs'],
    },
    {
      name: 'a redirect without backends',
      spec: { rules: [{ filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https' } }] }] },
      want: [],
    },
  ];
  for (const c of routeCases)
    test(`HTTPRoute: ${c.name}`, () => assert.deepEqual(errorsOf(httpRoutes, route(c.spec), 'v1'), c.want));

  test('GatewayClass: controllerName is immutable (a transition rule, skipped on create)', () => {
    const gc = (controllerName: string) => ({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'GatewayClass',
      metadata: { name: 'gc' },
      spec: { controllerName },
    });
    assert.deepEqual(errorsOf(gatewayClasses, gc('example.com/a'), 'v1'), []);
    assert.deepEqual(errorsOf(gatewayClasses, gc('example.com/a'), 'v1', gc('example.com/a')), []);
    assert.deepEqual(errorsOf(gatewayClasses, gc('example.com/b'), 'v1', gc('example.com/a')), [
      'spec.controllerName: Invalid value: "example.com/b": field is immutable',
    ]);
  });

  const cluster = (type: string) => ({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name: 'c', namespace: 'default' },
    spec: {
      topology: {
        classRef: { name: 'quick-start' },
        version: 'v1.31.0',
        controlPlane: {
          healthCheck: { checks: { unhealthyMachineConditions: [{ type, status: 'False', timeoutSeconds: 300 }] } },
        },
      },
    },
  });
  test('Cluster: an unhealthy machine condition that is not a reserved type', () =>
    assert.deepEqual(errorsOf(clusters, cluster('MemoryPressure'), 'v1beta2'), []));
  test('Cluster: type must not be one of the reserved conditions', () =>
    assert.deepEqual(errorsOf(clusters, cluster('Ready'), 'v1beta2'), [
      'spec.topology.controlPlane.healthCheck.checks.unhealthyMachineConditions[0].type: Invalid value: "Ready": type must not be one of: Ready, Available, HealthCheckSucceeded, OwnerRemediated, ExternallyRemediated',
    ]));
});
