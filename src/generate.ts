/**
 * The pure pipeline, orchestrated once: source texts → generated files and diagnostics. No file
 * system, no process: `src/cli` reads the inputs and writes the result.
 *
 *   per file (share):  load (YAML → CRD documents) → model (CRD models) → summary
 *   run-wide:          duplicates, KG103, KG207, type prefixes, stub paths
 *   per CRD (share):   handler pass → naming → modules → stub file
 *   run-wide:          order the outputs, index.ts
 *
 * `generate` is the run with one share in this thread; `generateParallel` shares the files out
 * over worker threads and runs the very same stages. When any diagnostic is an error, `files`
 * is empty: nothing half-generated can be written.
 */
import { availableParallelism } from 'node:os';
import { sourceBytes, type GenerateOptions, type GenerateResult, type SourceText } from './api.js';
import { assembleRun, decideRun, sortSources } from './pipeline/run-stage.js';
import { MODEL_BUDGET, modelBudgetFor, Share } from './pipeline/share.js';
import { localShare, workerShare, type AsyncShare } from './pipeline/thread-share.js';

export function generate(sources: readonly SourceText[], options: GenerateOptions = {}): GenerateResult {
  const ordered = sortSources(sources);
  const share = new Share(modelBudgetFor(sources.reduce((n, s) => n + sourceBytes(s), 0)));
  const plan = decideRun(ordered, [ordered.map((_, i) => i)], [share.load(ordered)], options, templatesFor(options));
  return assembleRun(plan, [share.emit(plan.requests[0])], sources);
}

/** The stub templates arrive with the options (read at the edge, by the CLI or a library caller). */
function templatesFor(options: GenerateOptions) {
  return options.stubs ? options.stubs.templates : undefined;
}

export interface ParallelOptions {
  /** Threads to use, the main one included (default: available parallelism). */
  threads?: number;
  /** Below this many input bytes one share is faster than starting workers (default 2 MB). */
  minBytes?: number;
  /**
   * Above this many input bytes the run stays in one thread (default MODEL_BUDGET): a worker
   * holds a copy of its share's texts and a heap of its own, so a large input set would cost
   * its size again in memory, while one share streams it within a bounded set of models.
   */
  maxBytes?: number;
}

/** `generate` across threads, with the same result (a test checks byte equality). */
export async function generateParallel(
  sources: readonly SourceText[],
  options: GenerateOptions = {},
  parallel: ParallelOptions = {},
): Promise<GenerateResult> {
  const bytesIn = sources.reduce((n, s) => n + sourceBytes(s), 0);
  const threads = Math.min(parallel.threads ?? availableParallelism(), sources.length);
  if (threads <= 1 || bytesIn < (parallel.minBytes ?? 2_000_000) || bytesIn > (parallel.maxBytes ?? MODEL_BUDGET))
    return generate(sources, options);

  const ordered = sortSources(sources);
  const assignment = shareOut(ordered, threads);
  const shares: AsyncShare[] = assignment.map((_, i) => (i === 0 ? localShare() : workerShare()));
  try {
    const loaded = await Promise.all(shares.map((s, i) => s.load(assignment[i].map((fi) => ordered[fi]))));
    const plan = decideRun(ordered, assignment, loaded, options, templatesFor(options));
    const outputs = await Promise.all(shares.map((s, i) => s.emit(plan.requests[i])));
    return assembleRun(plan, outputs, sources);
  } finally {
    for (const s of shares) s.close();
  }
}

/** Largest files first, each to the least loaded share; each share keeps file order. */
function shareOut(ordered: SourceText[], threads: number): number[][] {
  const load = new Array<number>(threads).fill(0);
  const shares: number[][] = Array.from({ length: threads }, () => []);
  const bySize = ordered.map((s, i) => ({ i, size: sourceBytes(s) })).sort((a, b) => b.size - a.size || a.i - b.i);
  for (const { i, size } of bySize) {
    const target = load.indexOf(Math.min(...load));
    shares[target].push(i);
    load[target] += size;
  }
  return shares.map((s) => s.sort((a, b) => a - b));
}
