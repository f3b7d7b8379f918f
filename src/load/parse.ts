/**
 * Source text → CRD nodes. Handles multi-document files, `kind: List` wrappers, Helm
 * templates (reported, never half-parsed) and malformed YAML (reported with its position).
 * Documents that are not CRDs are skipped with a note.
 */
import { parseAllDocuments, type Document, type YAMLError } from 'yaml';
import type { SourceText } from '../api.js';
import { pointerJoin, type Diagnostic } from '../diagnostics.js';
import { ParsedSource, asMap, asSeq, get, str, type CrdNode } from './source.js';

export const CRD_API_VERSIONS = ['apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1'];

/**
 * A Helm directive on a line of its own (`{{- if ... }}`) or an unquoted `{{ ... }}` value.
 * Quoted or block-scalar text that merely mentions `{{` (Go templates in descriptions) does not match.
 */
const HELM_LINE = /^[ \t]*(?:-[ \t]+)?(?:[\w.-]+:[ \t]+)?\{\{.*\}\}[ \t]*$/m;

export interface ParseResult {
  crds: CrdNode[];
  diagnostics: Diagnostic[];
}

export function parseSource(input: SourceText): ParseResult {
  const source = new ParsedSource(input.file, input.text);
  const diagnostics: Diagnostic[] = [];
  const helm = input.text.includes('{{') ? HELM_LINE.exec(input.text) : null;
  if (helm) {
    const at = helm.index + (helm[0].indexOf('{{'));
    diagnostics.push({
      severity: 'error',
      code: 'KG105',
      message: 'this looks like a Helm template ({{ ... }}); render it first (e.g. `helm template`) and pass the output',
      pointer: '',
      ...posOf(input.text, at, input.file),
    });
    return { crds: [], diagnostics };
  }
  const docs = parseAllDocuments(input.text, { lineCounter: source.lineCounter, prettyErrors: false });
  const crds: CrdNode[] = [];
  for (const doc of docs as Document.Parsed[]) {
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
  return { source, doc, node, pointer, text: source.text.slice(range[0], range[1]) };
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

function posOf(text: string, offset: number, file: string): { file: string; line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { file, line, col: offset - lineStart + 1 };
}
