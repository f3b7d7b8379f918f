/**
 * Bad input: every problem gets its own diagnostic with code, position and JSON pointer, and
 * `generate` returns errors and no files. Also: reading inputs (files, directories, globs).
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Diagnostic } from '../../src/diagnostics.js';
import { generate } from '../../src/generate.js';
import { globToRegExp, readInputs } from '../../src/io/read.js';
import type { CrdDocument } from '../../src/load/doc-tree.js';
import { parseFull, parseSource, parseSourceEach } from '../../src/load/parse-yaml.js';
import { REPO, tempDir } from '../helpers/golden-support.js';

const BAD = 'test/fixtures/crds/bad';

function run(...files: string[]) {
  return generate(
    files.map((f) => ({ file: `${BAD}/${f}`, text: readFileSync(join(REPO, BAD, f), 'utf8') })),
    { stubs: false },
  );
}

/** `code file:line:col pointer` of each diagnostic of at least `severity`. */
function brief(diagnostics: Diagnostic[], severities = ['error']): string[] {
  return diagnostics
    .filter((d) => severities.includes(d.severity))
    .map((d) => `${d.code} ${d.file}:${d.line}:${d.col} ${d.pointer}`);
}

test('malformed YAML: KG104 at the position the parser stopped', () => {
  const r = run('malformed.yaml');
  assert.deepEqual(brief(r.diagnostics), [`KG104 ${BAD}/malformed.yaml:8:3 `]);
  assert.match(r.diagnostics[0].message, /malformed YAML: .*BAD_INDENT/);
  assert.deepEqual(r.files, []);
});

test('a CRD version without a schema: KG109 at the version', () => {
  const r = run('no-schema.yaml');
  assert.deepEqual(brief(r.diagnostics), [`KG109 ${BAD}/no-schema.yaml:10:7 /spec/versions/0`]);
  assert.deepEqual(r.files, []);
});

test('non-structural schema: array without items (KG110) and a property without type (KG111)', () => {
  const r = run('non-structural.yaml');
  const base = '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties';
  assert.deepEqual(brief(r.diagnostics), [
    `KG110 ${BAD}/non-structural.yaml:21:19 ${base}/hosts`,
    `KG111 ${BAD}/non-structural.yaml:23:19 ${base}/owner`,
  ]);
  assert.deepEqual(r.files, []);
});

test('two different CRDs with the same name: KG113 at the second, naming the first', () => {
  const r = run('duplicate-a.yaml', 'duplicate-b.yaml');
  assert.deepEqual(brief(r.diagnostics), [`KG113 ${BAD}/duplicate-b.yaml:1:1 `]);
  assert.match(r.diagnostics[0].message, /twins\.bad\.kopfgen\.dev .*duplicate-a\.yaml:1:1/);
  assert.deepEqual(r.files, []);
});

test('byte-identical duplicates are merged with a KG112 note', () => {
  const r = run('duplicate-a.yaml', 'duplicate-a-copy.yaml');
  assert.deepEqual(brief(r.diagnostics, ['error', 'warning', 'note']), [`KG112 ${BAD}/duplicate-a.yaml:1:1 `]);
  assert.equal(r.stats.crds, 1);
  assert.deepEqual(
    r.files.map((f) => f.path),
    ['bad.kopfgen.dev/v1/twins.ts', 'index.ts'],
  );
});

test('a Helm template: KG105 at the first directive, nothing else reported for the file', () => {
  const r = run('helm.yaml');
  assert.deepEqual(brief(r.diagnostics, ['error', 'warning', 'note']), [`KG105 ${BAD}/helm.yaml:6:1 `]);
  assert.match(r.diagnostics[0].message, /Helm template/);
  assert.deepEqual(r.files, []);
});

test('a Helm directive in a quoted value is still Helm (KG105)', () => {
  const r = run('helm-quoted.yaml');
  assert.deepEqual(brief(r.diagnostics, ['error', 'warning', 'note']), [`KG105 ${BAD}/helm-quoted.yaml:4:10 `]);
});

test('`{{ ... }}` inside descriptions and comments is text, not Helm', () => {
  const r = run('description-braces.yaml');
  assert.deepEqual(r.diagnostics, []);
  assert.equal(r.stats.crds, 1);
});

test('inputs without any CRD: KG103, and the skipped document gets a KG106 note', () => {
  const r = run('not-a-crd.yaml');
  assert.deepEqual(brief(r.diagnostics, ['error', 'note']), [
    `KG103 ${BAD}/not-a-crd.yaml:1:1 `,
    `KG106 ${BAD}/not-a-crd.yaml:1:1 `,
  ]);
  assert.deepEqual(r.files, []);
});

test('an apiextensions apiVersion other than v1 and v1beta1: KG107 at the apiVersion', () => {
  const text =
    'apiVersion: apiextensions.k8s.io/v2\nkind: CustomResourceDefinition\nmetadata: { name: a.b.c }\nspec: {}\n';
  const r = generate([{ file: 'v2.yaml', text }], { stubs: false });
  assert.deepEqual(brief(r.diagnostics), ['KG107 v2.yaml:1:13 /apiVersion']);
  assert.deepEqual(r.files, []);
});

test('KG103 stands at the first input by name, whatever order the inputs come in', () => {
  const text = readFileSync(join(REPO, BAD, 'not-a-crd.yaml'), 'utf8');
  const r = generate(
    [
      { file: 'b.yaml', text },
      { file: 'a.yaml', text },
    ],
    { stubs: false },
  );
  assert.deepEqual(brief(r.diagnostics), ['KG103 a.yaml:1:1 ']);
});

test('one run reports every problem of every file', () => {
  const r = run('malformed.yaml', 'no-schema.yaml', 'non-structural.yaml', 'helm.yaml');
  assert.deepEqual(
    brief(r.diagnostics).map((d) => d.split(' ')[0]),
    ['KG105', 'KG104', 'KG109', 'KG110', 'KG111'],
  );
});

test('readInputs: a missing file is KG101, an empty directory KG102, a glob matching nothing KG116', async () => {
  const dir = tempDir('read');
  mkdirSync(join(dir, 'empty'));
  const r = await readInputs(['missing.yaml', 'empty', 'nothing/**/*.yaml'], { cwd: dir });
  assert.deepEqual(
    r.diagnostics.map((d) => `${d.code} ${d.file}:${d.line}:${d.col}`),
    ['KG101 missing.yaml:1:1', 'KG102 empty:1:1', 'KG116 nothing/**/*.yaml:1:1'],
  );
  assert.deepEqual(r.sources, []);
});

test('readInputs: directories recursively (yaml, yml and json), files as named, globs, no duplicates', async () => {
  const dir = tempDir('read');
  mkdirSync(join(dir, 'crds/nested/deeper'), { recursive: true });
  mkdirSync(join(dir, 'crds/.hidden'), { recursive: true });
  for (const f of [
    'crds/a.yaml',
    'crds/nested/b.yml',
    'crds/nested/deeper/c.yaml',
    'crds/notes.txt',
    'crds/.hidden/d.yaml',
    'single.json',
  ]) {
    writeFileSync(join(dir, f), `# ${f}\n`);
  }
  const r = await readInputs(['crds', 'crds/a.yaml', 'single.json'], { cwd: dir });
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(
    r.sources.map((s) => s.file),
    ['crds/a.yaml', 'crds/nested/b.yml', 'crds/nested/deeper/c.yaml', 'single.json'],
  );
  assert.equal(r.sources[0].text, '# crds/a.yaml\n');
  const g = await readInputs(['crds/**/*.yaml', 'crds/nested/?.yml'], { cwd: dir });
  assert.deepEqual(
    g.sources.map((s) => s.file),
    ['crds/a.yaml', 'crds/nested/b.yml', 'crds/nested/deeper/c.yaml'],
  );
});

test('globToRegExp: `*` and `?` stay within a segment, `**/` spans any depth', () => {
  assert.ok(globToRegExp('*.yaml').test('a.yaml'));
  assert.ok(!globToRegExp('*.yaml').test('x/a.yaml'));
  assert.ok(globToRegExp('**/*.yaml').test('a.yaml'));
  assert.ok(globToRegExp('**/*.yaml').test('x/y/a.yaml'));
  assert.ok(globToRegExp('a?.yml').test('ab.yml'));
  assert.ok(!globToRegExp('a?.yml').test('a/.yml'));
  assert.ok(!globToRegExp('a.yaml').test('aXyaml'));
});

/** `line:col` of an offset, counted independently of the parser. */
function at(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `${before.length}:${before[before.length - 1].length + 1}`;
}

test('JSON: a CRD, a List and an array of CRDs are read, with positions into the JSON text', () => {
  const crd = (plural: string) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { kind: plural[0].toUpperCase() + plural.slice(1, -1), plural },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } },
        },
      ],
    },
  });
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } };
  const inputs = [
    { file: 'one.json', text: JSON.stringify(crd('ones'), null, 2) },
    { file: 'list.json', text: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [crd('twos'), cm] }) },
    { file: 'array.json', text: JSON.stringify([cm, crd('threes')], null, '\t') },
  ];
  const parsed = inputs.map((s) => parseSource(s));
  assert.deepEqual(
    parsed.map((p) => p.crds.map((c) => `${c.name} ${c.pointer} ${c.pos.file}:${c.pos.line}:${c.pos.col}`)),
    [
      ['ones.example.com  one.json:1:1'],
      [
        `twos.example.com /items/0 list.json:${at(inputs[1].text, inputs[1].text.indexOf('{"apiVersion":"apiextensions'))}`,
      ],
      [`threes.example.com /1 array.json:${at(inputs[2].text, inputs[2].text.lastIndexOf('\n\t{') + 2)}`],
    ],
  );
  assert.deepEqual(
    parsed.map((p) => p.diagnostics.map((d) => `${d.code} ${d.pointer} ${d.file}:${d.line}:${d.col}`)),
    [
      [],
      [
        `KG106 /items/1 list.json:${at(inputs[1].text, inputs[1].text.indexOf('{"apiVersion":"v1","kind":"ConfigMap"'))}`,
      ],
      ['KG106 /0 array.json:2:2'],
    ],
  );
  // A node's position is where JSON.stringify put it.
  const group = parsed[0].crds[0].node.get('spec');
  const value = group?.kind === 'map' ? group.get('group') : undefined;
  const lines = inputs[0].text.split('\n');
  assert.ok(value);
  assert.equal(lines[value.pos.line - 1].slice(value.pos.col - 1), '"example.com",');
});

test('a .json input that is not JSON: KG104 "malformed JSON" with JSON.parse\'s reason, where the JSON stops', () => {
  const cases: { file: string; text: string; want: string; message: RegExp }[] = [
    {
      file: 'a.json',
      text: '{\n  "kind": "CustomResourceDefinition",\n  "spec": {\n}',
      want: 'KG104 a.json:4:2 ',
      message: /^malformed JSON: /,
    },
    { file: 'b.json', text: '{"a": 1,}', want: 'KG104 b.json:1:9 ', message: /^malformed JSON: / },
    { file: 'c.json', text: '{"a": 1} x', want: 'KG104 c.json:1:10 ', message: /^malformed JSON: / },
    { file: '<stdin>', text: '\n[{"a": 1]', want: 'KG104 <stdin>:2:9 ', message: /^malformed JSON: / },
    { file: 'd.yaml', text: 'a: [1\n', want: 'KG104 d.yaml:2:1 ', message: /^malformed YAML: / },
  ];
  for (const c of cases) {
    const { diagnostics } = parseSource({ file: c.file, text: c.text });
    assert.deepEqual(brief(diagnostics), [c.want], c.file);
    assert.match(diagnostics[0].message, c.message, c.file);
    assert.doesNotMatch(diagnostics[0].message, c.file.endsWith('.yaml') ? /JSON/ : /YAML/, c.file);
  }
});

/**
 * Where the fast reader stops, the `yaml` package reads only a skeleton of the collections open
 * there and the text from the stop on (a malformed 50 MB file costs no more than a valid one):
 * given malformed YAML, the diagnostics are exactly the full parser's.
 */
const MALFORMED: [string, string][] = [
  ['a stray `]` after the document', 'a: 1\nb:\n  c: 2\n]\n'],
  ['a stray `]` inside a map', 'a:\n  x: 1\n  ]\n  y: 2\n'],
  ['a line of words where a key goes', 'a:\n  x: 1\n  just words\n  y: 2\n'],
  [
    'an over-indented key after a plain value',
    'a:\n  n:\n    type: string\n    description: A name.\n     stray: 1\n    count: 2\n',
  ],
  ['an item at a map’s column', 'a:\n  b:\n    c: 1\n- item\n'],
  ['an over-indented line after an item', 'a:\n  - x\n  - y\n   z: 1\n'],
  ['an unterminated quote', 'a:\n  b: "unterminated\n  c: 1\n'],
  ['an unclosed flow sequence', 'a:\n  b: [1, 2\n  c: 1\n'],
  [
    'a second document with an error, the first a CRD',
    `${'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: { name: xs.example.com }\n'}---\na:\n  b: 1\n  ]\n`,
  ],
];

for (const [name, text] of MALFORMED) {
  test(`malformed YAML read from the stop on: ${name}, as the full parser reports it`, () => {
    const fast = parseSource({ file: 'm.yaml', text });
    const full = parseFull({ file: 'm.yaml', text });
    assert.ok(
      fast.diagnostics.some((d) => d.code === 'KG104'),
      name,
    );
    assert.deepEqual(fast.diagnostics, full.diagnostics);
    assert.deepEqual(
      fast.crds.map((c) => c.text),
      full.crds.map((c) => c.text),
    );
  });
}

test('a stop at a construct beyond the fast reader is no error: the full parser reads the file', () => {
  const text = 'a:\n  x: 1\n  ? complex\n  : key\n  y: 2\n';
  assert.deepEqual(parseSource({ file: 'v.yaml', text }), parseFull({ file: 'v.yaml', text }));
  assert.deepEqual(
    parseSource({ file: 'v.yaml', text }).diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
});

test("a malformed file lists the errors where it stops being YAML, and says the parser's recovery after it is not listed", () => {
  const body = Array.from({ length: 50 }, (_, i) => (i % 2 ? `  ]${i}` : `  k${i}: ${i}`)).join('\n');
  const text = `a:\n  x: 1\n  ]\n${body}\n`;
  for (const r of [parseSource({ file: 'e.yaml', text }), parseFull({ file: 'e.yaml', text })]) {
    assert.deepEqual(
      r.diagnostics.map((d) => [d.severity, d.code, d.line, d.col]),
      [
        ['error', 'KG104', 3, 3],
        ['note', 'KG104', 3, 3],
      ],
    );
  }
});

/** What `parseSourceEach` hands over, as seen after its last reset, and how often it reset. */
function each(file: string, text: string): { crds: CrdDocument[]; resets: number; diagnostics: Diagnostic[] } {
  let crds: CrdDocument[] = [];
  let resets = 0;
  const diagnostics = parseSourceEach(
    { file, text },
    (crd) => crds.push(crd),
    () => {
      crds = [];
      resets++;
    },
  );
  return { crds, resets, diagnostics };
}

const brieflyCrds = (crds: CrdDocument[]) => crds.map((c) => `${c.name} ${c.pos.line}:${c.pos.col} ${c.pointer}`);

test('parseSourceEach: a document at a time, the same documents and diagnostics as parseSource', () => {
  const crd = readFileSync(join(REPO, 'crds/myresource.yaml'), 'utf8');
  const second = crd.replaceAll('myresource', 'otherresource').replaceAll('MyResource', 'OtherResource');
  // A bundle (a description showing `{{ }}` is text), a second document the fast reader gives up on
  // (an anchor), a Helm template, and a List: every reader path, each compared with the whole-file parse.
  const cases: [string, string, number][] = [
    ['bundle.yaml', `${crd}---\n${second.replace('The container image', 'Image, e.g. {{ .Values.image }}')}`, 0],
    ['anchor.yaml', `${crd}---\n${second.replace('type: string\n', 'type: &t string\n')}`, 1],
    ['helm.yaml', `${crd}---\n${second.replace('group: example.com', 'group: {{ .Values.group }}')}`, 1],
    ['list.yaml', readFileSync(join(REPO, 'test/fixtures/crds/list.yaml'), 'utf8'), 0],
  ];
  for (const [file, text, resets] of cases) {
    const whole = parseSource({ file, text });
    const streamed = each(file, text);
    assert.equal(streamed.resets, resets, file);
    assert.deepEqual(brieflyCrds(streamed.crds), brieflyCrds(whole.crds), file);
    assert.deepEqual(streamed.diagnostics, whole.diagnostics, file);
  }
  assert.deepEqual(brief(each('helm.yaml', cases[2][1]).diagnostics), ['KG105 helm.yaml:56:10 ']);
  assert.equal(each('bundle.yaml', cases[0][1]).crds.length, 2);
  assert.equal(each('anchor.yaml', cases[1][1]).crds.length, 2);
});
