/**
 * CRD models of source texts, as the per-file stage builds them and the run stage keeps them
 * (files in path order, the first CRD of a name kept): for tests of the model passes.
 */
import type { SourceText } from '../../src/api.js';
import type { Diagnostic } from '../../src/diagnostics.js';
import type { CrdModel } from '../../src/model/ir.js';
import { loadFile } from '../../src/pipeline/file-stage.js';
import { sortSources } from '../../src/pipeline/run-stage.js';

export function loadModels(sources: readonly SourceText[]): { crds: CrdModel[]; diagnostics: Diagnostic[] } {
  const crds: CrdModel[] = [];
  const diagnostics: Diagnostic[] = [];
  const names = new Set<string>();
  for (const source of sortSources(sources)) {
    const { summary, models } = loadFile(source);
    diagnostics.push(...summary.diagnostics);
    summary.nodes.forEach((node, i) => {
      if (node.identity.name !== undefined && names.has(node.identity.name)) return;
      diagnostics.push(...node.diagnostics);
      const model = models[i];
      if (!model) return;
      if (node.identity.name !== undefined) names.add(node.identity.name);
      crds.push(model);
    });
  }
  return { crds, diagnostics };
}
