/**
 * One share of a parallel run, the same code in the main thread and in workers. `load` parses
 * and models its files and keeps the models; the main thread then decides duplicates and
 * run-wide prefixes from small summaries, and `emit` names and emits the kept CRDs. Only
 * summaries and generated text cross threads, never the YAML trees or schema models.
 */
import { createHash } from 'node:crypto';
import type { GenerateOptions, SourceText } from '../api.js';
import type { Diagnostic } from '../diagnostics.js';
import type { EmittedModule } from '../emit/module.js';
import { emitModules } from '../generate.js';
import { crdIdentity, type CrdIdentity } from '../load/load-sources.js';
import { parseSource } from '../load/parse-yaml.js';
import { buildCrd } from '../model/build-crd.js';
import { resolveHandlers } from '../model/handler-pass.js';
import type { CrdModel } from '../model/ir.js';
import { nameModels, type KindName } from '../model/naming.js';

export interface NodeSummary {
  identity: CrdIdentity;
  /** Present when the CRD could be modelled. */
  built?: KindName;
  diagnostics: Diagnostic[];
}

export interface FileSummary {
  file: string;
  diagnostics: Diagnostic[];
  nodes: NodeSummary[];
}

export interface EmitRequest {
  /** `fileIndex:nodeIndex` of the CRDs to emit, as numbered in this partition's `load` reply. */
  keep: string[];
  prefixes: [string, string][];
  options: GenerateOptions;
}

export interface EmitReply {
  handlerDiagnostics: Diagnostic[];
  modules: EmittedModule[];
  /** The kept CRDs without their version schemas (handler status nodes stay), for stub emission. */
  shells: { id: string; crd: CrdModel }[];
}

export class Partition {
  private readonly models = new Map<string, CrdModel>();

  load(sources: readonly SourceText[]): FileSummary[] {
    return sources.map((source, fi) => {
      const parsed = parseSource(source);
      const nodes = parsed.crds.map((node, ni): NodeSummary => {
        const identity = crdIdentity(node, createHash('sha1').update(node.text).digest('base64'));
        const diagnostics: Diagnostic[] = [];
        const model = buildCrd(node, diagnostics);
        if (!model) return { identity, diagnostics };
        this.models.set(`${fi}:${ni}`, model);
        return { identity, built: { name: model.name, kind: model.kind, group: model.group }, diagnostics };
      });
      return { file: source.file, diagnostics: parsed.diagnostics, nodes };
    });
  }

  emit(request: EmitRequest): EmitReply {
    const crds = request.keep.map((id) => this.models.get(id)!);
    this.models.clear();
    const handlerDiagnostics = resolveHandlers(crds, request.options);
    const modules = emitModules(crds, nameModels(crds, new Map(request.prefixes)));
    const shells = crds.map((crd, i) => ({ id: request.keep[i], crd: { ...crd, versions: crd.versions.map((v) => ({ ...v, schema: undefined })) } }));
    return { handlerDiagnostics, modules, shells };
  }
}
