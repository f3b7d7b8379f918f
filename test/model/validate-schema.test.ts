/**
 * Structural-schema rules of the API server beyond KG110/KG111/KG114: given the schema of a v1
 * CRD (as YAML under `openAPIV3Schema:`), want the diagnostics as `code line:col pointer`. Line 1
 * of `given` is line 14 of the CRD. v1beta1 reports the same as warnings.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadModels } from '../helpers/load-models.js';

function crd(schema: string, apiVersion = 'v1'): string {
  const indented = schema
    .split('\n')
    .map((l) => (l ? `          ${l}` : l))
    .join('\n');
  return `apiVersion: apiextensions.k8s.io/${apiVersion}
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
spec:
  group: example.com
  scope: Namespaced
  names: { kind: Widget, plural: widgets }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
${indented}`;
}

function problems(text: string): string[] {
  const { diagnostics } = loadModels([{ file: 'crd.yaml', text }]);
  return diagnostics
    .filter((d) => d.severity !== 'note')
    .map((d) => `${d.code} ${d.severity} ${d.line}:${d.col} ${d.pointer}`);
}

const R = '/spec/versions/0/schema/openAPIV3Schema';

const cases: { name: string; given: string; want: string[] }[] = [
  {
    name: 'a valid schema with the int-or-string idiom, a list map and a value validation in anyOf',
    given: `type: object
properties:
  port:
    x-kubernetes-int-or-string: true
    anyOf: [{ type: integer }, { type: string }]
  ports:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [name]
    items: { type: object, required: [name], properties: { name: { type: string } } }
  mode:
    type: object
    properties: { a: { type: string }, b: { type: string } }
    oneOf: [{ required: [a] }, { required: [b] }]
`,
    want: [],
  },
  { name: 'root not an object', given: 'type: string\n', want: [`KG135 error 14:17 ${R}/type`] },
  { name: 'nullable root', given: 'type: object\nnullable: true\n', want: [`KG135 error 15:21 ${R}/nullable`] },
  {
    name: 'metadata restricting more than name',
    given:
      'type: object\nproperties:\n  metadata:\n    type: object\n    properties:\n      labels: { type: object }\n',
    want: [`KG135 error 19:25 ${R}/properties/metadata/properties/labels`],
  },
  {
    name: '$ref',
    given: 'type: object\nproperties:\n  a: { type: object, $ref: "#/x" }\n',
    want: [`KG132 error 16:38 ${R}/properties/a/$ref`],
  },
  {
    name: 'uniqueItems: true',
    given: 'type: object\nproperties:\n  a: { type: array, uniqueItems: true, items: { type: string } }\n',
    want: [`KG132 error 16:44 ${R}/properties/a/uniqueItems`],
  },
  {
    name: 'properties beside additionalProperties',
    given:
      'type: object\nproperties:\n  a:\n    type: object\n    properties: { x: { type: string } }\n    additionalProperties: { type: string }\n',
    want: [`KG133 error 19:37 ${R}/properties/a/additionalProperties`],
  },
  {
    name: 'preserve-unknown-fields: false',
    given: 'type: object\nx-kubernetes-preserve-unknown-fields: false\n',
    want: [`KG134 error 15:49 ${R}/x-kubernetes-preserve-unknown-fields`],
  },
  {
    name: 'int-or-string with a type',
    given: 'type: object\nproperties:\n  a: { type: string, x-kubernetes-int-or-string: true }\n',
    want: [`KG134 error 16:24 ${R}/properties/a/type`],
  },
  {
    name: 'embedded resource that is not an object',
    given: 'type: object\nproperties:\n  a: { type: string, x-kubernetes-embedded-resource: true }\n',
    want: [
      `KG134 error 16:64 ${R}/properties/a/x-kubernetes-embedded-resource`,
      `KG134 error 16:64 ${R}/properties/a/x-kubernetes-embedded-resource`,
    ],
  },
  {
    name: 'list-type map without keys, and a key that is not a property',
    given:
      'type: object\nproperties:\n  a:\n    type: array\n    x-kubernetes-list-type: map\n    items: { type: object, properties: { n: { type: string } } }\n  b:\n    type: array\n    x-kubernetes-list-type: map\n    x-kubernetes-list-map-keys: [name]\n    items: { type: object, properties: { n: { type: string } } }\n',
    want: [
      `KG134 error 18:39 ${R}/properties/a/x-kubernetes-list-type`,
      `KG134 error 23:44 ${R}/properties/b/x-kubernetes-list-map-keys/0`,
    ],
  },
  {
    name: 'a type and a description inside anyOf',
    given: 'type: object\nproperties:\n  a:\n    type: string\n    anyOf: [{ type: string, description: d }]\n',
    want: [
      `KG136 error 18:52 ${R}/properties/a/anyOf/0/description`,
      `KG136 error 18:31 ${R}/properties/a/anyOf/0/type`,
    ],
  },
  {
    name: 'a property inside allOf that is not specified outside',
    given:
      'type: object\nproperties:\n  a:\n    type: object\n    properties: { x: { type: string } }\n    allOf: [{ properties: { y: { minLength: 1 } } }]\n',
    want: [`KG136 error 19:42 ${R}/properties/a/allOf/0/properties/y`],
  },
];

for (const c of cases) {
  test(`validate schema: ${c.name}`, () => {
    assert.deepEqual(problems(crd(c.given)).sort(), [...c.want].sort());
  });
}

test('v1beta1: structural rules are warnings (the server accepts a non-structural v1beta1 schema), OpenAPI rules errors', () => {
  const text = crd(
    'type: object\nproperties:\n  a: { type: object, $ref: "#/x" }\n  b: { type: string, x-kubernetes-int-or-string: true }\n',
    'v1beta1',
  );
  assert.deepEqual(problems(text), [
    `KG132 error 16:38 ${R}/properties/a/$ref`,
    `KG134 warning 17:24 ${R}/properties/b/type`,
  ]);
});
