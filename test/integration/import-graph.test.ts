/**
 * The import graph of `src/`, read from the sources: folders depend on each other one way (no
 * cycle), `model` reads no YAML (no `yaml` import, and of `load` only the document-tree types),
 * and the pure stages (load, model, emit, stubs, pipeline) touch neither files nor the process.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/golden-support.js';

const SRC = join(REPO, 'src');

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

function imports(): Import[] {
  const out: Import[] = [];
  const pattern = /^(?:import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/gm;
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(pattern)) {
      const spec = m[2] ?? m[3];
      const to = spec.startsWith('.') ? relative(SRC, resolve(dirname(file), spec)).replace(/\.js$/, '.ts') : spec;
      out.push({ from: relative(SRC, file), to, typeOnly: m[1] !== undefined });
    }
  }
  return out;
}

/** `load/parse-yaml.ts` → `load`; a file at the top of src stands for itself. */
function unit(path: string): string {
  return path.includes('/') ? path.split('/')[0] : path;
}

/** An import of a file under src (packages and node: modules are not). */
const local = (i: Import) => i.to.endsWith('.ts');

test('folders import each other one way: no cycle in the folder graph', () => {
  const edges = new Map<string, Set<string>>();
  for (const i of imports().filter(local)) {
    const [a, b] = [unit(i.from), unit(i.to)];
    if (a !== b) edges.set(a, (edges.get(a) ?? new Set()).add(b));
  }
  assert.deepEqual(cyclesOf(edges), []);
});

/** The cycles of a directed graph, each as `a → b → … → a` (one per back edge found). */
function cyclesOf(edges: Map<string, Set<string>>): string[] {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (node: string, path: string[]): void => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'open') return void cycles.push([...path.slice(path.indexOf(node)), node].join(' → '));
    state.set(node, 'open');
    for (const next of edges.get(node) ?? []) visit(next, [...path, node]);
    state.set(node, 'done');
  };
  for (const node of [...edges.keys()].sort()) visit(node, []);
  return cycles;
}

test('the handler API (runtime/api) reads one way: no file imports another that imports it back, types included', () => {
  const edges = new Map<string, Set<string>>();
  for (const i of imports().filter(local)) {
    if (i.from.startsWith('runtime/api/') && i.to.startsWith('runtime/api/'))
      edges.set(i.from, (edges.get(i.from) ?? new Set()).add(i.to));
  }
  assert.deepEqual(cyclesOf(edges), []);
});

test('model reads no YAML: no yaml import, and of load only the document-tree types', () => {
  const allowed = (i: Import) => i.typeOnly && i.to === 'load/doc-tree.ts';
  const reads = (i: Import) => i.to === 'yaml' || (unit(i.to) === 'load' && !allowed(i));
  const bad = imports().filter((i) => unit(i.from) === 'model' && reads(i));
  assert.deepEqual(bad, []);
});

test('only load imports yaml among the stages; the document tree has no run-time dependency on it', () => {
  const stages = new Set(['model', 'emit', 'emit-kopf', 'stubs', 'pipeline']);
  assert.deepEqual(
    imports().filter((i) => i.to === 'yaml' && stages.has(unit(i.from))),
    [],
  );
  const treeImports = imports().filter((i) => i.from === 'load/doc-tree.ts' && !i.typeOnly);
  assert.deepEqual(
    treeImports.map((i) => i.to),
    ['diagnostics.ts'],
  );
});

test('the pure stages touch neither the file system nor the process', () => {
  const pure = new Set(['load', 'model', 'emit', 'emit-kopf', 'stubs']);
  const io = ['node:fs', 'node:fs/promises', 'node:child_process', 'ts-morph'];
  assert.deepEqual(
    imports().filter((i) => pure.has(unit(i.from)) && io.includes(i.to)),
    [],
  );
});
