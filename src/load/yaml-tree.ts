/**
 * `yaml` documents → the positioned document tree (`doc-tree.ts`). Documents are parsed with
 * `uniqueKeys: false`, because the `yaml` package's own check compares each key with every
 * earlier one (quadratic: seconds on a 40,000-key object); duplicates are found here instead,
 * through the map being built, and reported exactly as the package reports them.
 */
import { isAlias, isMap, isScalar, isSeq, type Document, type Node as YamlNode } from 'yaml';
import { Entry, MapNode, ScalarNode, SeqNode } from './doc-tree.js';
import type { DocLink, DocNode, DocSource, ScalarValue } from './doc-tree.js';

/** A key that occurs twice in one map: where the second one starts. */
export interface DuplicateKey {
  offset: number;
}

export interface TreeResult {
  root: DocNode | undefined;
  duplicates: DuplicateKey[];
}

export function documentTree(source: DocSource, doc: Document.Parsed): TreeResult {
  const reader = new TreeReader(source, doc);
  const root = reader.node(doc.contents ?? undefined, undefined);
  return { root, duplicates: reader.duplicates };
}

class TreeReader {
  readonly duplicates: DuplicateKey[] = [];
  /** Anchored nodes already read, so every alias of one is that same node. */
  private readonly anchored = new Map<YamlNode, DocNode>();

  constructor(
    private readonly source: DocSource,
    private readonly doc: Document.Parsed,
  ) {}

  node(yamlNode: unknown, link: DocLink | undefined): DocNode | undefined {
    if (isAlias(yamlNode)) {
      const target = yamlNode.resolve(this.doc);
      return target ? (this.anchored.get(target) ?? this.node(target, link)) : undefined;
    }
    if (isScalar(yamlNode)) {
      const quoted = yamlNode.type === 'QUOTE_DOUBLE' || yamlNode.type === 'QUOTE_SINGLE';
      const node = new ScalarNode(this.source, offsetOf(yamlNode), link, scalarValue(yamlNode.value), quoted);
      if (yamlNode.anchor) this.anchored.set(yamlNode, node);
      return node;
    }
    if (isMap(yamlNode)) {
      const node = new MapNode(this.source, offsetOf(yamlNode), link, yamlNode.range ? yamlNode.range[1] : 0);
      if (yamlNode.anchor) this.anchored.set(yamlNode, node);
      // Keys as the `yaml` package compares them: same type and value (`1` and `"1"` differ).
      const seen = new Set<unknown>();
      for (const pair of yamlNode.items) {
        const key = pair.key as YamlNode | null;
        if (!isScalar(key)) continue;
        if (seen.has(key.value)) {
          this.duplicates.push({ offset: offsetOf(key) });
          continue;
        }
        seen.add(key.value);
        const name = String(key.value);
        const value = this.node(pair.value, { parent: node, key: name });
        node.entries.set(name, new Entry(this.source, offsetOf(key), value));
      }
      return node;
    }
    if (isSeq(yamlNode)) {
      const node = new SeqNode(this.source, offsetOf(yamlNode), link);
      if (yamlNode.anchor) this.anchored.set(yamlNode, node);
      yamlNode.items.forEach((item, i) => node.items.push(this.node(item, { parent: node, key: i })));
      return node;
    }
    return undefined;
  }
}

function offsetOf(node: YamlNode): number {
  return node.range ? node.range[0] : 0;
}

function scalarValue(value: unknown): ScalarValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return value;
  return String(value);
}
