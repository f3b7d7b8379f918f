/**
 * The per-file stage: one source text → its CRD models and a small summary of them. The
 * summary (identity, the names run-wide decisions need, diagnostics) is all that leaves the
 * thread that ran this stage; the models stay where they were built until the per-CRD stage.
 */
import { createHash } from 'node:crypto';
import type { SourceText } from '../api.js';
import type { Diagnostic, SourcePos } from '../diagnostics.js';
import { parseSource } from '../load/parse-yaml.js';
import { buildCrd } from '../model/build-crd.js';
import type { CrdModel } from '../model/ir.js';

/** What duplicate detection needs of a CRD: its name, a key equal for byte-identical texts, where it is. */
export interface CrdIdentity {
  name?: string;
  key: string;
  pos: SourcePos;
  pointer: string;
}

/** What run-wide decisions (prefixes, stub paths, configured kinds) need of a modelled CRD. */
export type CrdKey = Pick<CrdModel, 'name' | 'kind' | 'group' | 'plural'>;

export interface NodeSummary {
  identity: CrdIdentity;
  /** Present when the CRD could be modelled. */
  built?: CrdKey;
  diagnostics: Diagnostic[];
}

export interface FileSummary {
  file: string;
  diagnostics: Diagnostic[];
  nodes: NodeSummary[];
}

export interface LoadedFile {
  summary: FileSummary;
  /** The model of each node of `summary.nodes`, in the same order (undefined where it could not be built). */
  models: (CrdModel | undefined)[];
}

export function loadFile(source: SourceText): LoadedFile {
  const parsed = parseSource(source);
  const models: (CrdModel | undefined)[] = [];
  const nodes = parsed.crds.map((node): NodeSummary => {
    // A hash rather than the text: summaries cross threads, and only equality matters.
    const key = createHash('sha1').update(node.text).digest('base64');
    const identity: CrdIdentity = { name: node.name, key, pos: node.pos, pointer: node.pointer };
    const diagnostics: Diagnostic[] = [];
    const model = buildCrd(node, diagnostics);
    models.push(model);
    if (!model) return { identity, diagnostics };
    const built = { name: model.name, kind: model.kind, group: model.group, plural: model.plural };
    return { identity, built, diagnostics };
  });
  return { summary: { file: source.file, diagnostics: parsed.diagnostics, nodes }, models };
}
