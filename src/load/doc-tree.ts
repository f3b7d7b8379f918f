/**
 * The positioned document tree: what `load` hands to `model`, so the model never reads YAML.
 * A reader (today `yaml-tree.ts`, over the `yaml` package's documents; later possibly one built
 * straight from its CST tokens, which carry offsets) produces these nodes; nothing here depends
 * on `yaml` at run time.
 *
 * Every node knows its offset; `pos` (file:line:col) and `pointer` (RFC 6901, from the document
 * root) are computed on demand, since most nodes are never reported on. An alias is the very
 * node it refers to, so it reads like the anchored node (positions included), as before.
 */
import { pointerAppend, type SourcePos } from '../diagnostics.js';

/** The file a tree was read from: its name and the offset → position mapping. */
export interface DocSource {
  readonly file: string;
  pos(offset: number): SourcePos;
}

export type ScalarValue = string | number | boolean | bigint | null;

interface DocNodeBase {
  readonly source: DocSource;
  /** Offset of the node's first character in the source text. */
  readonly offset: number;
  readonly pos: SourcePos;
  readonly pointer: string;
}

export interface DocScalar extends DocNodeBase {
  readonly kind: 'scalar';
  readonly value: ScalarValue;
  /** Single- or double-quoted: the value text starts one character after `offset`. */
  readonly quoted: boolean;
}

export interface DocEntry {
  readonly keyPos: SourcePos;
  /** Offset of the key's first character (a quote when the key is quoted). */
  readonly keyOffset: number;
  /** Undefined for a key without a value node (`? key`). */
  readonly value: DocNode | undefined;
}

export interface DocMap extends DocNodeBase {
  readonly kind: 'map';
  /** Offset just past the map's last character (a CRD's own text is `offset` to `end`). */
  readonly end: number;
  /** In source order; a duplicate key is an error of the reader, so each key is here once. */
  readonly entries: ReadonlyMap<string, DocEntry>;
  /** The value node of `key`, or undefined. */
  get(key: string): DocNode | undefined;
}

export interface DocSeq extends DocNodeBase {
  readonly kind: 'seq';
  readonly items: readonly (DocNode | undefined)[];
}

export type DocNode = DocMap | DocSeq | DocScalar;

/** One CRD found in a source: its mapping, where it sits, and what duplicate detection needs. */
export interface CrdDocument {
  source: DocSource;
  node: DocMap;
  /** JSON pointer of `node` inside its document (`` for a top-level CRD, `/items/3` in a List). */
  pointer: string;
  /** The CRD's exact source text, for telling identical duplicates from conflicting ones. */
  text: string;
  /** `metadata.name`, or `<plural>.<group>` as the API server would require it to be; duplicates are found by it. */
  name?: string;
  /** Where the CRD's mapping starts. */
  pos: SourcePos;
}

/** Where a node hangs in its document: its parent and its key or index there (none for a root). */
export interface DocLink {
  parent: DocNodeBase;
  key: string | number;
}

/** The shared implementation of the three node kinds, for any reader to build. */
abstract class Node implements DocNodeBase {
  constructor(
    readonly source: DocSource,
    readonly offset: number,
    private readonly link: DocLink | undefined,
  ) {}

  get pos(): SourcePos {
    return this.source.pos(this.offset);
  }

  get pointer(): string {
    return this.link ? pointerAppend(this.link.parent.pointer, String(this.link.key)) : '';
  }
}

export class ScalarNode extends Node implements DocScalar {
  readonly kind = 'scalar';
  constructor(
    source: DocSource,
    offset: number,
    link: DocLink | undefined,
    readonly value: ScalarValue,
    readonly quoted: boolean,
  ) {
    super(source, offset, link);
  }
}

export class MapNode extends Node implements DocMap {
  readonly kind = 'map';
  readonly entries = new Map<string, DocEntry>();

  constructor(
    source: DocSource,
    offset: number,
    link: DocLink | undefined,
    /** Set by a reader that learns it only after the entries (`block-reader.ts`). */
    public end: number,
  ) {
    super(source, offset, link);
  }

  get(key: string): DocNode | undefined {
    return this.entries.get(key)?.value;
  }
}

export class SeqNode extends Node implements DocSeq {
  readonly kind = 'seq';
  readonly items: (DocNode | undefined)[] = [];
}

/** A map entry whose key position is computed on demand. */
export class Entry implements DocEntry {
  constructor(
    private readonly source: DocSource,
    readonly keyOffset: number,
    readonly value: DocNode | undefined,
  ) {}

  get keyPos(): SourcePos {
    return this.source.pos(this.keyOffset);
  }
}
