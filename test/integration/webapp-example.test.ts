/**
 * The example of an operator that manages other resources (`examples/webapp`: a WebApp owning a
 * Deployment, a Service and a ConfigMap): its generated code is what `kopfgen generate` writes
 * today, its handler file is a merge fixed point (the child and delete handlers added by hand are
 * kept, nothing is appended), it type-checks under strict with `kopfgen/runtime/builtins`, and loading
 * it registers its handlers and declares exactly its three owned kinds, which the RBAC grants.
 * What it does against an API server is test/e2e/webapp.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { filesUnder, typecheck } from '../helpers/golden-support.js';
import { formatErrors } from '../helpers/handler-typecheck.js';
import { assertExampleCurrent, needsBuild, withTsx } from '../helpers/example-support.js';
import { declaredRules } from '../../src/manifests/rbac-manifest.js';
import { defaultRegistry } from '../../src/runtime/api/registry.js';

const EXAMPLE = resolve(process.cwd(), 'examples/webapp');
const CRD = 'examples/webapp/webapp.yaml';

test('the generated code is current, and the filled-in stub file is a merge fixed point', () => {
  // What `kopfgen generate examples/webapp/webapp.yaml --out examples/webapp/generated --stubs examples/webapp/handlers` computes.
  assert.deepEqual(assertExampleCurrent('examples/webapp', CRD), ['webapps.ts']);
});

test('the example type-checks under strict', () => {
  const files = filesUnder(EXAMPLE).filter((p) => p.endsWith('.ts'));
  assert.deepEqual(formatErrors(typecheck(files)), []);
});

test(
  'loaded, it registers the deploy handler and its child handlers, declaring the three owned kinds',
  { skip: needsBuild },
  async () => {
    await withTsx(async (load) => {
      const example = (await load(join(EXAMPLE, 'operator.ts'))) as typeof import('../../examples/webapp/operator.js');
      const handlers = defaultRegistry.handlersFor(example.WebAppDescriptor);
      assert.deepEqual(
        handlers.map((h) => `${h.id} ${h.cause}${h.child ? ` ${h.child.plural}` : ''}`),
        [
          'deploy create',
          'deploy update',
          'deploy resume',
          'deploy child deployments',
          'deploy child services',
          'deploy child configmaps',
          'deploy delete',
        ],
      );
      assert.deepEqual(declaredRules(defaultRegistry.access, 'Namespaced'), [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
        { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
        {
          apiGroups: ['apps'],
          resources: ['deployments'],
          verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
        },
      ]);
    });
  },
);
