/**
 * Sources → CRD models, with duplicates resolved: the same CRD name twice is merged with a
 * note when the two documents are byte-identical, and is an error when they differ.
 */
import type { SourceText } from '../api.js';
import type { Diagnostic } from '../diagnostics.js';
import { buildCrd } from '../model/crd.js';
import type { CrdModel } from '../model/ir.js';
import { parseSource } from './parse.js';
import { asMap, get, str, type CrdNode } from './source.js';

export interface LoadResult {
  crds: CrdModel[];
  diagnostics: Diagnostic[];
}

export function loadSources(sources: readonly SourceText[]): LoadResult {
  const diagnostics: Diagnostic[] = [];
  // Only the text and position of each first CRD are kept: holding on to the YAML trees of a
  // whole corpus would multiply peak memory and garbage-collection time.
  const seen = new Map<string, { text: string; where: string }>();
  const crds: CrdModel[] = [];
  const ordered = [...sources].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  for (const source of ordered) {
    const parsed = parseSource(source);
    diagnostics.push(...parsed.diagnostics);
    for (const node of parsed.crds) {
      const name = crdName(node);
      const first = name === undefined ? undefined : seen.get(name);
      if (first && first.text === node.text) {
        diagnostics.push(node.source.diag('note', 'KG112', `duplicate of CRD ${name} from ${first.where} (identical, merged)`, node.node, node.pointer));
      } else if (first) {
        diagnostics.push(node.source.diag('error', 'KG113', `CRD ${name} is already defined differently at ${first.where}`, node.node, node.pointer));
      } else {
        const model = buildCrd(node, diagnostics);
        if (!model) continue;
        if (name !== undefined) seen.set(name, { text: node.text, where: where(node) });
        crds.push(model);
      }
    }
  }
  return { crds, diagnostics };
}

function where(node: CrdNode): string {
  const pos = node.source.nodePos(node.node);
  return `${pos.file}:${pos.line}:${pos.col}`;
}

function crdName(node: CrdNode): string | undefined {
  return str(get(asMap(get(node.node, 'metadata', node.doc)), 'name', node.doc));
}
