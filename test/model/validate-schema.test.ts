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
  // The rows name properties `n` and `y`: load's YAML 1.1 key warning (KG155, test/load/yaml11-keys.test.ts)
  // is not what they test.
  return diagnostics
    .filter((d) => d.severity !== 'note' && d.code !== 'KG155')
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

/** `line:col` in the CRD of the first `marker` in a `given` schema (line 1 of it is line 14, indented by 10). */
function at(given: string, marker: string, nth = 0): string {
  let offset = -1;
  for (let i = 0; i <= nth; i++) offset = given.indexOf(marker, offset + 1);
  assert.ok(offset >= 0, `${marker} in ${given}`);
  const before = given.slice(0, offset).split('\n');
  return `${before.length + 13}:${before[before.length - 1].length + 11}`;
}

/**
 * Every keyword of a structural schema has the kind the API server decodes it as (JSONSchemaProps:
 * `properties` a map of schemas, `required` a list of strings, `description` a string, `nullable`
 * a boolean, `minimum` a number, `maxLength` an integer, …); the server refuses the CRD otherwise
 * (a v1.20 kube-apiserver refused each of these), so they are errors in v1 and v1beta1 alike. An
 * enum value of another type than the schema's is accepted by the server, but no object can use
 * it: a warning, and the type leaves the value out. `want`: severity, a marker in `given` where the
 * diagnostic points, and the pointer below the root.
 */
const kinds: { name: string; given: string; want: [string, string, string][] }[] = [
  {
    name: 'properties as a list',
    given: 'type: object\nproperties:\n  a: { type: object, properties: [x, y] }\n',
    want: [['error', '[x', '/properties/a/properties']],
  },
  {
    name: 'required as a string',
    given: 'type: object\nproperties:\n  a: { type: object, required: b, properties: { b: { type: string } } }\n',
    want: [['error', 'b, prop', '/properties/a/required']],
  },
  {
    name: 'required with a number',
    given: 'type: object\nproperties:\n  a: { type: object, required: [1], properties: { b: { type: string } } }\n',
    want: [['error', '1]', '/properties/a/required/0']],
  },
  {
    name: 'description as a number',
    given: 'type: object\nproperties:\n  a: { type: string, description: 123 }\n',
    want: [['error', '123', '/properties/a/description']],
  },
  {
    name: 'nullable as a string',
    given: 'type: object\nproperties:\n  a: { type: string, nullable: "yes" }\n',
    want: [['error', '"yes"', '/properties/a/nullable']],
  },
  {
    name: 'nullable as an unquoted yes (a boolean in YAML 1.1, a string in YAML 1.2)',
    given: 'type: object\nproperties:\n  a: { type: string, nullable: yes }\n',
    want: [['error', 'yes', '/properties/a/nullable']],
  },
  {
    name: 'minimum as a string',
    given: 'type: object\nproperties:\n  a: { type: integer, minimum: "5" }\n',
    want: [['error', '"5"', '/properties/a/minimum']],
  },
  {
    name: 'maxLength not an integer',
    given: 'type: object\nproperties:\n  a: { type: string, maxLength: 1.5 }\n',
    want: [['error', '1.5', '/properties/a/maxLength']],
  },
  {
    name: 'exclusiveMinimum as a number',
    given: 'type: object\nproperties:\n  a: { type: integer, minimum: 1, exclusiveMinimum: 5 }\n',
    want: [['error', '5 }', '/properties/a/exclusiveMinimum']],
  },
  {
    name: 'format and pattern as numbers',
    given: 'type: object\nproperties:\n  a: { type: string, format: 5, pattern: 6 }\n',
    want: [
      ['error', '5,', '/properties/a/format'],
      ['error', '6 }', '/properties/a/pattern'],
    ],
  },
  {
    name: 'additionalProperties as a string',
    given: 'type: object\nproperties:\n  a: { type: object, additionalProperties: x }\n',
    want: [['error', 'x }', '/properties/a/additionalProperties']],
  },
  {
    name: 'allOf as a map, not as a list',
    given: 'type: object\nproperties:\n  a: { type: string, allOf: { minLength: 1 }, not: [{ minLength: 2 }] }\n',
    want: [
      ['error', '{ minLength: 1', '/properties/a/allOf'],
      ['error', '[{ minLength: 2', '/properties/a/not'],
    ],
  },
  {
    name: 'an anyOf branch that is not a schema',
    given: 'type: object\nproperties:\n  a: { type: string, anyOf: [x] }\n',
    want: [['error', 'x]', '/properties/a/anyOf/0']],
  },
  {
    name: 'a keyword of the wrong kind inside allOf',
    given: 'type: object\nproperties:\n  a: { type: string, allOf: [{ minLength: "1" }] }\n',
    want: [['error', '"1"', '/properties/a/allOf/0/minLength']],
  },
  {
    name: 'x-kubernetes-preserve-unknown-fields as a string',
    given: 'type: object\nproperties:\n  a: { type: object, x-kubernetes-preserve-unknown-fields: "true" }\n',
    want: [['error', '"true"', '/properties/a/x-kubernetes-preserve-unknown-fields']],
  },
  {
    name: 'x-kubernetes-list-map-keys as a string',
    given:
      'type: object\nproperties:\n  a:\n    type: array\n    x-kubernetes-list-type: map\n    x-kubernetes-list-map-keys: n\n    items: { type: object, required: [n], properties: { n: { type: string } } }\n',
    want: [['error', 'n\n', '/properties/a/x-kubernetes-list-map-keys']],
  },
  {
    name: 'x-kubernetes-validations as a map, and a rule without `rule`',
    given:
      'type: object\nproperties:\n  a: { type: string, x-kubernetes-validations: { rule: "true" } }\n  b: { type: string, x-kubernetes-validations: [{ message: m }] }\n',
    want: [
      ['error', '{ rule', '/properties/a/x-kubernetes-validations'],
      ['error', '{ message', '/properties/b/x-kubernetes-validations/0'],
    ],
  },
  {
    name: 'externalDocs as a string',
    given: 'type: object\nproperties:\n  a: { type: string, externalDocs: x }\n',
    want: [['error', 'x }', '/properties/a/externalDocs']],
  },
  {
    name: 'enum as a string',
    given: 'type: object\nproperties:\n  a: { type: string, enum: x }\n',
    want: [['error', 'x }', '/properties/a/enum']],
  },
  {
    name: "enum values of another type than the schema's",
    given:
      'type: object\nproperties:\n  a: { type: integer, enum: [1, "x", 2.5] }\n  b: { type: string, enum: [s, 1, true] }\n  c: { type: number, enum: [1, 2.5, "3"] }\n',
    want: [
      ['warning', '"x"', '/properties/a/enum/1'],
      ['warning', '2.5', '/properties/a/enum/2'],
      ['warning', '1, true', '/properties/b/enum/1'],
      ['warning', 'true', '/properties/b/enum/2'],
      ['warning', '"3"', '/properties/c/enum/2'],
    ],
  },
  {
    name: 'every keyword of its kind: nothing to say',
    given:
      "type: object\ndescription: d\nproperties:\n  a: { type: integer, minimum: 1, maximum: 2.5, exclusiveMaximum: true, multipleOf: 1, enum: [1, 2], nullable: true, default: 1, example: any, title: t, format: int32 }\n  b: { type: array, items: { type: string, minLength: 1, maxLength: 2, pattern: '^a' }, minItems: 0, maxItems: 3, uniqueItems: false, x-kubernetes-list-type: set }\n  c: { type: object, required: [d], minProperties: 1, maxProperties: 2, properties: { d: { type: string, externalDocs: { url: 'https://x', description: y } } }, x-kubernetes-map-type: atomic }\n  e: { type: string, x-kubernetes-validations: [{ rule: \"self != ''\", message: m, reason: FieldValueInvalid, fieldPath: '.x', messageExpression: \"'m'\" }] }\n  f: { type: object, additionalProperties: true }\n",
    want: [],
  },
];

for (const c of kinds) {
  test(`schema keyword kinds: ${c.name}`, () => {
    const seen = new Map<string, number>();
    const want = c.want.map(([severity, marker, pointer]) => {
      const nth = seen.get(marker) ?? 0;
      seen.set(marker, nth + 1);
      return `KG114 ${severity} ${at(c.given, marker, nth)} ${R}${pointer}`;
    });
    assert.deepEqual(problems(crd(c.given)).sort(), [...want].sort());
    const v1beta1 = problems(crd(c.given, 'v1beta1')).sort();
    assert.deepEqual(v1beta1, [...want].sort(), 'v1beta1 alike: the server decodes both the same way');
  });
}
