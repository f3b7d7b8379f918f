import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { loadFile } from '../../src/pipeline/file-stage.js';
import { crdDescriptors } from '../../src/manifests/crd-resources.js';

const crd = (versions: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.acme.io }
spec:
  group: acme.io
  scope: Cluster
  names: { kind: Widget, plural: widgets }
  versions:
${versions}`;
const version = (name: string, served: boolean, status: boolean) =>
  `    - name: ${name}\n      served: ${served}\n      storage: ${name === 'v1'}\n` +
  (status ? '      subresources: { status: {} }\n' : '') +
  '      schema: { openAPIV3Schema: { type: object } }\n';

it('the example CRD gives the descriptor its generated code registers', () => {
  const text = readFileSync('crds/myresource.yaml', 'utf8');
  const [d] = crdDescriptors(loadFile({ file: 'crds/myresource.yaml', text }).models.filter((m) => m !== undefined));
  assert.deepEqual(
    { ...d, printerColumns: d.printerColumns.map((c) => c.jsonPath) },
    {
      group: 'example.com',
      version: 'v1',
      plural: 'myresources',
      kind: 'MyResource',
      scope: 'Namespaced',
      statusSubresource: true,
      printerColumns: ['.status.myapp.phase', '.metadata.creationTimestamp'],
    },
  );
});

it('one descriptor per served version, each with its own status subresource; unserved versions none', () => {
  const text = crd(version('v1', true, true) + version('v1beta1', true, false) + version('v1alpha1', false, true));
  const got = crdDescriptors(loadFile({ file: 'w.yaml', text }).models.filter((m) => m !== undefined)).map((d) => [
    d.version,
    d.scope,
    d.statusSubresource,
  ]);
  assert.deepEqual(got, [
    ['v1', 'Cluster', true],
    ['v1beta1', 'Cluster', false],
  ]);
});
