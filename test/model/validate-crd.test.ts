/**
 * CRD validation as the API server does it: each invalid CRD the server would refuse gets its
 * own code, at the offending value (line:col and JSON pointer). Given a CRD text, want the
 * non-note diagnostics as `code line:col pointer`; the valid base CRD gives none.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generate } from '../../src/generate.js';
import { asciiSpelling } from '../../src/model/validate-crd.js';
import { loadModels } from '../helpers/load-models.js';

/** A valid CRD; cases replace single lines of it (line numbers below refer to this text). */
const BASE = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    kind: Widget
    listKind: WidgetList
    plural: widgets
    singular: widget
    shortNames: [wd]
  versions:
    - name: v1
      served: true
      storage: true
      additionalPrinterColumns:
        - name: Size
          type: integer
          jsonPath: .spec.size
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: { type: integer }
`;

function edit(replacements: [string, string][]): string {
  let text = BASE;
  for (const [from, to] of replacements) {
    assert.ok(text.includes(from), `base text holds ${JSON.stringify(from)}`);
    text = text.replace(from, to);
  }
  return text;
}

const V2 = `    - name: v2
      served: true
      storage: false
      schema:
        openAPIV3Schema:
          type: object
`;

function problems(text: string): string[] {
  const { diagnostics } = loadModels([{ file: 'crd.yaml', text }]);
  return diagnostics.filter((d) => d.severity !== 'note').map((d) => `${d.code} ${d.line}:${d.col} ${d.pointer}`);
}

const cases: { name: string; given: string; want: string[] }[] = [
  { name: 'the valid base CRD', given: BASE, want: [] },
  {
    name: 'two versions both named v1',
    given: edit([['    - name: v1\n', V2.replace('v2', 'v1') + '    - name: v1\n']]),
    want: ['KG125 21:13 /spec/versions/1/name'],
  },
  { name: '`kind: 123`', given: edit([['kind: Widget', 'kind: 123']]), want: ['KG124 9:11 /spec/names/kind'] },
  {
    name: 'two storage versions',
    given: edit([['    - name: v1\n', V2.replace('storage: false', 'storage: true') + '    - name: v1\n']]),
    want: ['KG127 23:16 /spec/versions/1/storage'],
  },
  {
    name: 'no storage version',
    given: edit([['storage: true', 'storage: false']]),
    want: ['KG127 15:5 /spec/versions'],
  },
  { name: 'no served version', given: edit([['served: true', 'served: false']]), want: ['KG128 15:5 /spec/versions'] },
  {
    name: 'plural `Widgets_X`',
    given: edit([
      ['plural: widgets', 'plural: Widgets_X'],
      ['name: widgets.example.com', 'name: Widgets_X.example.com'],
    ]),
    want: ['KG122 11:13 /spec/names/plural'],
  },
  {
    name: 'group `Ex_Com`',
    given: edit([
      ['group: example.com', 'group: Ex_Com'],
      ['name: widgets.example.com', 'name: widgets.Ex_Com'],
    ]),
    want: ['KG121 6:10 /spec/group'],
  },
  {
    name: 'group without a dot',
    given: edit([
      ['group: example.com', 'group: example'],
      ['name: widgets.example.com', 'name: widgets.example'],
    ]),
    want: ['KG121 6:10 /spec/group'],
  },
  { name: 'kind `Größe`', given: edit([['kind: Widget', 'kind: Größe']]), want: ['KG123 9:11 /spec/names/kind'] },
  {
    name: 'kind starting with a digit',
    given: edit([['kind: Widget', 'kind: "3D"']]),
    want: ['KG123 9:11 /spec/names/kind'],
  },
  {
    name: 'kind equal to listKind',
    given: edit([['listKind: WidgetList', 'listKind: Widget']]),
    want: ['KG123 10:15 /spec/names/listKind'],
  },
  {
    name: 'singular with upper case',
    given: edit([['singular: widget', 'singular: Widget']]),
    want: ['KG122 12:15 /spec/names/singular'],
  },
  {
    name: 'short name with `_`',
    given: edit([['shortNames: [wd]', 'shortNames: [w_d]']]),
    want: ['KG122 13:18 /spec/names/shortNames/0'],
  },
  {
    name: 'metadata.name not <plural>.<group>',
    given: edit([['name: widgets.example.com', 'name: gadgets.example.com']]),
    want: ['KG120 4:9 /metadata/name'],
  },
  {
    name: 'metadata.name missing',
    given: edit([['metadata:\n  name: widgets.example.com\n', 'metadata: {}\n']]),
    want: ['KG120 3:11 /metadata/name'],
  },
  {
    name: 'version name not a DNS-1035 label',
    given: edit([['- name: v1', '- name: V1.0']]),
    want: ['KG126 15:13 /spec/versions/0/name'],
  },
  {
    name: 'scope neither Namespaced nor Cluster',
    given: edit([['scope: Namespaced', 'scope: Global']]),
    want: ['KG131 7:10 /spec/scope'],
  },
  {
    name: 'printer column path in kubectl template form',
    given: edit([['jsonPath: .spec.size', 'jsonPath: "{.spec.size}"']]),
    want: ['KG129 21:22 /spec/versions/0/additionalPrinterColumns/0/jsonPath'],
  },
  {
    name: 'printer column path without the leading dot',
    given: edit([['jsonPath: .spec.size', 'jsonPath: spec.size']]),
    want: ['KG129 21:21 /spec/versions/0/additionalPrinterColumns/0/jsonPath'],
  },
  {
    name: 'printer column path with an unclosed bracket: at the bracket',
    given: edit([['jsonPath: .spec.size', 'jsonPath: .spec.items[0']]),
    want: ['KG129 21:32 /spec/versions/0/additionalPrinterColumns/0/jsonPath'],
  },
  {
    name: 'printer column path with a space',
    given: edit([['jsonPath: .spec.size', 'jsonPath: .spec. size']]),
    want: ['KG129 21:27 /spec/versions/0/additionalPrinterColumns/0/jsonPath'],
  },
  {
    name: 'printer column type not allowed',
    given: edit([['type: integer\n          jsonPath', 'type: int\n          jsonPath']]),
    want: ['KG130 20:17 /spec/versions/0/additionalPrinterColumns/0/type'],
  },
  {
    name: 'printer column format not allowed',
    given: edit([['type: integer\n          jsonPath', 'type: integer\n          format: uuid\n          jsonPath']]),
    want: ['KG130 21:19 /spec/versions/0/additionalPrinterColumns/0/format'],
  },
  {
    name: 'printer column without type',
    given: edit([['          type: integer\n          jsonPath', '          jsonPath']]),
    want: ['KG130 19:11 /spec/versions/0/additionalPrinterColumns/0/type'],
  },
];

for (const c of cases) {
  test(`validate CRD: ${c.name}`, () => {
    assert.deepEqual(problems(c.given), c.want);
  });
}

test('valid printer column paths the API server accepts (filters, escapes, unions, slices, wildcards)', () => {
  for (const path of [
    '.',
    '.status.conditions[?(@.type=="Ready")].status',
    ".status.conditions[?(@.type=='Ready')].reason",
    ".metadata.labels['cluster\\.x-k8s\\.io/cluster-name']",
    '.metadata.annotations.crossplane\\.io/usage-details',
    '.status.addresses[*].value',
    '.spec.items[0:2]',
    '.spec.items[-1]',
    '..name',
    '.spec.*',
  ]) {
    const given = edit([['jsonPath: .spec.size', `jsonPath: ${JSON.stringify(path)}`]]);
    assert.deepEqual(problems(given), [], path);
  }
});

test('kind `Größe`: the message says what to do (an ASCII name), nothing is generated', () => {
  const { diagnostics, files } = generate([{ file: 'crd.yaml', text: edit([['kind: Widget', 'kind: Größe']]) }], {
    stubs: false,
  });
  const error = diagnostics.find((d) => d.code === 'KG123');
  assert.match(error?.message ?? '', /ASCII.*rename it, e\.g\. `Grosse`/);
  assert.deepEqual(files, []);
  assert.equal(asciiSpelling('Größe'), 'Grosse');
  assert.equal(asciiSpelling('Café'), 'Cafe');
});

test('two CRDs sharing group and plural under other names: both refused, the later does not win', () => {
  const a = edit([['name: widgets.example.com', 'name: first.example.com']]);
  const b = edit([
    ['name: widgets.example.com', 'name: second.example.com'],
    ['size: { type: integer }', 'size: { type: string }'],
  ]);
  const result = generate(
    [
      { file: 'a.yaml', text: a },
      { file: 'b.yaml', text: b },
    ],
    { stubs: false },
  );
  assert.deepEqual(
    result.diagnostics
      .filter((d) => d.severity === 'error')
      .map((d) => `${d.file} ${d.code} ${d.line}:${d.col} ${d.pointer}`),
    ['a.yaml KG120 4:9 /metadata/name', 'b.yaml KG120 4:9 /metadata/name'],
  );
  assert.deepEqual(result.files, []);
});

test('v1beta1: the single `version` is served and storage; no KG127/KG128', () => {
  const given = `apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
spec:
  group: example.com
  scope: Namespaced
  version: v1
  names: { kind: Widget, plural: widgets }
  validation:
    openAPIV3Schema: { type: object }
`;
  assert.deepEqual(problems(given), []);
});
