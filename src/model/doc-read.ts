/**
 * Reading the positioned document tree (`src/load/doc-tree.ts`, imported as a type only): typed
 * lookups that answer undefined for anything absent or of the wrong kind, and diagnostics at a
 * node (or at the file start when there is none).
 */
import type { Diagnostic, Severity, SourcePos } from '../diagnostics.js';
import type { DocMap, DocNode, DocSeq, DocSource } from '../load/doc-tree.js';

export function asMap(node: DocNode | undefined): DocMap | undefined {
  return node?.kind === 'map' ? node : undefined;
}

export function asSeq(node: DocNode | undefined): DocSeq | undefined {
  return node?.kind === 'seq' ? node : undefined;
}

/** The value node of `key` in a map, or undefined. */
export function get(map: DocMap | undefined, key: string): DocNode | undefined {
  return map?.get(key);
}

export function str(node: DocNode | undefined): string | undefined {
  if (node?.kind !== 'scalar') return undefined;
  const v = node.value;
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
}

export function bool(node: DocNode | undefined): boolean | undefined {
  return node?.kind === 'scalar' && typeof node.value === 'boolean' ? node.value : undefined;
}

export function num(node: DocNode | undefined): number | undefined {
  if (node?.kind !== 'scalar') return undefined;
  const v = node.value;
  return typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined;
}

export function isTrue(node: DocNode | undefined): boolean {
  return node?.kind === 'scalar' && node.value === true;
}

/** Plain JSON value of a small subtree (defaults, examples, enum members). */
export function plain(node: DocNode | undefined): unknown {
  if (!node) return undefined;
  if (node.kind === 'scalar') return node.value;
  if (node.kind === 'seq') return node.items.map((item) => (item ? plain(item) : null));
  const out: Record<string, unknown> = {};
  for (const [key, entry] of node.entries) out[key] = entry.value ? plain(entry.value) : null;
  return out;
}

/** Position of a node (its first character), or of the file start when there is none. */
export function nodePos(source: DocSource, node: DocNode | undefined): SourcePos {
  return node ? node.pos : source.pos(0);
}

export function diag(
  source: DocSource,
  severity: Severity,
  code: string,
  message: string,
  node: DocNode | undefined,
  pointer: string,
): Diagnostic {
  return { severity, code, message, pointer, ...nodePos(source, node) };
}
