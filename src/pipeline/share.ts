/**
 * One share of a run: the same code in the main thread and in worker threads. `load` runs the
 * per-file stage over its files and keeps the models; `emit` runs the per-CRD stage over the
 * CRDs the run stage kept. A serial run is a run with one share.
 */
import type { GenerateOptions, SourceText } from '../api.js';
import type { CrdModel } from '../model/ir.js';
import type { StubTemplates } from '../stubs/templates.js';
import { emitCrds, type CrdDecision, type CrdStageOutput } from './crd-stage.js';
import { loadFile, type FileSummary } from './file-stage.js';

export interface EmitRequest {
  /** The kept CRDs as `fileIndex:nodeIndex` (numbered as in this share's `load` reply), in run order. */
  keep: { id: string; decision: CrdDecision }[];
  options: GenerateOptions;
  /** False when the run already has an error: handlers are resolved for their diagnostics only. */
  emit: boolean;
  /** The stub templates, read at the edge; undefined when stubs are off. */
  templates?: StubTemplates;
}

export class Share {
  private readonly models = new Map<string, CrdModel>();

  load(sources: readonly SourceText[]): FileSummary[] {
    return sources.map((source, fi) => {
      const loaded = loadFile(source);
      loaded.models.forEach((model, ni) => model && this.models.set(`${fi}:${ni}`, model));
      return loaded.summary;
    });
  }

  emit(request: EmitRequest): CrdStageOutput {
    const crds: CrdModel[] = [];
    for (const { id } of request.keep) {
      const model = this.models.get(id);
      if (!model) throw new Error(`kopfgen: share has no CRD ${id}`);
      crds.push(model);
    }
    this.models.clear();
    return emitCrds(
      crds,
      request.keep.map((k) => k.decision),
      request.options,
      request.emit,
      request.templates,
    );
  }
}
