/**
 * `kopfgen generate --from-cluster` on a real API server: a CRD by name generates what its file
 * generates, `-l` selects by label, a name not installed is KG153, and a diagnostic's position
 * is in the JSON the server returned (`<cluster>/crd/<name>`).
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EXAMPLE_CRD, kopfgen, read, tempProject, tree, WIDGET_CRD } from '../helpers/cli-support.js';
import { applyCrd, skip, START_TIMEOUT, TEST_TIMEOUT } from '../helpers/envtest.js';
import { E2eSuite } from '../helpers/e2e-suite.js';
import { parseSource } from '../../src/load/parse-yaml.js';

/** The generated file without its first line, which names the source. */
const body = (text: string): string => text.slice(text.indexOf('\n') + 1);

describe('generate --from-cluster', { skip, timeout: START_TIMEOUT + 10 * TEST_TIMEOUT }, () => {
  let dir = '';
  const suite = new E2eSuite({
    setup: async (cluster) => {
      dir = await tempProject({
        'crds/myresource.yaml': EXAMPLE_CRD,
        'widget.yaml': WIDGET_CRD.replace(
          '  name: widgets.example.com\n',
          '  name: widgets.example.com\n  labels: { app: widgets-e2e }\n',
        ),
      });
      await applyCrd(cluster, join(dir, 'crds/myresource.yaml'), 'example.com', 'v1', 'myresources');
      await applyCrd(cluster, join(dir, 'widget.yaml'), 'example.com', 'v1', 'widgets');
    },
  });
  suite.hooks();

  it('a CRD by name generates what its file generates', { timeout: TEST_TIMEOUT }, async () => {
    const kubeconfig = suite.cluster.kubeconfig;
    const fromFile = await kopfgen(
      ['generate', 'crds/myresource.yaml', '--out', 'file', '--no-stubs', '--no-cache'],
      dir,
    );
    assert.equal(fromFile.code, 0, fromFile.stderr);
    const r = await kopfgen(
      [
        'generate',
        'myresources.example.com',
        '--from-cluster',
        '--kubeconfig',
        kubeconfig,
        '--out',
        'cluster',
        '--no-stubs',
        '--no-cache',
      ],
      dir,
    );
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const generated = (await tree(dir)).filter((f) => f.startsWith('cluster/'));
    assert.deepEqual(generated, [
      'cluster/.kopfgen-manifest.json',
      'cluster/example.com/myresources.schemas.ts',
      'cluster/example.com/v1/myresources.ts',
      'cluster/index.ts',
    ]);
    assert.equal(
      body(await read(dir, 'cluster/example.com/v1/myresources.ts')),
      body(await read(dir, 'file/example.com/v1/myresources.ts')),
    );
  });

  it('-l selects by label; the context is taken from the kubeconfig by name', { timeout: TEST_TIMEOUT }, async () => {
    const kubeconfig = suite.cluster.kubeconfig;
    const context = suite.cluster.kubectl('config', 'current-context').trim();
    const r = await kopfgen(
      [
        'generate',
        `--from-cluster=${context}`,
        '-l',
        'app=widgets-e2e',
        '--kubeconfig',
        kubeconfig,
        '--out',
        'selected',
        '--no-stubs',
        '--format',
        'json',
      ],
      dir,
    );
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const files = (await tree(dir)).filter((f) => f.startsWith('selected/'));
    assert.deepEqual(files, [
      'selected/.kopfgen-manifest.json',
      'selected/example.com/v1/widgets.ts',
      'selected/index.ts',
    ]);
    const none = await kopfgen(
      ['generate', '--from-cluster', '-l', 'app=nothing-here', '--kubeconfig', kubeconfig, '--out', 'none'],
      dir,
    );
    assert.equal(none.code, 1);
    assert.match(
      none.stderr + none.stdout,
      /^<cluster>:1:1 error KG154 no CustomResourceDefinition in the cluster matches -l app=nothing-here$/m,
    );
  });

  it('a name not installed is KG153, and nothing is written', { timeout: TEST_TIMEOUT }, async () => {
    const kubeconfig = suite.cluster.kubeconfig;
    const r = await kopfgen(
      [
        'generate',
        'myresources.example.com',
        'gadgets.example.com',
        '--from-cluster',
        '--kubeconfig',
        kubeconfig,
        '--out',
        'missing',
        '--no-stubs',
      ],
      dir,
    );
    assert.equal(r.code, 1);
    assert.match(
      r.stderr + r.stdout,
      /^<cluster>\/crd\/gadgets\.example\.com:1:1 error KG153 no CustomResourceDefinition gadgets\.example\.com in the cluster$/m,
    );
    assert.equal(await fs.stat(join(dir, 'missing')).catch(() => undefined), undefined);
  });
});

describe(
  'CRD YAML read as kubectl reads it (YAML 1.1 keys)',
  { skip, timeout: START_TIMEOUT + 2 * TEST_TIMEOUT },
  () => {
    const suite = new E2eSuite({});
    suite.hooks();

    it('the properties n and yes: KG155 names the keys the API server stores', { timeout: TEST_TIMEOUT }, async () => {
      const file = 'test/fixtures/runtime/yaml11-keys.yaml';
      await applyCrd(suite.cluster, file, 'example.com', 'v1', 'toggles');
      const crd = await suite.cluster.client.request<{
        spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: object } } } } }[] };
      }>('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/toggles.example.com');
      const stored = Object.keys(crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties).sort();
      const { diagnostics } = parseSource({ file, text: await fs.readFile(file, 'utf8') });
      const renamed = new Map(
        diagnostics.flatMap((d) => {
          const m = /the key `([^`]+)` .* as "([^"]+)"/.exec(d.message);
          return d.code === 'KG155' && m ? [[m[1], m[2]] as const] : [];
        }),
      );
      assert.deepEqual(Object.fromEntries(renamed), { n: 'false', yes: 'true' });
      // What kopfgen reads, renamed as the diagnostics say, is what the API server stored.
      const read = ['n', 'yes', 'on', 'size'].map((key) => renamed.get(key) ?? key).sort();
      assert.deepEqual(stored, read);
      assert.deepEqual(stored, ['false', 'on', 'size', 'true']);
    });
  },
);
