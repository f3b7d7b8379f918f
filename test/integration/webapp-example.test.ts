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
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generate } from '../../src/generate.js';
import { mergeStubFile } from '../../src/io/stub-merge.js';
import { readStubTemplates } from '../../src/io/stub-templates.js';
import { filesUnder, typecheck } from '../helpers/golden-support.js';
import { formatErrors } from '../helpers/handler-typecheck.js';
import { needsBuild, withTsx } from '../helpers/example-support.js';
import { declaredRules } from '../../src/manifests/rbac-manifest.js';
import { defaultRegistry } from '../../src/runtime/api/registry.js';

const EXAMPLE = resolve(process.cwd(), 'examples/webapp');
const CRD = 'examples/webapp/webapp.yaml';

test('the generated code is current, and the filled-in stub file is a merge fixed point', () => {
  // What `kopfgen generate examples/webapp/webapp.yaml --out examples/webapp/generated --stubs examples/webapp/handlers` computes.
  const result = generate([{ file: CRD, text: readFileSync(CRD, 'utf8') }], {
    stubs: { dir: 'examples/webapp/handlers', templates: readStubTemplates() },
    generatedImportBase: '../generated',
  });
  assert.deepEqual(result.diagnostics, []);
  for (const file of result.files) {
    if (file.role === 'generated') {
      assert.equal(readFileSync(join(EXAMPLE, 'generated', file.path), 'utf8'), file.content, file.path);
      continue;
    }
    const mine = readFileSync(join(EXAMPLE, 'handlers', file.path), 'utf8');
    const merged = mergeStubFile(mine, file);
    assert.deepEqual(merged.added, [], file.path);
    assert.equal(merged.text, mine);
  }
  assert.deepEqual(
    result.files.filter((f) => f.role === 'stub').map((f) => f.path),
    ['webapps.ts'],
  );
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
