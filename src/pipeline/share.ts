/**
 * One share of a run: the same code in the main thread and in worker threads. `load` runs the
 * per-file stage over its files; `emit` runs the per-CRD stage over the CRDs the run stage kept.
 * A serial run is a run with one share.
 *
 * Memory does not grow with the input: `load` keeps the models of its files only while their
 * source text stays within `modelBudget` bytes (all of them for any usual input, none for a
 * large one), and drops the rest once summarised; `emit` goes file by file, reading a dropped
 * file again (parse and model: the same deterministic stage, so the same models) and letting
 * each file's models go as soon as its modules are text. A file is read a document at a time
 * (`loadFile`), so a bundle of many CRDs costs no more than the same CRDs one per file. What the
 * run holds is the summaries, the module texts (as UTF-8) and at most a budget's worth of models.
 */
import type { GenerateOptions, GeneratedFile, SourceText } from '../api.js';
import type { CrdModel } from '../model/ir.js';
import type { StubTemplates } from '../stubs/templates.js';
import { emitCrds, type CrdDecision, type CrdStageOutput } from './crd-stage.js';
import { modelFile, summariseFile, type FileSummary } from './file-stage.js';

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
 * Source bytes whose models a share keeps between `load` and `emit` (models take about three
 * times their source, and hold their source text). An input within it is modelled once; a larger
 * one keeps none (`modelBudgetFor`): each file is parsed again to emit it, so what the run holds
 * does not grow with the input, nor with the size of its files. Measured by `npm run bench`.
 */
export const MODEL_BUDGET = 16_000_000;

/**
 * The budget for a run over `bytes` of input: all of it when it fits, else nothing. A partial
 * budget (the first 16 MB of a 100 MB input) saved 16% of the parsing for ~70 MB of memory.
 */
export function modelBudgetFor(bytes: number): number {
  return bytes <= MODEL_BUDGET ? MODEL_BUDGET : 0;
}

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
      const hold = held + text.length <= this.modelBudget;
      if (hold) held += text.length;
      const keep = (ni: number, model: CrdModel) => hold && this.models.set(`${fi}:${ni}`, model);
      const forget = () => this.forget(fi);
      return detached(summariseFile({ file: source.file, text }, keep, forget));
    });
  }

  /**
   * The kept CRDs a file at a time (run order keeps a file's CRDs together, in document order):
   * from the models held, or, for a file whose models were not held, from the file read again a
   * document at a time, each CRD emitted as soon as it is modelled.
   */
  emit(request: EmitRequest): CrdStageOutput {
    const output: CrdStageOutput = { diagnostics: [], modules: [], conversions: [], data: [], stubs: [], handlers: 0 };
    const keep = request.keep;
    const add = (part: CrdStageOutput) => {
      for (const d of detached(part.diagnostics)) output.diagnostics.push(d);
      for (const m of part.modules) output.modules.push({ file: compactFile(m.file), exports: detached(m.exports) });
      for (const m of part.conversions)
        output.conversions.push({ file: compactFile(m.file), exports: detached(m.exports) });
      output.data.push(...part.data.map(compactFile));
      output.stubs.push(...part.stubs.map(compactFile));
      output.handlers += part.handlers;
    };
    const emitOne = (model: CrdModel, decision: CrdDecision) =>
      emitCrds([model], [decision], request.options, request.emit, request.templates);
    for (let from = 0; from < keep.length;) {
      const file = fileOf(keep[from].id);
      let to = from + 1;
      while (to < keep.length && fileOf(keep[to].id) === file) to++;
      const batch = keep.slice(from, to);
      from = to;
      if (batch.every((k) => this.models.has(k.id))) {
        for (const k of batch) {
          add(emitOne(this.held(k.id), k.decision));
          this.models.delete(k.id);
        }
        continue;
      }
      const wanted = new Map(batch.map((k) => [nodeOf(k.id), k.decision]));
      // Held until the file is read through: a reader that starts over hands every CRD over again.
      let parts: CrdStageOutput[] = [];
      this.reread(
        file,
        (ni, model) => {
          const decision = wanted.get(ni);
          if (decision) parts.push(emitOne(model, decision));
        },
        () => (parts = []),
      );
      if (parts.length !== batch.length) throw new Error(`kopfgen: share read ${parts.length} of file ${file}'s CRDs`);
      parts.forEach(add);
    }
    this.models.clear();
    this.sources = [];
    return output;
  }

  private held(id: string): CrdModel {
    const model = this.models.get(id);
    if (!model) throw new Error(`kopfgen: share has no CRD ${id}`);
    return model;
  }

  private forget(file: number): void {
    for (const id of [...this.models.keys()]) if (fileOf(id) === file) this.models.delete(id);
  }

  private reread(file: number, onModel: (node: number, model: CrdModel) => void, onReset: () => void): void {
    const source = this.sources[file];
    if (!source) throw new Error(`kopfgen: share has no file ${file}`);
    modelFile({ file: source.file, text: source.text }, onModel, onReset);
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

/**
 * A generated file detached from the input texts, its text held as UTF-8 bytes and decoded on each
 * read of `content`. V8 stores a string with any character beyond Latin-1 (a description's "—" or
 * "’") at two bytes per character, and most modules have one: held as strings until the write,
 * 2,000 CRDs' modules took ~106 MB; as UTF-8, ~53 MB. Each reader (the write plan, the write, the
 * statistics) decodes one module at a time.
 */
function compactFile(file: GeneratedFile): GeneratedFile {
  let bytes = Buffer.from(file.content, 'utf8');
  const compact = detached({ ...file, content: '' });
  return Object.defineProperty(compact, 'content', {
    enumerable: true,
    get: () => bytes.toString('utf8'),
    set: (text: string) => void (bytes = Buffer.from(text, 'utf8')),
  });
}

function fileOf(id: string): number {
  return Number(id.slice(0, id.indexOf(':')));
}

function nodeOf(id: string): number {
  return Number(id.slice(id.indexOf(':') + 1));
}
