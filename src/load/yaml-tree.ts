/**
 * `yaml` documents → the positioned document tree (`doc-tree.ts`). Documents are parsed with
 * `uniqueKeys: false`, because the `yaml` package's own check compares each key with every
 * earlier one (quadratic: seconds on a 40,000-key object); duplicates are found here instead,
 * through the map being built, and reported exactly as the package reports them.
 *
 * Every later stage walks this tree recursively, so the tree is bounded here, once: nesting
 * deeper than `MAX_DEPTH` (aliases counted where they are used) and aliases that expand the
 * document far beyond its own size (an "alias bomb") or refer to a node containing them (a
 * cycle) are reported at the offending node, and the document is not read further.
 */
import { isAlias, isMap, isScalar, isSeq, type Document, type Node as YamlNode } from 'yaml';
import { Entry, MapNode, ScalarNode, SeqNode } from './doc-tree.js';
import type { DocLink, DocNode, DocSource, ScalarValue } from './doc-tree.js';

/** A key that occurs twice in one map: where the second one starts. */
export interface DuplicateKey {
  offset: number;
}

/** A limit the document exceeds: where, and which (`depth`: nesting, `aliases`: expansion or a cycle). */
export interface TreeLimit {
  offset: number;
  kind: 'depth' | 'aliases';
  message: string;
}

export interface TreeResult {
  root: DocNode | undefined;
  duplicates: DuplicateKey[];
  /** At most one; when present the tree is incomplete and must not be used. */
  limit?: TreeLimit;
}

/**
 * Nesting levels of a document (maps and lists; a schema level is two: the schema and its
 * `properties`). Real CRDs stay under 60 (the corpus' deepest is far below); the generator's
 * recursive walks are safe to well beyond this, and the `yaml` parser itself gives up near 1,300.
 */
export const MAX_DEPTH = 512;

/** Nodes that aliases may add to a document beyond its own: generous for shared schemas, far below a bomb. */
export function aliasBudget(nodes: number): number {
  return 100_000 + 10 * nodes;
}

export function documentTree(source: DocSource, doc: Document.Parsed): TreeResult {
  const reader = new TreeReader(source, doc);
  const root = reader.node(doc.contents ?? undefined, undefined, 1);
  return { root, duplicates: reader.duplicates, limit: reader.limit };
}

/** What an anchored node expands to wherever an alias repeats it. */
interface Extent {
  /** Levels from the node down to its deepest leaf (1 for a scalar). */
  height: number;
  /** Nodes in its expansion, aliases expanded. */
  size: number;
}

class TreeReader {
  readonly duplicates: DuplicateKey[] = [];
  limit: TreeLimit | undefined;
  /** Anchored nodes already read, so every alias of one is that same node. */
  private readonly anchored = new Map<YamlNode, DocNode>();
  /** Extents of anchored nodes read completely; an anchored node in `anchored` but not here is still being read. */
  private readonly extents = new Map<YamlNode, Extent>();
  /** Nodes read (each once) and nodes the document expands to (aliases repeated). */
  private count = 0;
  private expanded = 0;
  /** Deepest level reached so far: an anchored node's height is read off it. */
  private deepest = 0;

  constructor(
    private readonly source: DocSource,
    private readonly doc: Document.Parsed,
  ) {}

  node(yamlNode: unknown, link: DocLink | undefined, depth: number): DocNode | undefined {
    if (this.limit) return undefined;
    if (depth > MAX_DEPTH) {
      const offset =
        isAlias(yamlNode) || isScalar(yamlNode) || isMap(yamlNode) || isSeq(yamlNode) ? offsetOf(yamlNode) : 0;
      this.limit = {
        offset,
        kind: 'depth',
        message: `nesting deeper than ${MAX_DEPTH} levels; kopfgen reads CRDs up to that depth`,
      };
      return undefined;
    }
    if (isAlias(yamlNode)) return this.alias(yamlNode, link, depth);
    this.count++;
    this.expanded++;
    if (depth > this.deepest) this.deepest = depth;
    const anchor = anchorOf(yamlNode);
    if (!anchor) return this.read(yamlNode, link, depth);
    const [deepest, expanded] = [this.deepest, this.expanded];
    this.deepest = depth;
    const node = this.read(yamlNode, link, depth);
    this.extents.set(anchor, { height: this.deepest - depth + 1, size: this.expanded - expanded + 1 });
    this.deepest = Math.max(deepest, this.deepest);
    return node;
  }

  /** An alias is its anchored node, once the expansion it stands for fits the depth and size limits. */
  private alias(
    alias: YamlNode & { resolve(doc: Document.Parsed): YamlNode | undefined },
    link: DocLink | undefined,
    depth: number,
  ): DocNode | undefined {
    const target = alias.resolve(this.doc);
    if (!target) return undefined;
    const node = this.anchored.get(target);
    if (!node) return this.node(target, link, depth);
    const extent = this.extents.get(target);
    const offset = offsetOf(alias);
    if (!extent) {
      this.limit = {
        offset,
        kind: 'aliases',
        message: 'this alias refers to a node that contains it (a cycle); write the repeated part out',
      };
      return undefined;
    }
    if (depth + extent.height - 1 > MAX_DEPTH) {
      this.limit = {
        offset,
        kind: 'depth',
        message: `nesting deeper than ${MAX_DEPTH} levels where this alias is expanded; kopfgen reads CRDs up to that depth`,
      };
      return undefined;
    }
    this.expanded += extent.size;
    if (this.expanded - this.count > aliasBudget(this.count)) {
      this.limit = {
        offset,
        kind: 'aliases',
        message: `aliases expand this document to more than ${this.expanded} nodes (${this.count} written); an alias bomb? write the repeated parts out`,
      };
      return undefined;
    }
    if (depth + extent.height - 1 > this.deepest) this.deepest = depth + extent.height - 1;
    return node;
  }

  private read(yamlNode: unknown, link: DocLink | undefined, depth: number): DocNode | undefined {
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
        const value = this.node(pair.value, { parent: node, key: name }, depth + 1);
        node.entries.set(name, new Entry(this.source, offsetOf(key), value));
      }
      return node;
    }
    if (isSeq(yamlNode)) {
      const node = new SeqNode(this.source, offsetOf(yamlNode), link);
      if (yamlNode.anchor) this.anchored.set(yamlNode, node);
      yamlNode.items.forEach((item, i) => node.items.push(this.node(item, { parent: node, key: i }, depth + 1)));
      return node;
    }
    return undefined;
  }
}

/** The node when it carries an anchor (aliases may repeat it), else undefined; one property read on the common path. */
function anchorOf(node: unknown): YamlNode | undefined {
  if (typeof node !== 'object' || node === null || !('anchor' in node) || !node.anchor) return undefined;
  return isScalar(node) || isMap(node) || isSeq(node) ? node : undefined;
}

function offsetOf(node: YamlNode): number {
  return node.range ? node.range[0] : 0;
}

function scalarValue(value: unknown): ScalarValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return value;
  return String(value);
}
