/**
 * Source text → CRD nodes. Handles multi-document files, `kind: List` wrappers, Helm
 * templates (reported, never half-parsed) and malformed YAML (reported with its position).
 * Documents that are not CRDs are skipped with a note.
 */
import { isScalar, parseAllDocuments, visit, type Document, type YAMLError, type YAMLMap } from 'yaml';
import type { SourceText } from '../api.js';
import { pointerJoin, type Diagnostic } from '../diagnostics.js';
import { ParsedSource, asMap, asSeq, get, str, type CrdNode } from './yaml-source.js';

export const CRD_API_VERSIONS = ['apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1'];

export interface ParseResult {
  crds: CrdNode[];
  diagnostics: Diagnostic[];
}

export function parseSource(input: SourceText): ParseResult {
  const source = new ParsedSource(input.file, input.text);
  const diagnostics: Diagnostic[] = [];
  const docs = parseAllDocuments(input.text, { lineCounter: source.lineCounter, prettyErrors: false }) as Document.Parsed[];
  const helm = input.text.includes('{{') ? helmDirective(input.text, docs) : undefined;
  if (helm !== undefined) {
    const message = 'this looks like a Helm template ({{ ... }}); render it first (e.g. `helm template`) and pass the output';
    return { crds: [], diagnostics: [{ severity: 'error', code: 'KG105', message, pointer: '', ...source.pos(helm) }] };
  }
  const crds: CrdNode[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) {
      for (const e of doc.errors) diagnostics.push(yamlError(source, e));
      continue;
    }
    collectCrds(source, doc, diagnostics, crds);
  }
  if (crds.length === 0 && diagnostics.length === 0 && input.text.trim() === '') {
    diagnostics.push({ severity: 'warning', code: 'KG117', message: 'file is empty', pointer: '', file: input.file, line: 1, col: 1 });
  }
  return { crds, diagnostics };
}

/**
 * The offset of the first `{{ ... }}` that is template syntax rather than text. Text is a
 * `description` (descriptions of Go-template fields legitimately show `{{ .x }}`) or a
 * comment; anywhere else, quoted or not, it is a template directive.
 */
function helmDirective(text: string, docs: Document.Parsed[]): number | undefined {
  const descriptions: [number, number][] = [];
  for (const doc of docs) {
    visit(doc, {
      Pair(_key, pair) {
        const value = pair.value;
        if (isScalar(pair.key) && pair.key.value === 'description' && isScalar(value) && value.range && typeof value.value === 'string') {
          descriptions.push([value.range[0], value.range[1]]);
        }
      },
    });
  }
  const directive = /\{\{.*?\}\}/g;
  for (let m = directive.exec(text); m; m = directive.exec(text)) {
    const at = m.index;
    if (descriptions.some(([from, to]) => at >= from && at < to)) continue;
    const lineStart = text.lastIndexOf('\n', at) + 1;
    if (/(^|\s)#/.test(text.slice(lineStart, at))) continue; // a comment
    return at;
  }
  return undefined;
}

function collectCrds(source: ParsedSource, doc: Document.Parsed, diagnostics: Diagnostic[], out: CrdNode[]): void {
  const root = asMap(doc.contents ?? undefined);
  if (!doc.contents) return; // an empty document between `---` separators
  if (!root) {
    diagnostics.push(source.diag('note', 'KG106', 'skipped a document that is not a mapping', doc.contents, ''));
    return;
  }
  const kind = str(get(root, 'kind', doc));
  if (kind === 'List' || (kind?.endsWith('List') && asSeq(get(root, 'items', doc)))) {
    const items = asSeq(get(root, 'items', doc));
    items?.items.forEach((item, i) => {
      const map = asMap(item as never);
      const pointer = pointerJoin('', 'items', i);
      if (map && isCrd(map, doc)) out.push(crdNode(source, doc, map, pointer));
      else diagnostics.push(skipNote(source, doc, map, item as import("yaml").Node, pointer));
    });
    return;
  }
  if (isCrd(root, doc)) out.push(crdNode(source, doc, root, ''));
  else diagnostics.push(skipNote(source, doc, root, root, ''));
}

function isCrd(map: ReturnType<typeof asMap>, doc: Document.Parsed): boolean {
  return str(get(map, 'kind', doc)) === 'CustomResourceDefinition' && (str(get(map, 'apiVersion', doc)) ?? '').startsWith('apiextensions.k8s.io/');
}

function crdNode(source: ParsedSource, doc: Document.Parsed, node: NonNullable<ReturnType<typeof asMap>>, pointer: string): CrdNode {
  const range = node.range ?? [0, 0, 0];
  const text = source.text.slice(range[0], range[1]);
  return { source, doc, node, pointer, text, name: crdName(doc, node), pos: source.nodePos(node) };
}

/** `metadata.name`, or `<plural>.<group>` as the API server would require it to be. */
function crdName(doc: Document.Parsed, node: YAMLMap): string | undefined {
  const name = str(get(asMap(get(node, 'metadata', doc)), 'name', doc));
  if (name !== undefined) return name;
  const spec = asMap(get(node, 'spec', doc));
  const plural = str(get(asMap(get(spec, 'names', doc)), 'plural', doc));
  const group = str(get(spec, 'group', doc));
  return plural && group ? `${plural}.${group}` : undefined;
}

function skipNote(source: ParsedSource, doc: Document.Parsed, map: ReturnType<typeof asMap>, node: import("yaml").Node | undefined, pointer: string): Diagnostic {
  const kind = str(get(map, 'kind', doc));
  const apiVersion = str(get(map, 'apiVersion', doc));
  const what = kind ? `${apiVersion ?? '?'} ${kind}` : 'a document without kind';
  return source.diag('note', 'KG106', `skipped ${what}: not a CustomResourceDefinition`, node, pointer);
}

function yamlError(source: ParsedSource, e: YAMLError): Diagnostic {
  const first = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  return { severity: 'error', code: 'KG104', message: `malformed YAML: ${first} (${e.code})`, pointer: '', ...source.pos(e.pos[0]) };
}
