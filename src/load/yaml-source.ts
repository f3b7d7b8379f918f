/**
 * One parsed input file: its YAML documents plus what every later stage needs to report
 * positions (file name, line counter) and JSON pointers. Positions are computed on demand
 * from node offsets, so building the model costs no more than walking the YAML nodes.
 */
import { LineCounter, isAlias, isMap, isScalar, isSeq, type Document, type Node, type YAMLMap, type YAMLSeq } from 'yaml';
import type { Diagnostic, Severity, SourcePos } from '../diagnostics.js';

export class ParsedSource {
  readonly lineCounter = new LineCounter();
  constructor(
    readonly file: string,
    readonly text: string,
  ) {}

  /** LineCounter.linePos without its intermediate object: this runs once per schema node. */
  pos(offset: number): SourcePos {
    const starts = this.lineCounter.lineStarts;
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (starts[mid] <= offset) low = mid + 1;
      else high = mid;
    }
    return low === 0 ? { file: this.file, line: 1, col: offset + 1 } : { file: this.file, line: low, col: offset - starts[low - 1] + 1 };
  }

  /** Position of a node (its first character), or of the file start when the node has none. */
  nodePos(node: Node | null | undefined): SourcePos {
    return this.pos(node?.range ? node.range[0] : 0);
  }

  diag(severity: Severity, code: string, message: string, node: Node | null | undefined, pointer: string): Diagnostic {
    return { severity, code, message, pointer, ...this.nodePos(node) };
  }
}

/** A document of a source together with the node that stands for one CRD in it. */
export interface CrdNode {
  source: ParsedSource;
  doc: Document.Parsed;
  node: YAMLMap;
  /** JSON pointer of `node` inside its document (`` for a top-level CRD, `/items/3` in a List). */
  pointer: string;
  /** The CRD's exact source text, for telling identical duplicates from conflicting ones. */
  text: string;
  /** `metadata.name`, or `<plural>.<group>` as the API server would require it to be; duplicates are found by it. */
  name?: string;
  /** Where the CRD's mapping starts. */
  pos: SourcePos;
}

/** Follows aliases, so `*anchor` reads like the anchored node. */
export function deref(node: unknown, doc: Document.Parsed): Node | undefined {
  if (isAlias(node)) return deref(node.resolve(doc), doc);
  return (node ?? undefined) as Node | undefined;
}

/** The value node of `key` in a map, or undefined. Linear scan: CRD maps are small and the scan is cheap. */
export function get(map: YAMLMap | undefined, key: string, doc: Document.Parsed): Node | undefined {
  if (!map) return undefined;
  const items = map.items;
  for (let i = 0; i < items.length; i++) {
    const pair = items[i];
    const k = pair.key as Node | null;
    if (isScalar(k) && k.value === key) return deref(pair.value, doc);
  }
  return undefined;
}

export function asMap(node: Node | undefined): YAMLMap | undefined {
  return isMap(node) ? node : undefined;
}

export function asSeq(node: Node | undefined): YAMLSeq | undefined {
  return isSeq(node) ? node : undefined;
}

export function str(node: Node | undefined): string | undefined {
  if (!isScalar(node)) return undefined;
  const v = node.value;
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
}

export function bool(node: Node | undefined): boolean | undefined {
  if (!isScalar(node)) return undefined;
  return typeof node.value === 'boolean' ? node.value : undefined;
}

export function num(node: Node | undefined): number | undefined {
  if (!isScalar(node)) return undefined;
  const v = node.value;
  return typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined;
}

/** Plain JSON value of a small subtree (defaults, examples, enum members). */
export function plain(node: Node | undefined, doc: Document.Parsed): unknown {
  if (!node) return undefined;
  return node.toJS(doc, { maxAliasCount: 100 });
}
