/**
 * Sources → CRD models, with duplicates resolved: the same CRD name twice is merged with a
 * note when the two documents are byte-identical, and is an error when they differ.
 */
import type { SourceText } from '../api.js';
import type { Diagnostic, SourcePos } from '../diagnostics.js';
import { buildCrd } from '../model/build-crd.js';
import type { CrdModel } from '../model/ir.js';
import { parseSource } from './parse-yaml.js';
import { asMap, get, str, type CrdNode } from './yaml-source.js';

export interface LoadResult {
  crds: CrdModel[];
  diagnostics: Diagnostic[];
}

export function loadSources(sources: readonly SourceText[]): LoadResult {
  const diagnostics: Diagnostic[] = [];
  const dedupe = new Dedupe();
  const crds: CrdModel[] = [];
  for (const source of sortSources(sources)) {
    const parsed = parseSource(source);
    diagnostics.push(...parsed.diagnostics);
    for (const node of parsed.crds) {
      const identity = crdIdentity(node, node.text);
      const duplicate = dedupe.check(identity);
      if (duplicate) {
        diagnostics.push(duplicate);
        continue;
      }
      const model = buildCrd(node, diagnostics);
      if (!model) continue;
      dedupe.accept(identity);
      crds.push(model);
    }
  }
  return { crds, diagnostics };
}

export function sortSources(sources: readonly SourceText[]): SourceText[] {
  return [...sources].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** What duplicate detection needs of a CRD: its name, a key equal for byte-identical texts, where it is. */
export interface CrdIdentity {
  name?: string;
  key: string;
  pos: SourcePos;
  pointer: string;
}

export function crdIdentity(node: CrdNode, key: string): CrdIdentity {
  return { name: crdName(node), key, pos: node.source.nodePos(node.node), pointer: node.pointer };
}

/**
 * The same CRD name twice: merged with a note when byte-identical, an error otherwise. Only
 * keys and positions are kept: holding on to the YAML trees of a whole corpus would multiply
 * peak memory and garbage-collection time.
 */
export class Dedupe {
  private readonly seen = new Map<string, { key: string; where: string }>();

  check(id: CrdIdentity): Diagnostic | undefined {
    const first = id.name === undefined ? undefined : this.seen.get(id.name);
    if (!first) return undefined;
    const at = { file: id.pos.file, line: id.pos.line, col: id.pos.col, pointer: id.pointer };
    return first.key === id.key
      ? { severity: 'note', code: 'KG112', message: `duplicate of CRD ${id.name} from ${first.where} (identical, merged)`, ...at }
      : { severity: 'error', code: 'KG113', message: `CRD ${id.name} is already defined differently at ${first.where}`, ...at };
  }

  accept(id: CrdIdentity): void {
    if (id.name !== undefined) this.seen.set(id.name, { key: id.key, where: `${id.pos.file}:${id.pos.line}:${id.pos.col}` });
  }
}

/** `metadata.name`, or `<plural>.<group>` as the API server would require it to be. */
function crdName(node: CrdNode): string | undefined {
  const { doc } = node;
  const name = str(get(asMap(get(node.node, 'metadata', doc)), 'name', doc));
  if (name !== undefined) return name;
  const spec = asMap(get(node.node, 'spec', doc));
  const plural = str(get(asMap(get(spec, 'names', doc)), 'plural', doc));
  const group = str(get(spec, 'group', doc));
  return plural && group ? `${plural}.${group}` : undefined;
}
