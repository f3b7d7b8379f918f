/**
 * The fast reader against the full parser: wherever the fast reader takes a text, its CRD
 * documents, trees (kinds, values, offsets, map ends, key offsets, pointers) and diagnostics are
 * those of the `yaml` package's parser; where it does not, `parseSource` falls back. Given/want
 * snippets, every YAML fixture of the repository, and every file of ../shared/crds (which must
 * all take the fast path), skipping with a message where ../shared is absent.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import type { DocNode } from '../../src/load/doc-tree.js';
import { readBlockYaml } from '../../src/load/block-reader.js';
import { parseFast, parseFull, parseSource, type ParseResult } from '../../src/load/parse-yaml.js';
import { ParsedSource } from '../../src/load/yaml-source.js';

/** A node as plain data: everything a later stage can read of it. */
function shape(node: DocNode | undefined): unknown {
  if (!node) return undefined;
  const base = { kind: node.kind, offset: node.offset, pointer: node.pointer, pos: node.pos };
  if (node.kind === 'scalar') return { ...base, value: node.value, quoted: node.quoted };
  if (node.kind === 'seq') return { ...base, items: node.items.map(shape) };
  return {
    ...base,
    end: node.end,
    entries: [...node.entries].map(([key, e]) => ({ key, keyPos: e.keyPos, value: shape(e.value) })),
  };
}

function plainResult(r: ParseResult): unknown {
  return {
    diagnostics: r.diagnostics,
    crds: r.crds.map((c) => ({ pointer: c.pointer, text: c.text, name: c.name, pos: c.pos, node: shape(c.node) })),
  };
}

/** The fast reader's result when it takes the text (it must then equal the full parser's), else undefined. */
function same(file: string, text: string): ParseResult | undefined {
  const fast = parseFast({ file, text });
  if (fast) assert.deepEqual(plainResult(fast), plainResult(parseFull({ file, text })), file);
  return fast;
}

const CRD_HEAD = [
  'apiVersion: apiextensions.k8s.io/v1',
  'kind: CustomResourceDefinition',
  'metadata:',
  '  name: widgets.example.com',
  'spec:',
  '  group: example.com',
  '  names: {}',
].join('\n');

/** [what, text, whether the fast reader takes it] */
const CASES: [string, string, boolean][] = [
  ['a plain CRD head', `${CRD_HEAD}\n`, true],
  ['no final newline', CRD_HEAD, true],
  [
    'typed plain scalars',
    `${CRD_HEAD}\n  x:\n    a: 1\n    b: -2.5\n    c: 0x1F\n    d: 0o17\n    e: .inf\n    f: ~\n    g: True\n    h: 1e3\n    i: 12345678901234567890\n    j: .NaN\n    k: null\n    l: 007\n`,
    true,
  ],
  ['typed keys', `${CRD_HEAD}\n  x:\n    1: a\n    true: b\n    ~: c\n    "1": d\n`, true],
  ['empty values, with trailing spaces', `${CRD_HEAD}\n  x:\n  y:   \n  z: 1\n`, true],
  ['empty value last', `${CRD_HEAD}\n  x:\n`, true],
  ['empty value with a comment', `${CRD_HEAD}\n  x: # why\n  y: 1\n`, false],
  [
    'comments everywhere',
    `# head\n${CRD_HEAD}\n  # between\n  x: 1 # after\n\n  y:\n    # first\n    - a # c\n    # mid\n    - b\n`,
    true,
  ],
  ['compact sequence in a map', `${CRD_HEAD}\n  x:\n  - a\n  - b\n  y: 2\n`, true],
  ['sequence of maps', `${CRD_HEAD}\n  x:\n    - name: a\n      v: 1\n    - name: b\n      w:\n        - 1\n`, true],
  ['item on the next line', `${CRD_HEAD}\n  x:\n    -\n      a: 1\n`, true],
  ['nested sequence on one line', `${CRD_HEAD}\n  x:\n    - - a\n`, false],
  ['empty item', `${CRD_HEAD}\n  x:\n    -\n    - b\n`, false],
  [
    'block scalars',
    `${CRD_HEAD}\n  description: |-\n    line one\n\n      indented\n    two\n  b: >\n    folded\n    text\n\n    para\n  c: |\n    keep one newline\n\n\n  d: 1\n`,
    true,
  ],
  ['block scalar with a header comment', `${CRD_HEAD}\n  d: |- # c\n    x\n`, true],
  ['block scalar last in the file, no newline', `${CRD_HEAD}\n  d: |-\n    x\n    y`, true],
  ['keep chomping', `${CRD_HEAD}\n  d: |+\n    x\n\n  e: 1\n`, false],
  ['indentation indicator', `${CRD_HEAD}\n  d: |2\n     x\n`, false],
  ['leading empty line in a block scalar', `${CRD_HEAD}\n  d: |\n\n    x\n`, false],
  ['empty block scalar', `${CRD_HEAD}\n  d: |\n  e: 1\n`, false],
  [
    'quoted scalars',
    `${CRD_HEAD}\n  a: "x \\" \\u00e9 \\n y"\n  b: 'it''s'\n  c: "multi\n    line\n\n    text"\n  d: 'rule ==\n    ''x'''\n  "q k": 1\n  'r k': 2\n`,
    true,
  ],
  ['quoted then a comment', `${CRD_HEAD}\n  a: "x" # c\n`, true],
  ['quoted then text', `${CRD_HEAD}\n  a: "x" y\n`, false],
  ['quoted continuation not indented', `${CRD_HEAD}\n  a: "x\n  y"\n`, false],
  [
    'multi-line plain scalars',
    `${CRD_HEAD}\n  a: one\n    two\n\n    three\n  b:\n    four\n    five\n  c: six  \n     seven  \n`,
    true,
  ],
  ['plain with a colon inside', `${CRD_HEAD}\n  a: http://x:80/y\n  b: a:b\n  c: x#y\n`, true],
  ['nested mapping on one line', `${CRD_HEAD}\n  a: b: c\n`, false],
  ['empty flow collections', `${CRD_HEAD}\n  a: []\n  b: {}\n  c: [] # c\n`, true],
  [
    'flow sequences of scalars',
    `${CRD_HEAD}\n  a: [x, y]\n  b: [ 1 , "two, three" ,'f''our', true ] # c\n  c: [ ]\n  d:\n    - [a]\n`,
    true,
  ],
  ['a flow sequence over lines', `${CRD_HEAD}\n  a: [x,\n    y]\n`, false],
  [
    'flow mappings and nesting on one line',
    `${CRD_HEAD}\n  a: [x, [y, {}], []]\n  b: {x: 1}\n  c: { type: string, enum: [a, "b"], default: / , d: { e: [] } }\n  e: {}\n`,
    true,
  ],
  ['a flow mapping without a value', `${CRD_HEAD}\n  a: {x}\n`, false],
  ['a duplicate flow key', `${CRD_HEAD}\n  a: {x: 1, x: 2}\n`, false],
  ['a colon in a flow item', `${CRD_HEAD}\n  a: [x:y]\n`, false],
  ['a trailing comma', `${CRD_HEAD}\n  a: [x, ]\n`, false],
  ['documents', `${CRD_HEAD}\n---\n${CRD_HEAD}\n---\n`, true],
  ['explicit empty documents', `---\n---\n# only a comment\n---\n${CRD_HEAD}\n`, true],
  ['document end marker', `${CRD_HEAD}\n...\n`, false],
  ['a directive', `%YAML 1.2\n---\n${CRD_HEAD}\n`, false],
  ['a List', `apiVersion: v1\nkind: List\nitems:\n- ${CRD_HEAD.split('\n').join('\n  ')}\n`, true],
  ['not a CRD', 'apiVersion: v1\nkind: ConfigMap\n', true],
  ['a sequence document', '- a\n- b\n', true],
  ['a scalar document', 'just text\n', false],
  ['only comments', '# nothing\n', true],
  ['empty', '', true],
  ['anchors and aliases', `${CRD_HEAD}\n  a: &x 1\n  b: *x\n`, false],
  ['tags', `${CRD_HEAD}\n  a: !!str 1\n`, false],
  ['duplicate keys', `${CRD_HEAD}\n  a: 1\n  a: 2\n`, false],
  ['a tab in indentation', `${CRD_HEAD}\n\ta: 1\n`, false],
  ['crlf', `${CRD_HEAD.split('\n').join('\r\n')}\r\n`, false],
  ['bad indentation', `${CRD_HEAD}\n  a: 1\n   b: 2\n`, false],
  ['a Helm directive', `${CRD_HEAD}\n  a: {{ .Values.x }}\n`, false],
  ['Helm-like text in a description', `${CRD_HEAD}\n  description: uses {{ .name }} here\n`, true],
  ['Helm-like text in a comment', `${CRD_HEAD}\n  a: 1 # {{ x }}\n`, true],
  ['indented root', `  a: 1\n  b:\n    c: 2\n`, true],
];

for (const [what, text, fast] of CASES) {
  test(`fast reader: ${what}`, () => {
    const got = same('t.yaml', text);
    assert.equal(got !== undefined, fast, fast ? 'the fast reader takes it' : 'left to the full parser');
    assert.deepEqual(
      plainResult(parseSource({ file: 't.yaml', text })),
      plainResult(parseFull({ file: 't.yaml', text })),
    );
  });
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.(ya?ml|json)$/.test(name) ? [path] : [];
  });
}

test('fast reader: every YAML fixture reads as with the full parser (or falls back)', () => {
  const files = [...yamlFiles(resolve('test/fixtures')), ...yamlFiles(resolve('crds'))];
  assert.ok(files.length > 10);
  for (const file of files) same(file, readFileSync(file, 'utf8'));
});

const CORPUS = resolve(process.cwd(), '../shared/crds');

test(
  'fast reader: every file of ../shared/crds takes the fast path, with the full parser trees',
  { skip: existsSync(CORPUS) ? false : 'needs ../shared/crds (absent here)' },
  () => {
    const files = yamlFiles(CORPUS);
    assert.ok(files.length >= 122);
    const fallbacks = files.filter((file) => same(file, readFileSync(file, 'utf8')) === undefined);
    assert.deepEqual(fallbacks, []);
  },
);

test('where the fast reader stops, it says which block collections are open and where their current entries start', () => {
  const text = 'a:\n  b:\n    - x: 1\n      y: 2\n  ]\n';
  const stop = readBlockYaml(new ParsedSource('s.yaml', text), text);
  assert.ok(stop && 'open' in stop);
  assert.deepEqual(
    stop.open.map((o) => [o.kind, o.col, o.start, o.entry, o.prev]),
    [
      ['map', 0, 0, 0, undefined],
      ['map', 2, 5, text.indexOf('  ]') + 2, 5],
    ],
  );
  assert.equal(readBlockYaml(new ParsedSource('v.yaml', 'a: 1\n'), 'a: 1\n') !== undefined, true);
  assert.equal(readBlockYaml(new ParsedSource('s.yaml', 'just a scalar\n'), 'just a scalar\n'), undefined);
});

/** A corpus file with one line of each kind of mistake inserted, at a line picked by a seeded generator. */
const MISTAKES: ((indent: string) => string)[] = [
  () => ']',
  (indent: string) => `${indent}]`,
  (indent: string) => `${indent}   extra: 1`,
  (indent: string) => `${indent}just some words`,
  (indent: string) => `${indent}- item`,
  (indent: string) => `${indent}k: "unterminated`,
  (indent: string) => `${indent}k: [unclosed`,
  (indent: string) => `${indent}x:y: 1`,
  (indent: string) => `${indent}  - z`,
  (indent: string) => `${indent}k: 'a' b`,
];

test(
  'malformed corpus files: the errors read from where the fast reader stops are the full parser’s',
  { skip: existsSync(CORPUS) ? false : 'needs ../shared/crds (absent here)' },
  () => {
    let seed = 7;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    let malformed = 0;
    // The files up to 300 KB (most of them): the full parser's reading of each is the cost here.
    for (const file of yamlFiles(CORPUS)
      .sort()
      .filter((f) => statSync(f).size <= 300_000)) {
      const lines = readFileSync(file, 'utf8').split('\n');
      const at = 1 + next(lines.length - 1);
      const mistake = MISTAKES[next(MISTAKES.length)](/^ */.exec(lines[at])?.[0] ?? '');
      const text = [...lines.slice(0, at), mistake, ...lines.slice(at)].join('\n');
      const errors = (r: ParseResult) => r.diagnostics.filter((d) => d.severity === 'error').slice(0, 20);
      const full = errors(parseFull({ file, text }));
      if (full.length > 0) malformed++;
      assert.deepEqual(errors(parseSource({ file, text })), full, `${file}:${at + 1} ${mistake}`);
    }
    assert.ok(malformed >= 60, `${malformed} of the files made malformed`);
  },
);
