/**
 * Source text → CRD documents (positioned document trees, `doc-tree.ts`). Handles multi-document
 * files, `kind: List` wrappers, JSON (a CRD, a List or an array of CRDs: JSON is YAML 1.2, and
 * the `yaml` package gives its nodes the same offsets), Helm templates (reported, never half-parsed) and malformed YAML
 * (reported with its position, duplicate keys included). Documents that are not CRDs are skipped
 * with a note.
 *
 * Two readers, one result: the fast reader (`block-reader.ts`) takes the block-style YAML real
 * CRDs are written in; whatever it does not take (or may be a Helm template) is read by the
 * `yaml` package's full parser (`yaml-tree.ts`), which also decides every diagnostic of
 * malformed input. Both give the same trees (tested on the shared corpus).
 */
import { isScalar, parseAllDocuments, visit, type Document, type YAMLError } from 'yaml';
import type { SourceText } from '../api.js';
import { pointerJoin, type Diagnostic } from '../diagnostics.js';
import { readBlockYaml, type BlockDocuments, type Stop } from './block-reader.js';
import { jsonSyntaxError } from './json-syntax.js';
import type { CrdDocument, DocMap, DocNode } from './doc-tree.js';
import { ParsedSource } from './yaml-source.js';
import { documentTree, MAX_DEPTH, type TreeLimit } from './yaml-tree.js';
import { yaml11KeyDiagnostics } from './yaml11-keys.js';

export interface ParseResult {
  crds: CrdDocument[];
  diagnostics: Diagnostic[];
}

export function parseSource(input: SourceText): ParseResult {
  const source = new ParsedSource(input.file, input.text);
  const read = readBlockYaml(source, input.text);
  if (read && 'roots' in read) return fromFast(input, source, read) ?? parseFull(input);
  return (read && parseTail(input, source, read)) ?? parseFull(input);
}

/**
 * `parseSource` a document at a time: each CRD document goes to `onCrd` as soon as it is read,
 * and the file's own diagnostics are returned. A multi-document file (a release bundle of a
 * hundred CRDs) then never has all its trees at once: read whole, a 5 MB bundle's trees took
 * 20 MB beside its models. Where the fast reader does not read the file through (or the text may
 * be a Helm template, which needs the whole file read first), `onReset` says to discard the
 * documents handed over so far, and `parseSource` reads the file and hands them over again.
 */
export function parseSourceEach(
  input: SourceText,
  onCrd: (crd: CrdDocument) => void,
  onReset: () => void,
): Diagnostic[] {
  const source = new ParsedSource(input.file, input.text);
  const diagnostics: Diagnostic[] = [];
  let count = 0;
  const sink = {
    push: (crd: CrdDocument) => {
      count++;
      onCrd(crd);
    },
  };
  const read = readBlockYaml(source, input.text, (root) => collectCrds(source, input.text, root, diagnostics, sink));
  // As `fromFast`: a `{{ }}` outside descriptions and comments is a template, read by the full parser.
  const helm = (docs: BlockDocuments) =>
    input.text.includes('{{') && helmDirective(input.text, docs.descriptions) !== undefined;
  if (read && 'roots' in read && !helm(read)) return withEmptyFile(input, count, diagnostics);
  if (count > 0) onReset();
  const parsed = parseSource(input);
  for (const crd of parsed.crds) onCrd(crd);
  return parsed.diagnostics;
}

/** The fast reader's result, or undefined when the text is beyond it (or holds a `{{ }}` outside descriptions). */
export function parseFast(input: SourceText): ParseResult | undefined {
  const source = new ParsedSource(input.file, input.text);
  const read = readBlockYaml(source, input.text);
  return read && 'roots' in read ? fromFast(input, source, read) : undefined;
}

function fromFast(input: SourceText, source: ParsedSource, read: BlockDocuments): ParseResult | undefined {
  if (input.text.includes('{{') && helmDirective(input.text, read.descriptions) !== undefined) return undefined;
  const diagnostics: Diagnostic[] = [];
  const crds: CrdDocument[] = [];
  for (const root of read.roots) collectCrds(source, input.text, root, diagnostics, crds);
  return finish(input, crds, diagnostics);
}

/** What the `yaml` package reads of the text after a stop: at most this much… */
const TAIL_WINDOW = 65_536;
/** …of which errors in the last part are not trusted (a cut through a quoted or flow scalar). */
const TAIL_MARGIN = 16_384;
/** The entry before the stop is read as written up to this size (else a one-line stand-in). */
const PREV_COPY = 65_536;

/**
 * Where the fast reader stopped (`Stop`), the `yaml` package reads a skeleton of the block
 * collections open there (one line each) followed by the text from the innermost one's current
 * entry on, instead of the whole file. Everything before that entry was within the fast reader's
 * subset, where the package finds nothing to report, and the package's view of the rest depends
 * only on those collections: so its errors there are the file's, at their offsets in the file.
 * It reads at most TAIL_WINDOW of the rest, so a malformed 50 MB file costs its fast read and a
 * window (re-reading it whole with the package's full parser and its error recovery cost 4x the
 * memory of reading it when valid, and millions of errors: `npm run bench`). When the window holds
 * no error, the stop was at a construct beyond the fast reader, not at a mistake: undefined, and
 * the full parser reads the file as before.
 */
function parseTail(input: SourceText, source: ParsedSource, stop: Stop): ParseResult | undefined {
  const text = input.text;
  if (text.includes('{{')) return undefined; // a Helm template is the full parser's to name
  const innermost = stop.open[stop.open.length - 1];
  const from = lineStart(text, innermost.entry);
  // A collection that starts on that line or after is opened by the tail itself; one whose
  // current entry starts there has an entry before it, which the read begins with (as written,
  // when it is short: what the package makes of the next line can depend on it).
  const outer = stop.open.filter((o) => o.start < from && o.entry < from);
  const skeleton = outer.map((o) => `${' '.repeat(o.col)}${o.kind === 'map' ? 'k:' : '-'}\n`).join('');
  const last = stop.open.find((o) => o.start < from && o.entry >= from);
  const prev = last?.prev;
  // Copied only where it starts its own line (not after a parent's `- `) and is short.
  const copy = prev !== undefined && from - prev <= PREV_COPY && prev - lineStart(text, prev) === last?.col;
  const head = last === undefined || copy ? '' : standIn(text, last.kind, last.col, prev);
  const start = copy ? lineStart(text, prev) : from;
  const windowEnd = from + TAIL_WINDOW >= text.length ? text.length : text.lastIndexOf('\n', from + TAIL_WINDOW) + 1;
  if (windowEnd <= from) return undefined;
  const trusted = windowEnd === text.length ? windowEnd : windowEnd - TAIL_MARGIN;
  const prefix = skeleton + head;
  const docs = parseAllDocuments(prefix + text.slice(start, windowEnd), { prettyErrors: false, uniqueKeys: false });
  const errors = docs
    .flatMap((d) => d.errors)
    .map((e) => ({ ...e, at: e.pos[0] - prefix.length + start }))
    .sort((a, b) => a.at - b.at);
  if (errors.length === 0 || errors[0].at < start || errors[0].at >= trusted) return undefined;
  const format = isJson(input) ? 'JSON' : 'YAML';
  const diagnostics: Diagnostic[] = [];
  const crds: CrdDocument[] = [];
  for (const root of stop.done) collectCrds(source, text, root, diagnostics, crds);
  const first = firstLine(
    source,
    errors.map((e) => ({ ...e, pos: [e.at, e.at] as [number, number] })),
  );
  for (const e of first) diagnostics.push(yamlError(source, e, format));
  if (first.length < errors.length || windowEnd < text.length)
    diagnostics.push(moreErrors(source, first[0].pos[0], format));
  return { crds, diagnostics };
}

/**
 * One line (or two) standing for a long entry before the stop: a scalar value, or a block
 * collection under the key (what the package makes of the next line depends on which).
 */
function standIn(text: string, kind: 'map' | 'seq', col: number, prev: number | undefined): string {
  const pad = ' '.repeat(col);
  const key = kind === 'map' ? 'k:' : '-';
  if (prev === undefined) return `${pad}${key} 0\n`;
  const end = text.indexOf('\n', prev);
  const line = text
    .slice(prev, end < 0 ? text.length : end)
    .replace(/\s+#.*$/, '')
    .trimEnd();
  const block = kind === 'map' ? line.endsWith(':') : line === '-';
  if (!block) return `${pad}${key} 0\n`;
  const next = /^ *(\S)/m.exec(text.slice(end + 1, end + 4096));
  return `${pad}${key}\n${pad}  ${next?.[1] === '-' ? '- 0' : 'x: 0'}\n`;
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/**
 * The errors on the line of the first one: what the parser says where the document stops being
 * YAML. What it reports after that is its recovery, which depends on how it resynchronised (a
 * stray `]` halfway through a 50 MB file made it report an error per token after it, 1.6 million,
 * and the run fail with a stack overflow); a note says that the rest is not listed.
 */
function firstLine<E extends Pick<YAMLError, 'code' | 'message' | 'pos'>>(source: ParsedSource, errors: E[]): E[] {
  const sorted = [...errors].sort((a, b) => a.pos[0] - b.pos[0]);
  const line = source.pos(sorted[0].pos[0]).line;
  return sorted.filter((e) => source.pos(e.pos[0]).line === line);
}

/** A note after the errors listed: the parser's view of the rest is not listed. */
function moreErrors(source: ParsedSource, at: number, format: 'YAML' | 'JSON'): Diagnostic {
  const message = `the ${format} is malformed from here on; what the parser makes of the rest is not listed: fix this and run again`;
  return { severity: 'note', code: 'KG104', message, pointer: '', ...source.pos(at) };
}

/** The `yaml` package's full parser: any YAML, every error reported. */
export function parseFull(input: SourceText): ParseResult {
  const source = new ParsedSource(input.file, input.text);
  const diagnostics: Diagnostic[] = [];
  const options = { lineCounter: source.lineCounter, prettyErrors: false, uniqueKeys: false };
  const docs = parseAllDocuments(input.text, options) as Document.Parsed[];
  const helm = input.text.includes('{{') ? helmDirective(input.text, descriptionRanges(docs)) : undefined;
  if (helm !== undefined) {
    const message =
      'this looks like a Helm template ({{ ... }}); render it first (e.g. `helm template`) and pass the output';
    return { crds: [], diagnostics: [{ severity: 'error', code: 'KG105', message, pointer: '', ...source.pos(helm) }] };
  }
  const crds: CrdDocument[] = [];
  const format = isJson(input) ? 'JSON' : 'YAML';
  // A `.json` file must be JSON, also where YAML (a superset) would read it (`{"a": 1,}`).
  const strict = /\.json$/i.test(input.file) || docs.some((d) => d.errors.length > 0);
  const json = format === 'JSON' && strict ? jsonSyntaxError(input.text) : undefined;
  if (json) {
    // JSON.parse's reason and position read better for JSON than the YAML parser's view of it.
    const message = `malformed JSON: ${json.message}`;
    return {
      crds,
      diagnostics: [{ severity: 'error', code: 'KG104', message, pointer: '', ...source.pos(json.offset) }],
    };
  }
  for (const doc of docs) {
    if (doc.errors.length > 0) {
      // Where the document stops being YAML; not read further (what the parser's recovery made
      // of the rest, duplicate keys included, is no finding of the user's).
      const first = firstLine(source, doc.errors);
      for (const e of first) diagnostics.push(yamlError(source, e, format));
      if (first.length < doc.errors.length) diagnostics.push(moreErrors(source, first[0].pos[0], format));
      continue;
    }
    const tree = documentTree(source, doc);
    if (tree.duplicates.length > 0 || tree.limit) {
      for (const d of tree.duplicates) diagnostics.push(duplicateKey(source, d.offset, format));
      if (tree.limit) diagnostics.push(treeLimit(source, tree.limit));
      continue;
    }
    if (!doc.contents) continue; // an empty document between `---` separators
    collectCrds(source, input.text, tree.root, diagnostics, crds);
  }
  return finish(input, crds, diagnostics);
}

/**
 * A `.json` file, or a text without a YAML extension that starts like JSON (standard input, a
 * CRD read from a cluster): its syntax errors are JSON's, in JSON's words.
 */
function isJson(input: SourceText): boolean {
  if (/\.json$/i.test(input.file)) return true;
  return !/\.ya?ml$/i.test(input.file) && /^\s*[[{]/.test(input.text.slice(0, 1024));
}

/** KG117 for a file with nothing in it. */
function finish(input: SourceText, crds: CrdDocument[], diagnostics: Diagnostic[]): ParseResult {
  return { crds, diagnostics: withEmptyFile(input, crds.length, diagnostics) };
}

/** The file's diagnostics, with KG117 when it holds nothing (no CRD, nothing else said, only white space). */
function withEmptyFile(input: SourceText, crds: number, diagnostics: Diagnostic[]): Diagnostic[] {
  if (crds === 0 && diagnostics.length === 0 && input.text.trim() === '') {
    diagnostics.push({
      severity: 'warning',
      code: 'KG117',
      message: 'file is empty',
      pointer: '',
      file: input.file,
      line: 1,
      col: 1,
    });
  }
  return diagnostics;
}

/** `[start, end)` of every string value of a `description` key. */
function descriptionRanges(docs: Document.Parsed[]): [number, number][] {
  const descriptions: [number, number][] = [];
  for (const doc of docs) {
    visit(doc, {
      Pair(_key, pair) {
        const value = pair.value;
        if (
          isScalar(pair.key) &&
          pair.key.value === 'description' &&
          isScalar(value) &&
          value.range &&
          typeof value.value === 'string'
        ) {
          descriptions.push([value.range[0], value.range[1]]);
        }
      },
    });
  }
  return descriptions;
}

/**
 * The offset of the first `{{ ... }}` that is template syntax rather than text. Text is a
 * `description` (descriptions of Go-template fields legitimately show `{{ .x }}`) or a
 * comment; anywhere else, quoted or not, it is a template directive.
 */
function helmDirective(text: string, descriptions: [number, number][]): number | undefined {
  const directive = /\{\{.*?\}\}/g;
  // Both in text order: the description that could hold a match is found by walking forward once.
  const ordered = [...descriptions].sort((a, b) => a[0] - b[0]);
  let d = 0;
  for (let m = directive.exec(text); m; m = directive.exec(text)) {
    const at = m.index;
    while (d < ordered.length && ordered[d][1] <= at) d++;
    if (d < ordered.length && ordered[d][0] <= at) continue;
    const lineStart = text.lastIndexOf('\n', at) + 1;
    if (/(^|\s)#/.test(text.slice(lineStart, at))) continue; // a comment
    return at;
  }
  return undefined;
}

function collectCrds(
  source: ParsedSource,
  text: string,
  root: DocNode | undefined,
  diagnostics: Diagnostic[],
  out: { push(crd: CrdDocument): unknown },
): void {
  if (root?.kind === 'seq') {
    // A JSON array of CRDs (what `jq -s` or a script writes): read as the items of a List.
    root.items.forEach((item, i) => {
      const pointer = pointerJoin('', i);
      if (item?.kind === 'map' && isCrd(item)) {
        diagnostics.push(...yaml11KeyDiagnostics(item, text));
        out.push(crdDocument(source, text, item, pointer));
      } else diagnostics.push(skipNote(source, item, pointer));
    });
    return;
  }
  if (root?.kind !== 'map') {
    diagnostics.push(note(source, 'skipped a document that is not a mapping', root, ''));
    return;
  }
  const kind = str(root.get('kind'));
  const items = root.get('items');
  if (kind === 'List' || (kind?.endsWith('List') && items?.kind === 'seq')) {
    if (items?.kind !== 'seq') return;
    items.items.forEach((item, i) => {
      const pointer = pointerJoin('', 'items', i);
      if (item?.kind === 'map' && isCrd(item)) {
        diagnostics.push(...yaml11KeyDiagnostics(item, text));
        out.push(crdDocument(source, text, item, pointer));
      } else diagnostics.push(skipNote(source, item, pointer));
    });
    return;
  }
  if (isCrd(root)) {
    diagnostics.push(...yaml11KeyDiagnostics(root, text));
    out.push(crdDocument(source, text, root, ''));
  } else diagnostics.push(skipNote(source, root, ''));
}

function isCrd(map: DocMap): boolean {
  const apiVersion = str(map.get('apiVersion')) ?? '';
  return str(map.get('kind')) === 'CustomResourceDefinition' && apiVersion.startsWith('apiextensions.k8s.io/');
}

function crdDocument(source: ParsedSource, text: string, node: DocMap, pointer: string): CrdDocument {
  return { source, node, pointer, text: text.slice(node.offset, node.end), name: crdName(node), pos: node.pos };
}

/** `metadata.name`, or `<plural>.<group>` as the API server would require it to be. */
function crdName(node: DocMap): string | undefined {
  const metadata = node.get('metadata');
  const name = metadata?.kind === 'map' ? str(metadata.get('name')) : undefined;
  if (name !== undefined) return name;
  const spec = node.get('spec');
  if (spec?.kind !== 'map') return undefined;
  const names = spec.get('names');
  const plural = names?.kind === 'map' ? str(names.get('plural')) : undefined;
  const group = str(spec.get('group'));
  return plural && group ? `${plural}.${group}` : undefined;
}

function str(node: DocNode | undefined): string | undefined {
  if (node?.kind !== 'scalar') return undefined;
  const v = node.value;
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
}

function skipNote(source: ParsedSource, node: DocNode | undefined, pointer: string): Diagnostic {
  const kind = node?.kind === 'map' ? str(node.get('kind')) : undefined;
  const apiVersion = node?.kind === 'map' ? str(node.get('apiVersion')) : undefined;
  const what = kind ? `${apiVersion ?? '?'} ${kind}` : 'a document without kind';
  return note(source, `skipped ${what}: not a CustomResourceDefinition`, node, pointer);
}

function note(source: ParsedSource, message: string, node: DocNode | undefined, pointer: string): Diagnostic {
  return { severity: 'note', code: 'KG106', message, pointer, ...source.pos(node ? node.offset : 0) };
}

/** KG140 (nesting) or KG141 (aliases): the document is not read, so nothing downstream recurses without bound. */
function treeLimit(source: ParsedSource, limit: TreeLimit): Diagnostic {
  return {
    severity: 'error',
    code: limit.kind === 'depth' ? 'KG140' : 'KG141',
    message: limit.message,
    pointer: '',
    ...source.pos(limit.offset),
  };
}

/** The parser's own resource limit (its recursion gave out) is KG140 like ours, not "malformed YAML". */
function yamlError(
  source: ParsedSource,
  e: Pick<YAMLError, 'code' | 'message' | 'pos'>,
  format: 'YAML' | 'JSON',
): Diagnostic {
  if (e.code === 'RESOURCE_EXHAUSTION') {
    const message = `nesting too deep for the YAML parser here; kopfgen reads CRDs up to ${MAX_DEPTH} levels`;
    return { severity: 'error', code: 'KG140', message, pointer: '', ...source.pos(e.pos[0]) };
  }
  const first = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  return {
    severity: 'error',
    code: 'KG104',
    message: `malformed ${format}: ${first} (${e.code})`,
    pointer: '',
    ...source.pos(e.pos[0]),
  };
}

/** The `yaml` package's DUPLICATE_KEY error, as it would have reported it. */
function duplicateKey(source: ParsedSource, offset: number, format: 'YAML' | 'JSON'): Diagnostic {
  const message = `malformed ${format}: Map keys must be unique (DUPLICATE_KEY)`;
  return { severity: 'error', code: 'KG104', message, pointer: '', ...source.pos(offset) };
}
