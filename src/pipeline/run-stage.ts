/**
 * The run-wide stage, decided once over the summaries of every file in input order, however
 * the files were shared out: duplicates (KG112 identical and merged, KG113 conflicting), "no CRD
 * found" (KG103), configured kinds that match no CRD (KG207), type prefixes and stub paths.
 * After the per-CRD stage it only orders the outputs and counts them.
 */
import { sourceBytes, type GenerateOptions, type GenerateResult, type GeneratedFile, type SourceText } from '../api.js';
import { hasErrors, sortDiagnostics, type Diagnostic } from '../diagnostics.js';
import { unmatchedHandlerKeys } from '../model/handler-pass.js';
import { kindPrefixes } from '../model/naming.js';
import type { StubTemplates } from '../stubs/templates.js';
import type { CrdStageOutput } from './crd-stage.js';
import type { CrdIdentity, CrdKey, FileSummary } from './file-stage.js';
import type { EmitRequest } from './share.js';
import { targetOf, type CrdDecision } from './targets.js';

/** Input files in path order: the order every decision and every output follows. */
export function sortSources(sources: readonly SourceText[]): SourceText[] {
  return [...sources].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

export interface RunPlan {
  diagnostics: Diagnostic[];
  options: GenerateOptions;
  /** Kept CRDs, in run order. */
  crds: number;
  /** One per share, in share order. */
  requests: EmitRequest[];
}

/**
 * `assignment[share]` lists the indexes (into `ordered`) of the files that share loaded, in
 * order; `loaded[share]` holds their summaries.
 */
export function decideRun(
  ordered: readonly SourceText[],
  assignment: readonly number[][],
  loaded: readonly FileSummary[][],
  options: GenerateOptions,
  templates: StubTemplates | undefined,
): RunPlan {
  const byFile: { share: number; local: number; summary: FileSummary }[] = new Array(ordered.length);
  assignment.forEach((files, share) =>
    files.forEach((fi, local) => (byFile[fi] = { share, local, summary: loaded[share][local] })),
  );
  const diagnostics: Diagnostic[] = [];
  const dedupe = new Dedupe();
  const kept: { share: number; id: string; key: CrdKey }[] = [];
  for (const { share, local, summary } of byFile) {
    for (const d of summary.diagnostics) diagnostics.push(d); // not push(...): bad input may have 100,000s
    summary.nodes.forEach((node, ni) => {
      const duplicate = dedupe.check(node.identity);
      if (duplicate) return void diagnostics.push(duplicate);
      for (const d of node.diagnostics) diagnostics.push(d);
      if (!node.built) return;
      dedupe.accept(node.identity);
      kept.push({ share, id: `${local}:${ni}`, key: node.built });
    });
  }
  diagnostics.push(...noCrdFound(kept.length, ordered, diagnostics));
  diagnostics.push(
    ...unmatchedHandlerKeys(
      kept.map((k) => k.key),
      options,
    ),
  );
  const prefixes = kindPrefixes(kept.map((k) => k.key));
  const paths = targetOf(options).paths(kept.map((k) => k.key));
  const emit = !hasErrors(diagnostics);
  const requests = assignment.map((_, share): EmitRequest => {
    const mine = kept.filter((k) => k.share === share);
    const keep = mine.map((k) => ({ id: k.id, decision: decide(prefixes, paths, k.key) }));
    return { keep, options, emit, templates };
  });
  return { diagnostics, options, crds: kept.length, requests };
}

function decide(
  prefixes: Map<string, string>,
  paths: { stubPaths: Map<string, string>; groupDirs: Map<string, string> },
  key: CrdKey,
): CrdDecision {
  const prefix = prefixes.get(key.name);
  const stubPath = paths.stubPaths.get(key.name);
  const groupDir = paths.groupDirs.get(key.group);
  if (prefix === undefined || stubPath === undefined || groupDir === undefined)
    throw new Error(`kopfgen: no run-wide names for CRD ${key.name}`);
  return { prefix, stubPath, groupDir };
}

/** KG103 (at the first input by name) when the inputs hold no CRD and no error says why. */
function noCrdFound(found: number, sources: readonly SourceText[], diagnostics: readonly Diagnostic[]): Diagnostic[] {
  if (found > 0 || sources.length === 0 || hasErrors(diagnostics)) return [];
  const file = sources.reduce((a, b) => (b.file < a.file ? b : a)).file;
  const message = 'no CustomResourceDefinition found in the inputs';
  return [{ severity: 'error', code: 'KG103', message, file, line: 1, col: 1, pointer: '' }];
}

/**
 * The same CRD name twice: merged with a note when byte-identical, an error otherwise. Only
 * keys and positions are kept, never the documents.
 */
class Dedupe {
  private readonly seen = new Map<string, { key: string; where: string }>();

  check(id: CrdIdentity): Diagnostic | undefined {
    const first = id.name === undefined ? undefined : this.seen.get(id.name);
    if (!first) return undefined;
    const at = { file: id.pos.file, line: id.pos.line, col: id.pos.col, pointer: id.pointer };
    return first.key === id.key
      ? {
          severity: 'note',
          code: 'KG112',
          message: `duplicate of CRD ${id.name} from ${first.where} (identical, merged)`,
          ...at,
        }
      : {
          severity: 'error',
          code: 'KG113',
          message: `CRD ${id.name} is already defined differently at ${first.where}`,
          ...at,
        };
  }

  accept(id: CrdIdentity): void {
    if (id.name !== undefined)
      this.seen.set(id.name, { key: id.key, where: `${id.pos.file}:${id.pos.line}:${id.pos.col}` });
  }
}

/**
 * The run's result from the per-CRD outputs of every share: modules and the package files (`index.ts`, or `__init__.py` files and the shim) sorted by
 * path, then the stubs sorted by path. Nothing when any diagnostic is an error.
 */
export function assembleRun(
  plan: RunPlan,
  outputs: readonly CrdStageOutput[],
  sources: readonly SourceText[],
): GenerateResult {
  // KG211 (a CRD without handler ids) speaks only when the whole run has none to scaffold.
  const handled = outputs.some((o) => o.handlers > 0);
  const diagnostics = sortDiagnostics(
    [...plan.diagnostics, ...outputs.flatMap((o) => o.diagnostics)].filter((d) => !handled || d.code !== 'KG211'),
  );
  const bytesIn = sources.reduce((n, s) => n + sourceBytes(s), 0);
  const stats = { crds: plan.crds, versions: 0, handlers: 0, bytesIn, bytesOut: 0 };
  if (hasErrors(diagnostics)) return { files: [], diagnostics, stats };
  const modules = outputs.flatMap((o) => o.modules);
  const indexed = [...modules, ...outputs.flatMap((o) => o.conversions)];
  const files: GeneratedFile[] = indexed.map((m) => m.file);
  files.push(...outputs.flatMap((o) => o.data));
  files.push(...targetOf(plan.options).packageFiles(indexed));
  files.sort(byPath);
  files.push(...outputs.flatMap((o) => o.stubs).sort(byPath));
  stats.versions = modules.length;
  for (const o of outputs) stats.handlers += o.handlers;
  for (const f of files) stats.bytesOut += Buffer.byteLength(f.content);
  return { files, diagnostics, stats };
}

function byPath(a: GeneratedFile, b: GeneratedFile): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
