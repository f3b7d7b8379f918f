/**
 * The folders of `src` form a pipeline (load → model → emit → stubs → io → cli, and the runtime
 * beside it): an import from a later stage back into an earlier one would let a stage read
 * something other than the output of the stage before it. This test reads the import graph of
 * `src` and fails on any cycle between folders, naming the files that close it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const SRC = resolve('src');
const IMPORT = /^\s*(?:import|export)\b[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * `src/runtime/leader/x.ts` → `runtime/leader`. A file directly in `src` is a node of its own
 * (`api.ts`, the barrel `index.ts`): the shared contracts every stage imports, and the barrel
 * that imports every stage, would otherwise join all folders into one false cycle.
 */
const folderOf = (file: string) => relative(SRC, dirname(file)) || relative(SRC, file);

/** Edges between folders, each with one file-level import that makes it. */
export function folderGraph(files: readonly string[], read: (f: string) => string): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of files) {
    const from = folderOf(file);
    const text = read(file);
    const specs = [...text.matchAll(IMPORT), ...text.matchAll(DYNAMIC)].map((m) => m[1]);
    for (const spec of specs) {
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      const to = folderOf(target);
      if (to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string>();
      if (!edges.has(to)) edges.set(to, `${relative(SRC, file)} imports ${spec}`);
      graph.set(from, edges);
    }
  }
  return graph;
}

/** Strongly connected components of more than one folder (Tarjan). */
export function cycles(graph: Map<string, Map<string, string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const nodes = new Set([...graph.keys(), ...[...graph.values()].flatMap((e) => [...e.keys()])]);
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) ?? 0);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop();
      if (w === undefined) break;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) out.push(component.sort());
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return out;
}

test('a cycle between two folders is found and named', () => {
  const files = ['/x/src/a/one.ts', '/x/src/b/two.ts'].map((f) => f.replace('/x/src', SRC));
  const texts: Record<string, string> = {
    [files[0]]: "import { two } from '../b/two.js';",
    [files[1]]: "import type { one } from '../a/one.js';",
  };
  assert.deepEqual(cycles(folderGraph(files, (f) => texts[f])), [['a', 'b']]);
});

test('src has no import cycle between folders', () => {
  const graph = folderGraph(sourceFiles(SRC), (f) => readFileSync(f, 'utf8'));
  const found = cycles(graph).map((c) => {
    const edges = c.flatMap((from) => c.filter((to) => graph.get(from)?.has(to)).map((to) => graph.get(from)?.get(to)));
    return `${c.join(' ⇄ ')}:\n    ${edges.join('\n    ')}`;
  });
  assert.deepEqual(found, [], `import cycles between folders:\n  ${found.join('\n  ')}`);
});
