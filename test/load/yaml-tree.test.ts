/**
 * The YAML reader's document tree: maps keyed for O(1) lookup, duplicate keys found while
 * reading (where the `yaml` package would report them), aliases read as the anchored node, and
 * positions and pointers computed from offsets.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import type { DocNode } from '../../src/load/doc-tree.js';
import { ParsedSource } from '../../src/load/yaml-source.js';
import { documentTree, MAX_DEPTH } from '../../src/load/yaml-tree.js';

function read(text: string) {
  const source = new ParsedSource('t.yaml', text);
  const [doc] = parseAllDocuments(text, { lineCounter: source.lineCounter, uniqueKeys: false });
  return { source, ...documentTree(source, doc) };
}

function child(node: DocNode | undefined, key: string): DocNode | undefined {
  return node?.kind === 'map' ? node.get(key) : undefined;
}

test('maps, sequences and scalars with positions and document pointers', () => {
  const { root, duplicates } = read('a:\n  b: [1, "two"]\n  c/d: ~\n');
  assert.deepEqual(duplicates, []);
  const b = child(child(root, 'a'), 'b');
  assert.equal(b?.kind, 'seq');
  if (b?.kind !== 'seq') return;
  const two = b.items[1];
  assert.ok(two?.kind === 'scalar');
  assert.deepEqual([two.value, two.quoted], ['two', true]);
  assert.deepEqual(two?.pos, { file: 't.yaml', line: 2, col: 10 });
  assert.equal(two?.pointer, '/a/b/1');
  const slash = child(child(root, 'a'), 'c/d');
  assert.deepEqual([slash?.kind === 'scalar' && slash.value, slash?.pointer], [null, '/a/c~1d']);
  const a = root?.kind === 'map' ? root.entries.get('a') : undefined;
  assert.deepEqual(a?.keyPos, { file: 't.yaml', line: 1, col: 1 });
});

test('duplicate keys: each repeat reported at its key, in block and flow maps, and only one entry kept', () => {
  const { root, duplicates, source } = read('a: 1\nb: {x: 1, x: 2}\na: 3\n');
  assert.deepEqual(
    duplicates.map((d) => source.pos(d.offset)),
    [
      { file: 't.yaml', line: 2, col: 11 },
      { file: 't.yaml', line: 3, col: 1 },
    ],
  );
  const a = child(root, 'a');
  assert.equal(a?.kind === 'scalar' && a.value, 1);
});

test('a duplicate key is reported where the yaml package reports it: after its tag', () => {
  const text = 'a:\n  !!str k: 1\n  !!str k: 2\n';
  const { duplicates } = read(text);
  const [doc] = parseAllDocuments(text);
  assert.deepEqual(
    duplicates.map((d) => d.offset),
    doc.errors.map((e) => e.pos[0]),
  );
  assert.deepEqual(
    duplicates.map((d) => d.offset),
    [24],
  );
});

test('keys the yaml package tells apart are not duplicates (1 and "1")', () => {
  assert.deepEqual(read('1: a\n"1": b\n').duplicates, []);
});

test('an alias is the anchored node itself', () => {
  const { root } = read('a: &x {k: 1}\nb: *x\n');
  assert.equal(child(root, 'a'), child(root, 'b'));
  assert.deepEqual(child(root, 'b')?.pos, { file: 't.yaml', line: 1, col: 7 });
});

test('a large map is read in linear time: 40,000 keys', () => {
  const text = Array.from({ length: 40_000 }, (_, i) => `k${i}: ${i}`).join('\n');
  const { root, duplicates } = read(text + '\nk7: again\n');
  assert.equal(root?.kind === 'map' && root.entries.size, 40_000);
  assert.equal(duplicates.length, 1);
});

/** A flow sequence nested `depth` levels: `[[[…x…]]]`. */
function nested(depth: number): string {
  return '['.repeat(depth - 1) + 'x' + ']'.repeat(depth - 1) + '\n';
}

const limitCases: {
  name: string;
  given: string;
  want: { kind: string; line: number; col: number; message: RegExp } | undefined;
}[] = [
  { name: 'nesting at the limit', given: nested(MAX_DEPTH), want: undefined },
  {
    name: 'one level beyond the limit: at the innermost node',
    given: nested(MAX_DEPTH + 1),
    want: { kind: 'depth', line: 1, col: MAX_DEPTH + 1, message: /nesting deeper than 512 levels/ },
  },
  {
    name: 'an alias expanded beyond the limit: at the alias',
    given: `a: &a ${nested(MAX_DEPTH - 1).trim()}\nb: [*a]\nc: *a\n`,
    want: { kind: 'depth', line: 2, col: 5, message: /where this alias is expanded/ },
  },
  {
    name: 'an alias that contains itself: at the alias',
    given: 'a: &a [1, *a]\n',
    want: { kind: 'aliases', line: 1, col: 11, message: /a cycle/ },
  },
  {
    name: 'an alias bomb: at the alias that crosses the budget',
    given:
      [
        'a0: &a0 [x, x, x, x, x, x, x, x, x, x]',
        ...Array.from({ length: 6 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`),
      ].join('\n') + '\n',
    want: { kind: 'aliases', line: 5, col: 45, message: /alias bomb/ },
  },
  {
    name: 'aliases that repeat a shared part a few times are fine',
    given: 'base: &b { type: object, properties: { x: { type: string } } }\nuses: [*b, *b, *b, *b, *b, *b, *b, *b]\n',
    want: undefined,
  },
];

for (const c of limitCases) {
  test(`tree limits: ${c.name}`, () => {
    const { source, limit } = read(c.given);
    if (!c.want) return assert.equal(limit, undefined);
    assert.ok(limit, 'a limit is reported');
    assert.equal(limit.kind, c.want.kind);
    assert.match(limit.message, c.want.message);
    const pos = source.pos(limit.offset);
    assert.deepEqual([pos.line, pos.col], [c.want.line, c.want.col]);
  });
}
