/**
 * The fast reader: block-style YAML (what CRD generators write: controller-gen, kubebuilder,
 * Helm's rendered output) read in one pass over the text straight into the positioned document
 * tree (`doc-tree.ts`), without the `yaml` package's CST and document nodes. The full parser
 * costs ~3x its own lexer on the corpus, and its intermediate trees dominate the generator's
 * time and garbage; this reader only scans characters and builds the final nodes.
 *
 * It covers a strict subset and gives up on anything else, returning undefined so the caller
 * reads the file with the full parser (`yaml-tree.ts`), which decides every error, diagnostic
 * and limit: anchors, aliases, tags, directives, explicit keys, flow collections other than
 * `[]` and `{}`, tabs in indentation, `\r`, a BOM, duplicate keys, keep-chomping or explicitly
 * indented block scalars, empty sequence items, nesting beyond MAX_DEPTH, anything the `yaml`
 * package would report. Within the subset the tree is the one `yaml-tree.ts` builds (values,
 * offsets, map ends, key offsets): `test/load/block-reader.test.ts` compares both on every file
 * of the shared corpus. Scalar texts are resolved by the `yaml` package's own CST resolvers and
 * the core schema's own tags, so folding, escapes and types are exactly the package's.
 */
import { CST, isScalar, Schema } from 'yaml';
import type { ScalarTag } from 'yaml';
import { Entry, MapNode, ScalarNode, SeqNode } from './doc-tree.js';
import type { DocLink, DocNode, DocSource, ScalarValue } from './doc-tree.js';
import { MAX_DEPTH } from './yaml-tree.js';

/** The documents of a text, and what the Helm check needs of them. */
export interface BlockDocuments {
  /** One root per document, as the `yaml` package counts documents (an empty explicit one is a null scalar). */
  roots: DocNode[];
  /** `[start, end)` of every string value of a `description` key: `{{ … }}` there is text, not a template. */
  descriptions: [number, number][];
}

/**
 * The tags the core schema tries on a plain scalar, in the package's order (`composeScalar`'s
 * `findScalarTagByTest`); a plain scalar no tag matches is a string.
 */
const PLAIN_TAGS: ScalarTag[] = new Schema({}).tags.filter(
  (tag): tag is ScalarTag => !('collection' in tag && tag.collection) && tag.default === true && tag.test !== undefined,
);

/** Options the tags' resolvers read (`intAsBigInt`), as `parseAllDocuments` passes them by default. */
const RESOLVE_OPTIONS = { intAsBigInt: false };

/** Thrown inside the reader only, to abandon the fast path; never escapes `readBlockYaml`. */
class Unsupported {}
const UNSUPPORTED = new Unsupported();

function unsupported(): never {
  throw UNSUPPORTED;
}

/** A block collection the reader is inside: its kind, its column, and where its current entry starts. */
export interface OpenCollection {
  kind: 'map' | 'seq';
  col: number;
  /** Offset of its first entry. */
  start: number;
  /** Offset of the entry being read (a key, or an item's `-`), or of the line that would be the next one. */
  entry: number;
  /** Offset of the entry before it, when there is one. */
  prev?: number;
}

/**
 * Where the reader gave up, inside the block collections `open` (outermost first): everything up
 * to the innermost one's current entry was read within the subset, where the `yaml` package
 * reports nothing, and the package's view of the rest depends only on the collections open there.
 * So the caller can have the package read a skeleton of those collections followed by the text
 * from that entry on, instead of the whole file (`parse-yaml.ts`).
 */
export interface Stop {
  open: OpenCollection[];
  /** The roots of the documents read before the one the reader stopped in. */
  done: DocNode[];
}

const NL = 10;
const SPACE = 32;
const TAB = 9;
const HASH = 35;
const COLON = 58;
const DASH = 45;
const DQUOTE = 34;
const SQUOTE = 39;
const BACKSLASH = 92;

/** Characters that start no plain scalar or key here (anchors, aliases, tags, flow, reserved, explicit keys). */
const INDICATOR = new Set('&*!?%@`,]}[{|>\'":#'.split('').map((c) => c.charCodeAt(0)));
/** First characters a plain scalar needs to be anything but a string (core schema: null, bool, int, float). */
const TYPED_START = new Set('~nNtTfF0123456789+-.'.split('').map((c) => c.charCodeAt(0)));

/**
 * Reads `text` (the contents of `source`) when it is within the subset; else where it stopped
 * (inside at least one block collection), or undefined. With `onRoot`, each document's root goes
 * to it as soon as the document is read, instead of into `roots` (and `done`): a caller can be
 * done with one document before the next is read, so a bundle of a hundred CRDs never has all
 * its trees at once.
 */
export function readBlockYaml(
  source: DocSource,
  text: string,
  onRoot?: (root: DocNode) => void,
): BlockDocuments | Stop | undefined {
  if (text.includes('\r') || text.charCodeAt(0) === 0xfeff) return undefined;
  const reader = new Reader(source, text, onRoot);
  try {
    return reader.documents();
  } catch (e) {
    if (e !== UNSUPPORTED) throw e;
    // Unwound without closing: the collections open where it stopped.
    return reader.open.length > 0 ? { open: reader.open, done: reader.roots } : undefined;
  }
}

class Reader {
  private readonly len: number;
  /** Start of the next line not yet read. */
  private cursor = 0;
  /** Set by `content()`: the column of the content it found. */
  private col = 0;
  /** Set by every value read: where the `yaml` package's node would end (`range[2]`). */
  private nodeEnd = 0;
  private readonly descriptions: [number, number][] = [];
  /** The block collections being read, outermost first (left as they are when the reader gives up). */
  readonly open: OpenCollection[] = [];
  /** The roots of the documents read so far (none when they go to `onRoot`). */
  readonly roots: DocNode[] = [];
  /** The collection closed last (a document's root, when it ends). */
  private closed: OpenCollection | undefined;

  constructor(
    private readonly source: DocSource,
    private readonly text: string,
    private readonly onRoot?: (root: DocNode) => void,
  ) {
    this.len = text.length;
  }

  documents(): BlockDocuments {
    const roots = this.onRoot ? { push: this.onRoot } : this.roots;
    let started = -1; // end of a `---` not yet followed by content
    for (;;) {
      const at = this.content();
      if (at < 0) {
        if (started >= 0) roots.push(new ScalarNode(this.source, started, undefined, null, false));
        break;
      }
      if (this.col === 0 && this.marker(at, DASH)) {
        if (started >= 0) roots.push(new ScalarNode(this.source, started, undefined, null, false));
        if (at + 3 < this.len && this.text.charCodeAt(at + 3) !== NL) unsupported();
        started = at + 3;
        this.cursor = Math.min(this.len, at + 4);
        continue;
      }
      const root = this.root(at);
      started = -1;
      const next = this.content();
      if (next >= 0 && !(this.col === 0 && this.marker(next, DASH))) {
        // For the `yaml` package the root collection goes on: the line is its next entry.
        this.open.push({
          kind: root.kind === 'seq' ? 'seq' : 'map',
          col: 0,
          start: at,
          entry: next,
          prev: this.closed?.entry,
        });
        unsupported();
      }
      roots.push(root);
    }
    // With `onRoot`, the roots were handed over: none are kept.
    return { roots: this.roots, descriptions: this.descriptions };
  }

  /** A document's content: a map or a sequence (a scalar document is left to the full parser). */
  private root(at: number): DocNode {
    const c = this.text.charCodeAt(at);
    if (c === DASH && this.blankOrEnd(at + 1)) return this.seq(at, this.col, undefined, 1);
    if (this.keyColon(at) >= 0) return this.map(at, this.col, undefined, 1);
    return unsupported();
  }

  /**
   * From `cursor` (a line start), skips blank and comment lines; returns the offset of the
   * next content and sets `col`, or -1 at the end. `cursor` stays at that line's start.
   */
  private content(): number {
    const text = this.text;
    let i = this.cursor;
    while (i < this.len) {
      let j = i;
      while (text.charCodeAt(j) === SPACE) j++;
      const c = text.charCodeAt(j);
      if (c === TAB) unsupported();
      if (j >= this.len) break;
      if (c === NL) {
        i = j + 1;
        continue;
      }
      if (c === HASH) {
        i = this.lineEnd(j) + 1;
        continue;
      }
      this.cursor = i;
      this.col = j - i;
      if (this.col === 0 && (this.marker(j, 46) || c === 37)) unsupported(); // `...`, `%` directive
      return j;
    }
    this.cursor = this.len;
    return -1;
  }

  /** `---` or `...` (by `c`) at `at`, followed by a space or the line's end. */
  private marker(at: number, c: number): boolean {
    const t = this.text;
    return (
      t.charCodeAt(at) === c && t.charCodeAt(at + 1) === c && t.charCodeAt(at + 2) === c && this.blankOrEnd(at + 3)
    );
  }

  private blankOrEnd(i: number): boolean {
    const c = this.text.charCodeAt(i);
    return i >= this.len || c === SPACE || c === NL;
  }

  private lineEnd(i: number): number {
    const e = this.text.indexOf('\n', i);
    return e < 0 ? this.len : e;
  }

  private nextLine(i: number): number {
    return Math.min(this.len, this.lineEnd(i) + 1);
  }

  /**
   * The offset of the `:` when the line at `at` is an implicit key (`key: …`, `"key": …`),
   * else -1. Anything a key cannot be here is unsupported.
   */
  private keyColon(at: number): number {
    const t = this.text;
    const c = t.charCodeAt(at);
    if (c === DQUOTE || c === SQUOTE) {
      const close = this.closingQuote(at, true);
      if (close < 0) return -1;
      let i = close + 1;
      while (t.charCodeAt(i) === SPACE) i++;
      return t.charCodeAt(i) === COLON && this.blankOrEnd(i + 1) ? i : -1;
    }
    if (INDICATOR.has(c) || (c === DASH && this.blankOrEnd(at + 1))) return -1;
    const end = this.lineEnd(at);
    for (let i = at; i < end; i++) {
      const ch = t.charCodeAt(i);
      if (ch === COLON && (i + 1 >= end || t.charCodeAt(i + 1) === SPACE)) {
        if (i - at > 1024) unsupported();
        return i;
      }
      if (ch === HASH && (t.charCodeAt(i - 1) === SPACE || t.charCodeAt(i - 1) === TAB)) return -1;
      if (ch === TAB) unsupported();
    }
    return -1;
  }

  /** A node that starts on its own line at `at` (column `col`), inside a parent at `parentIndent`. */
  private block(
    at: number,
    col: number,
    parentIndent: number,
    link: DocLink,
    depth: number,
    description: boolean,
  ): DocNode {
    if (depth > MAX_DEPTH) unsupported();
    const c = this.text.charCodeAt(at);
    if (c === DASH && this.blankOrEnd(at + 1)) return this.seq(at, col, link, depth);
    if (this.keyColon(at) >= 0) return this.map(at, col, link, depth);
    return this.inline(at, parentIndent, link, depth, description);
  }

  private map(at: number, col: number, link: DocLink | undefined, depth: number): MapNode {
    if (depth > MAX_DEPTH) unsupported();
    const t = this.text;
    const node = new MapNode(this.source, at, link, 0);
    const seen = new Set<ScalarValue>();
    const open: OpenCollection = { kind: 'map', col, start: at, entry: at };
    this.open.push(open);
    for (let p = at; ;) {
      open.entry = p;
      const colon = this.keyColon(p);
      if (colon < 0) unsupported();
      const key = this.keyValue(p, colon);
      if (seen.has(key)) unsupported(); // the full parser reports it where the package does
      seen.add(key);
      const name = String(key);
      const childLink = { parent: node, key: name };
      let q = colon + 1;
      while (t.charCodeAt(q) === SPACE) q++;
      const c = t.charCodeAt(q);
      let value: DocNode;
      if (q >= this.len || c === NL || c === HASH) {
        if (c === TAB) unsupported();
        this.cursor = this.nextLine(q);
        const next = this.content();
        if (next >= 0 && this.col > col)
          value = this.block(next, this.col, col, childLink, depth + 1, key === 'description');
        else if (next >= 0 && this.col === col && t.charCodeAt(next) === DASH && this.blankOrEnd(next + 1))
          value = this.seq(next, col, childLink, depth + 1);
        else {
          if (c === HASH) unsupported(); // an empty value with a comment ends elsewhere in the package
          value = new ScalarNode(this.source, q, childLink, null, false);
          this.nodeEnd = q;
        }
      } else {
        if (c === TAB) unsupported();
        value = this.inline(q, col, childLink, depth + 1, key === 'description');
      }
      node.entries.set(name, new Entry(this.source, p, value));
      const next = this.content();
      if (next < 0 || this.col < col || (this.col === 0 && this.marker(next, DASH))) break;
      open.prev = p;
      open.entry = next;
      if (this.col > col || (t.charCodeAt(next) === DASH && this.blankOrEnd(next + 1))) unsupported();
      p = next;
    }
    this.closed = this.open.pop();
    node.end = this.nodeEnd;
    return node;
  }

  private seq(at: number, col: number, link: DocLink | undefined, depth: number): SeqNode {
    if (depth > MAX_DEPTH) unsupported();
    const t = this.text;
    const node = new SeqNode(this.source, at, link);
    const open: OpenCollection = { kind: 'seq', col, start: at, entry: at };
    this.open.push(open);
    for (let p = at; ;) {
      open.entry = p;
      let q = p + 1;
      while (t.charCodeAt(q) === SPACE) q++;
      const c = t.charCodeAt(q);
      const itemLink = { parent: node, key: node.items.length };
      let item: DocNode;
      if (q >= this.len || c === NL || c === HASH) {
        this.cursor = this.nextLine(q);
        const next = this.content();
        if (next < 0 || this.col <= col) unsupported(); // an empty item
        item = this.block(next, this.col, col, itemLink, depth + 1, false);
      } else if (c === TAB || (c === DASH && this.blankOrEnd(q + 1))) {
        unsupported();
      } else if (this.keyColon(q) >= 0) {
        item = this.map(q, col + (q - p), itemLink, depth + 1);
      } else {
        item = this.inline(q, col, itemLink, depth + 1, false);
      }
      node.items.push(item);
      const next = this.content();
      if (next < 0 || this.col < col || (this.col === 0 && this.marker(next, DASH))) break;
      open.prev = p;
      open.entry = next;
      if (this.col > col) unsupported();
      if (t.charCodeAt(next) !== DASH || !this.blankOrEnd(next + 1)) break; // the map this sequence is a value of goes on
      p = next;
    }
    this.closed = this.open.pop();
    return node;
  }

  /** A scalar (or `[]`, `{}`) starting at `at`, the value of a key or an item of a parent at `parentIndent`. */
  private inline(at: number, parentIndent: number, link: DocLink, depth: number, description: boolean): DocNode {
    const c = this.text.charCodeAt(at);
    if (c === 124 || c === 62) return this.blockScalar(at, parentIndent, link, description);
    if (c === DQUOTE || c === SQUOTE) return this.quoted(at, parentIndent, link, description);
    if (c === 91 || c === 123) return this.flow(at, link, depth);
    if (INDICATOR.has(c) || (c === DASH && this.blankOrEnd(at + 1))) unsupported();
    return this.plain(at, parentIndent, link, description);
  }

  /** A flow collection on one line (`[a, "b"]`, `{ type: string, enum: [x, y] }`), ending its line. */
  private flow(at: number, link: DocLink, depth: number): DocNode {
    const { node, end } = this.flowCollection(at, link, depth, this.lineEnd(at));
    this.afterValue(end);
    return node;
  }

  /**
   * The flow sequence or mapping at `at`, which must close before `lineEnd`: its node and the
   * offset past its closing bracket. Items are scalars or flow collections; keys are scalars.
   */
  private flowCollection(at: number, link: DocLink, depth: number, lineEnd: number): { node: DocNode; end: number } {
    if (depth > MAX_DEPTH) unsupported();
    const t = this.text;
    const isMap = t.charCodeAt(at) === 123;
    const close = isMap ? 125 : 93;
    const seq = isMap ? undefined : new SeqNode(this.source, at, link);
    const map = isMap ? new MapNode(this.source, at, link, 0) : undefined;
    const seen = new Set<ScalarValue>();
    let i = at + 1;
    for (let first = true; ; first = false) {
      while (t.charCodeAt(i) === SPACE) i++;
      if (first && t.charCodeAt(i) === close) {
        i++;
        break;
      }
      if (map) {
        const keyAt = i;
        const key = this.flowScalar(i, undefined, lineEnd, true);
        i = key.end;
        while (t.charCodeAt(i) === SPACE) i++;
        if (t.charCodeAt(i) !== COLON || t.charCodeAt(i + 1) !== SPACE) unsupported();
        i += 2;
        while (t.charCodeAt(i) === SPACE) i++;
        const keyValue = key.node.value;
        if (seen.has(keyValue)) unsupported();
        seen.add(keyValue);
        const name = String(keyValue);
        const value = this.flowItem(i, { parent: map, key: name }, depth + 1, lineEnd);
        map.entries.set(name, new Entry(this.source, keyAt, value.node));
        i = value.end;
      } else if (seq) {
        const item = this.flowItem(i, { parent: seq, key: seq.items.length }, depth + 1, lineEnd);
        seq.items.push(item.node);
        i = item.end;
      }
      while (t.charCodeAt(i) === SPACE) i++;
      const sep = t.charCodeAt(i++);
      if (sep === close) break;
      if (sep !== 44) unsupported();
      while (t.charCodeAt(i) === SPACE) i++;
      if (t.charCodeAt(i) === close) unsupported(); // a trailing comma
    }
    if (map) map.end = i;
    return { node: map ?? seq ?? unsupported(), end: i };
  }

  private flowItem(at: number, link: DocLink, depth: number, lineEnd: number): { node: DocNode; end: number } {
    const c = this.text.charCodeAt(at);
    if (c === 91 || c === 123) return this.flowCollection(at, link, depth, lineEnd);
    return this.flowScalar(at, link, lineEnd, false);
  }

  /** A quoted or plain scalar inside a flow collection; a plain one stops before `,`, `]`, `}` or `: `. */
  private flowScalar(
    at: number,
    link: DocLink | undefined,
    lineEnd: number,
    key: boolean,
  ): { node: ScalarNode; end: number } {
    const t = this.text;
    const c = t.charCodeAt(at);
    if (c === DQUOTE || c === SQUOTE) {
      const close = this.closingQuote(at, true);
      if (close < 0) unsupported();
      return { node: new ScalarNode(this.source, at, link, this.quotedText(at, close), true), end: close + 1 };
    }
    if (INDICATOR.has(c) || c === DASH || at >= lineEnd) unsupported();
    let stop = at;
    for (let ch = t.charCodeAt(stop); stop < lineEnd; ch = t.charCodeAt(++stop)) {
      if (ch === 44 || ch === 93 || ch === 125) break;
      if (ch === COLON) {
        if (key && t.charCodeAt(stop + 1) === SPACE) break;
        unsupported(); // `a:b` and `a: b` in an item: the package's adjacency rules, not ours
      }
      // Nesting, comments and tabs are the full parser's.
      if (ch === HASH || ch === TAB || ch === 91 || ch === 123) unsupported();
    }
    const valueEnd = trimEnd(t, at, stop);
    return { node: new ScalarNode(this.source, at, link, plainValue(t.slice(at, valueEnd)), false), end: valueEnd };
  }

  /**
   * After a value's last character: spaces, then a comment (after a space) or the line's end.
   * Sets `nodeEnd` past the newline (the package's node end) and `cursor` to the next line.
   */
  private afterValue(i: number): void {
    const t = this.text;
    const from = i;
    while (t.charCodeAt(i) === SPACE) i++;
    const c = t.charCodeAt(i);
    if (i < this.len && c !== NL && !(c === HASH && i > from)) unsupported();
    this.cursor = this.nextLine(i);
    this.nodeEnd = this.cursor;
  }

  private plain(at: number, parentIndent: number, link: DocLink, description: boolean): ScalarNode {
    const t = this.text;
    const end = this.lineEnd(at);
    let stop = end;
    let comment = false;
    for (let i = at; i < end; i++) {
      const ch = t.charCodeAt(i);
      if (ch === COLON && (i + 1 >= end || t.charCodeAt(i + 1) === SPACE || t.charCodeAt(i + 1) === TAB)) unsupported();
      if (ch === HASH && (t.charCodeAt(i - 1) === SPACE || t.charCodeAt(i - 1) === TAB)) {
        stop = i;
        comment = true;
        break;
      }
    }
    let valueEnd = trimEnd(t, at, stop);
    let multiline = false;
    let next = Math.min(this.len, end + 1);
    if (!comment) {
      // Continuation lines: more indented than the parent, not comments; blank lines between fold.
      for (let r = next; r < this.len;) {
        let j = r;
        while (t.charCodeAt(j) === SPACE) j++;
        const c = t.charCodeAt(j);
        if (c === NL) {
          r = j + 1;
          continue;
        }
        if (j >= this.len || j - r <= parentIndent || c === HASH) break;
        // Any character may start a continuation line but a comment's and `- `, `? `, `: `.
        if (c === TAB || ((c === DASH || c === 63 || c === COLON) && this.blankOrEnd(j + 1))) unsupported();
        const e = this.lineEnd(j);
        for (let i = j; i < e; i++) {
          const ch = t.charCodeAt(i);
          if (
            ch === TAB ||
            (ch === HASH && t.charCodeAt(i - 1) === SPACE) ||
            (ch === COLON && (i + 1 >= e || t.charCodeAt(i + 1) === SPACE))
          )
            unsupported();
        }
        multiline = true;
        valueEnd = trimEnd(t, j, e);
        next = Math.min(this.len, e + 1);
        r = next;
      }
    }
    let raw: string;
    if (multiline) {
      raw = resolveToken({ type: 'scalar', offset: at, indent: parentIndent, source: t.slice(at, valueEnd) });
    } else raw = t.slice(at, valueEnd);
    this.cursor = next;
    this.nodeEnd = next;
    const value = plainValue(raw);
    if (description && typeof value === 'string') this.descriptions.push([at, valueEnd]);
    return new ScalarNode(this.source, at, link, value, false);
  }

  /**
   * The closing quote of the quoted scalar at `at`, or -1 when `sameLine` and it is not on the
   * first line. Lines it continues on must be indented (the full parser judges any other).
   */
  private closingQuote(at: number, sameLine: boolean, parentIndent = -1): number {
    const t = this.text;
    const q = t.charCodeAt(at);
    for (let i = at + 1; i < this.len; i++) {
      const c = t.charCodeAt(i);
      if (c === q) {
        if (q === SQUOTE && t.charCodeAt(i + 1) === SQUOTE) i++;
        else return i;
      } else if (c === BACKSLASH && q === DQUOTE) i++;
      else if (c === NL) {
        if (sameLine) return -1;
        let j = i + 1;
        while (t.charCodeAt(j) === SPACE) j++;
        const n = t.charCodeAt(j);
        if (n === TAB) unsupported();
        if (n !== NL && j < this.len && j - (i + 1) <= parentIndent) unsupported();
        if (j - (i + 1) === 0 && (this.marker(j, DASH) || this.marker(j, 46))) unsupported();
      }
    }
    return unsupported();
  }

  private quoted(at: number, parentIndent: number, link: DocLink, description: boolean): ScalarNode {
    const close = this.closingQuote(at, false, parentIndent);
    const value = this.quotedText(at, close, parentIndent);
    this.afterValue(close + 1);
    if (description) this.descriptions.push([at, close + 1]);
    return new ScalarNode(this.source, at, link, value, true);
  }

  /** The value of the quoted scalar from `at` to its closing quote `close`: escapes and folding by the package. */
  private quotedText(at: number, close: number, indent = 0): string {
    const t = this.text;
    const double = t.charCodeAt(at) === DQUOTE;
    const inner = t.slice(at + 1, close);
    if (!inner.includes('\n') && !inner.includes(double ? '\\' : "'")) return inner;
    const type = double ? 'double-quoted-scalar' : 'single-quoted-scalar';
    return resolveToken({ type, offset: at, indent, source: t.slice(at, close + 1) });
  }

  /** A key's value: a plain scalar resolved by the core schema, or a one-line quoted string. */
  private keyValue(at: number, colon: number): ScalarValue {
    const t = this.text;
    const c = t.charCodeAt(at);
    if (c === DQUOTE || c === SQUOTE) return this.quotedText(at, this.closingQuote(at, true));
    return plainValue(t.slice(at, trimEnd(t, at, colon)));
  }

  /** `|` or `>` (with `-` or no chomping indicator), its content more indented than the parent. */
  private blockScalar(at: number, parentIndent: number, link: DocLink, description: boolean): ScalarNode {
    const t = this.text;
    let h = at + 1;
    if (t.charCodeAt(h) === DASH) h++;
    const header = t.slice(at, h);
    let i = h;
    while (t.charCodeAt(i) === SPACE) i++;
    const c = t.charCodeAt(i);
    if (i < this.len && c !== NL && !(c === HASH && i > h)) unsupported(); // `+`, an indentation digit, text
    const props: CST.SourceToken[] = [
      { type: 'block-scalar-header', offset: at, indent: parentIndent, source: header },
    ];
    const headerEnd = this.lineEnd(i);
    if (headerEnd > h) props.push({ type: 'space', offset: h, indent: parentIndent, source: t.slice(h, headerEnd) });
    props.push({ type: 'newline', offset: headerEnd, indent: parentIndent, source: '\n' });
    const start = Math.min(this.len, headerEnd + 1);
    let contentIndent = -1;
    let contentEnd = start;
    for (let r = start; r < this.len;) {
      let j = r;
      while (t.charCodeAt(j) === SPACE) j++;
      const n = j - r;
      const ch = t.charCodeAt(j);
      if (j >= this.len) break;
      if (ch === NL) {
        if (contentIndent < 0) unsupported(); // leading empty lines: the full parser weighs their indentation
        r = j + 1;
        continue;
      }
      if (contentIndent < 0) {
        if (n <= parentIndent || ch === TAB) unsupported(); // an empty block scalar
        contentIndent = n;
      } else if (n < contentIndent) {
        if (n > parentIndent || ch === TAB) unsupported();
        break;
      }
      contentEnd = this.nextLine(j);
      r = contentEnd;
    }
    if (contentIndent < 0) unsupported();
    const source = t.slice(start, contentEnd);
    const value = resolveToken({ type: 'block-scalar', offset: at, indent: parentIndent, props, source });
    this.cursor = contentEnd;
    this.nodeEnd = contentEnd;
    if (description) this.descriptions.push([at, contentEnd]);
    return new ScalarNode(this.source, at, link, value, false);
  }
}

/** `end` moved back over spaces and tabs, not before `from`. */
function trimEnd(t: string, from: number, end: number): number {
  while (end > from && (t.charCodeAt(end - 1) === SPACE || t.charCodeAt(end - 1) === TAB)) end--;
  return end;
}

/** A CST scalar token's value, by the package's own resolver; any error it reports leaves the fast path. */
function resolveToken(token: CST.FlowScalar | CST.BlockScalar): string {
  const resolved = CST.resolveAsScalar(token, true, () => unsupported());
  return resolved ? resolved.value : unsupported();
}

/** A plain scalar's value under the core schema, as `composeScalar` resolves it. */
function plainValue(raw: string): ScalarValue {
  if (raw.length > 0 && !TYPED_START.has(raw.charCodeAt(0))) return raw;
  for (const tag of PLAIN_TAGS) {
    if (!tag.test?.test(raw)) continue;
    const res: unknown = tag.resolve(raw, () => unsupported(), RESOLVE_OPTIONS);
    const value = isScalar(res) ? res.value : res;
    return value === undefined || value === null ? null : scalarOf(value);
  }
  return raw;
}

function scalarOf(value: unknown): ScalarValue {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return value;
  return unsupported();
}
