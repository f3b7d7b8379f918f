/**
 * The model: IR built from CRD YAML (positions and pointers on nodes, v1beta1 normalised like
 * v1) and the naming pass (run-wide prefixes, module-unique names, reserved names avoided).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ObjectNode } from '../../src/model/ir.js';
import { withoutHandlers } from '../../src/model/handler-pass.js';
import { kindPrefixes, nameCrd } from '../../src/model/naming.js';
import { NameScope, pascal } from '../../src/model/reserved.js';
import { REPO } from '../helpers/golden-support.js';
import { loadModels } from '../helpers/load-models.js';

function load(file: string) {
  return loadModels([{ file, text: readFileSync(join(REPO, file), 'utf8') }]);
}

test('schema nodes carry file:line:col and the JSON pointer into the CRD', () => {
  const { crds, diagnostics } = load('test/fixtures/crds/required.yaml');
  assert.deepEqual(diagnostics, []);
  const spec = crds[0].versions[0].schema!.properties.find((p) => p.name === 'spec')!.schema as ObjectNode;
  assert.equal(spec.pointer, '/spec/versions/0/schema/openAPIV3Schema/properties/spec');
  assert.deepEqual(spec.pos, { file: 'test/fixtures/crds/required.yaml', line: 20, col: 15 });
  const size = spec.properties.find((p) => p.name === 'size')!;
  assert.equal(size.required, true);
  assert.equal(size.schema.pointer, '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/size');
});

test('pointers escape `/` in property names (RFC 6901)', () => {
  const { crds } = load('test/fixtures/crds/quoted-names.yaml');
  const spec = crds[0].versions[0].schema!.properties.find((p) => p.name === 'spec')!.schema as ObjectNode;
  const withSpace = spec.properties.find((p) => p.name === 'with space')!.schema as ObjectNode;
  assert.equal(
    withSpace.properties[0].schema.pointer,
    '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/with space/properties/a~1b',
  );
});

test('v1beta1: top-level validation, subresources and JSONPath columns apply to every version', () => {
  const { crds, diagnostics } = load('crds/crontabs-v1beta1.yaml');
  assert.deepEqual(diagnostics, []);
  const [crd] = crds;
  assert.deepEqual(
    crd.versions.map((v) => [v.name, v.storage, v.subresources.status]),
    [
      ['v1', true, true],
      ['v1beta1', false, true],
    ],
  );
  for (const v of crd.versions) {
    assert.equal(v.schema!.pointer, '/spec/validation/openAPIV3Schema');
    assert.deepEqual(
      v.printerColumns.map((c) => c.jsonPath),
      ['.spec.cronSpec', '.status.schedule.lastRun'],
    );
  }
});

test('List items keep their pointer prefix', () => {
  const { crds } = load('test/fixtures/crds/list.yaml');
  assert.deepEqual(
    crds.map((c) => [c.name, c.pointer]),
    [
      ['tasks.list.kopfgen.dev', '/items/0'],
      ['runs.list.kopfgen.dev', ''],
    ],
  );
  assert.equal(crds[0].versions[0].schema!.pointer, '/items/0/spec/versions/0/schema/openAPIV3Schema');
});

test('kind prefixes: kind alone when unique, group-qualified on collision or when reserved', () => {
  const prefixes = kindPrefixes([
    { name: 'certificates.cert-manager.io', kind: 'Certificate', group: 'cert-manager.io' },
    {
      name: 'certificates.networking.internal.knative.dev',
      kind: 'Certificate',
      group: 'networking.internal.knative.dev',
    },
    { name: 'maps.example.com', kind: 'Map', group: 'example.com' },
    { name: 'widgets.example.com', kind: 'Widget', group: 'example.com' },
    { name: 'models.example.com', kind: '3DModel', group: 'example.com' },
    { name: 'certificates.cert-manager.dev', kind: 'Certificate', group: 'cert-manager.dev' },
  ]);
  assert.deepEqual(Object.fromEntries(prefixes), {
    // Both qualify to `CertManager…`: the first by CRD name keeps it, the other takes its whole group.
    'certificates.cert-manager.dev': 'CertManagerCertificate',
    'certificates.cert-manager.io': 'CertManagerIoCertificate',
    'certificates.networking.internal.knative.dev': 'NetworkingCertificate',
    'maps.example.com': 'ExampleMap',
    'widgets.example.com': 'Widget',
    'models.example.com': 'Kind3DModel',
  });
});

test('names: PascalCase path segments, numbered on collision, never a TypeScript global', () => {
  assert.equal(pascal('tls.crt'), 'TlsCrt');
  assert.equal(pascal('x-api-key'), 'XApiKey');
  assert.equal(pascal('$ref'), 'Ref');
  assert.equal(pascal('***'), 'Field');
  const scope = new NameScope();
  assert.deepEqual(
    ['Foo', 'Foo', 'Record', 'Date', 'Foo'].map((n) => scope.claim(n)),
    ['Foo', 'Foo2', 'Record2', 'Date2', 'Foo3'],
  );
});

test('naming: non-storage versions get a version suffix; unserved versions get no module', () => {
  const { crds } = load('test/fixtures/crds/versions.yaml');
  const named = nameCrd(withoutHandlers(crds[0]), kindPrefixes(crds).get(crds[0].name) ?? '');
  const names = crds[0].versions.map((v) => named.versions.find((n) => n.version === v)?.names);
  assert.deepEqual(
    names.map((n) => n?.prefix),
    [undefined, 'DatabaseV1beta1', 'Database'],
  );
  assert.deepEqual(
    names.map((n) => n?.module),
    [undefined, 'fixtures.kopfgen.dev/v1beta1/databases', 'fixtures.kopfgen.dev/v1/databases'],
  );
});
