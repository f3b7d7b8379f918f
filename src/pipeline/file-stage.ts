/**
 * The per-file stage: one source text → its CRD models and a small summary of them. The
 * summary (identity, the names run-wide decisions need, diagnostics) is all that leaves the
 * thread that ran this stage; the models stay where they were built until the per-CRD stage.
 */
import { createHash } from 'node:crypto';
import type { SourceText } from '../api.js';
import type { Diagnostic, SourcePos } from '../diagnostics.js';
import { parseSourceEach } from '../load/parse-yaml.js';
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

/**
 * Parses and models one file a document at a time: each CRD's model goes to `onModel` (with its
 * index among the file's CRD documents) as soon as it is built, and its document's tree is let go
 * before the next document is read, so a bundle of a hundred CRDs never holds a hundred trees.
 * `onReset`: the reader started over (see `parseSourceEach`); the models handed over so far are
 * handed over again.
 */
export function summariseFile(
  source: SourceText,
  onModel: (node: number, model: CrdModel) => void,
  onReset: () => void = () => undefined,
): FileSummary {
  let nodes: NodeSummary[] = [];
  const diagnostics = parseSourceEach(
    source,
    (node) => {
      // A hash rather than the text: summaries cross threads, and only equality matters.
      const key = createHash('sha1').update(node.text).digest('base64');
      const identity: CrdIdentity = { name: node.name, key, pos: node.pos, pointer: node.pointer };
      const found: Diagnostic[] = [];
      const model = buildCrd(node, found);
      const index = nodes.length;
      if (!model) return void nodes.push({ identity, diagnostics: found });
      const built = { name: model.name, kind: model.kind, group: model.group, plural: model.plural };
      nodes.push({ identity, built, diagnostics: found });
      onModel(index, model);
    },
    () => {
      nodes = [];
      onReset();
    },
  );
  return { file: source.file, diagnostics, nodes };
}

/**
 * The models alone, as `summariseFile` hands them over (the same indexes), for a file read again to
 * emit it: its summary is known, so neither the identity hash nor the diagnostics are made again.
 */
export function modelFile(
  source: SourceText,
  onModel: (node: number, model: CrdModel) => void,
  onReset: () => void,
): void {
  let index = 0;
  parseSourceEach(
    source,
    (node) => {
      const model = buildCrd(node, []);
      if (model) onModel(index, model);
      index++;
    },
    () => {
      index = 0;
      onReset();
    },
  );
}

/** `summariseFile` keeping every model, in the order of the summary's nodes. */
export function loadFile(source: SourceText): LoadedFile {
  let models: (CrdModel | undefined)[] = [];
  const summary = summariseFile(
    source,
    (node, model) => (models[node] = model),
    () => (models = []),
  );
  return { summary, models: summary.nodes.map((_, i) => models[i]) };
}
