/**
 * One share of a run: the same code in the main thread and in worker threads. `load` runs the
 * per-file stage over its files; `emit` runs the per-CRD stage over the CRDs the run stage kept.
 * A serial run is a run with one share.
 *
 * Memory does not grow with the input: `load` keeps the models of its first files only while
 * their source text stays within `modelBudget` bytes (all of them for any usual input), and
 * drops the rest once summarised; `emit` goes file by file, reading a dropped file again
 * (parse and model: the same deterministic stage, so the same models) and letting each file's
 * models go as soon as its modules are text. What the run holds is the summaries, the module
 * texts and at most a budget's worth of models.
 */
import type { GenerateOptions, GeneratedFile, SourceText } from '../api.js';
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

/**
 * Source bytes whose models a share keeps between `load` and `emit` (models take a few times
 * their source). Inputs beyond it are parsed twice rather than held: measured by `npm run bench`.
 */
export const MODEL_BUDGET = 16_000_000;

export class Share {
  private readonly models = new Map<string, CrdModel>();
  private sources: readonly SourceText[] = [];

  constructor(private readonly modelBudget = MODEL_BUDGET) {}

  load(sources: readonly SourceText[]): FileSummary[] {
    this.sources = sources;
    let held = 0;
    return sources.map((source, fi) => {
      // Read once: a large input's text is read from disk on each use (`SourceText.text`).
      const text = source.text;
      const loaded = loadFile({ file: source.file, text });
      if (held + text.length <= this.modelBudget) {
        held += text.length;
        loaded.models.forEach((model, ni) => model && this.models.set(`${fi}:${ni}`, model));
      }
      return detached(loaded.summary);
    });
  }

  /** The kept CRDs a file at a time (run order keeps a file's CRDs together), each file's models dropped after. */
  emit(request: EmitRequest): CrdStageOutput {
    const output: CrdStageOutput = { diagnostics: [], modules: [], conversions: [], data: [], stubs: [], handlers: 0 };
    const keep = request.keep;
    for (let from = 0; from < keep.length;) {
      const file = fileOf(keep[from].id);
      let to = from + 1;
      while (to < keep.length && fileOf(keep[to].id) === file) to++;
      const batch = keep.slice(from, to);
      const reloaded = batch.some((k) => !this.models.has(k.id)) ? this.reload(file) : undefined;
      const crds = batch.map(({ id }) => {
        const model = this.models.get(id) ?? reloaded?.[nodeOf(id)];
        if (!model) throw new Error(`kopfgen: share has no CRD ${id}`);
        this.models.delete(id);
        return model;
      });
      const part = emitCrds(
        crds,
        batch.map((k) => k.decision),
        request.options,
        request.emit,
        request.templates,
      );
      for (const d of detached(part.diagnostics)) output.diagnostics.push(d);
      for (const m of part.modules) output.modules.push({ file: detachedFile(m.file), exports: detached(m.exports) });
      for (const m of part.conversions)
        output.conversions.push({ file: detachedFile(m.file), exports: detached(m.exports) });
      output.data.push(...part.data.map(detachedFile));
      output.stubs.push(...part.stubs.map(detachedFile));
      output.handlers += part.handlers;
      from = to;
    }
    this.models.clear();
    this.sources = [];
    return output;
  }

  private reload(file: number): (CrdModel | undefined)[] {
    const source = this.sources[file];
    if (!source) throw new Error(`kopfgen: share has no file ${file}`);
    return loadFile({ file: source.file, text: source.text }).models;
  }
}

/**
 * A copy that shares no memory with the source texts. V8 keeps a whole string alive for any
 * slice of it, and names, paths and messages are built from slices of the input: what outlives
 * a file's stage (summaries, output paths, diagnostics) would otherwise hold every input text
 * to the end of the run (100 MB for a provider package). Small JSON values only.
 */
function detached<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** A generated file detached but for its content, which is built fresh (joined) and is most of it. */
function detachedFile(file: GeneratedFile): GeneratedFile {
  return { ...detached({ ...file, content: '' }), content: file.content };
}

function fileOf(id: string): number {
  return Number(id.slice(0, id.indexOf(':')));
}

function nodeOf(id: string): number {
  return Number(id.slice(id.indexOf(':') + 1));
}
