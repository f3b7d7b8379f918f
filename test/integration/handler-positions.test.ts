// Handler diagnostics through the real loader: each points inside the annotation's value or at
// the column's jsonPath, not at the start of the CRD or of the column.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generate } from '../../src/generate.js';

const crd = (annotation: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
  annotations:
    kopfgen.dev/handlers: ${annotation}
spec:
  group: example.com
  scope: Namespaced
  names: { kind: Widget, plural: widgets }
  versions:
    - name: v1
      served: true
      storage: true
      additionalPrinterColumns:
        - name: Ready
          type: string
          jsonPath: .status.conditions[0].status
      schema:
        openAPIV3Schema:
          type: object
          properties:
            status: { type: object, x-kubernetes-preserve-unknown-fields: true }
`;

function find(annotation: string, code: string) {
  const result = generate([{ file: 'widgets.yaml', text: crd(annotation) }], { stubs: false });
  const d = result.diagnostics.find((x) => x.code === code);
  assert.ok(d, `expected ${code} in ${JSON.stringify(result.diagnostics)}`);
  return d;
}

test('an id rejected in the kopfgen.dev/handlers annotation is located inside the value, quoted or plain', () => {
  // line 6 is `    kopfgen.dev/handlers: <value>`; the value starts at column 27.
  const plain = find('myapp, kopf', 'KG201');
  assert.deepEqual([plain.line, plain.col, plain.pointer], [6, 27 + 7, '/metadata/annotations/kopfgen.dev~1handlers']);
  const quoted = find('"myapp, kopf"', 'KG201');
  assert.deepEqual([quoted.line, quoted.col], [6, 28 + 7]);
});

test('a column path the generator cannot follow is explained at its jsonPath line', () => {
  const note = find('myapp', 'KG205');
  assert.deepEqual([note.severity, note.line, note.col], ['note', 18, 21]);
});
