/**
 * `generate` across threads, with the same result as the serial `generate` (a test checks
 * byte equality on the corpus). Files are shared out by size; the main thread works on one
 * share itself. Small runs, or `threads: 1`, take the serial path.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { GenerateOptions, GenerateResult, SourceText } from '../api.js';
import { hasErrors, sortDiagnostics, type Diagnostic } from '../diagnostics.js';
import { emptyStats, generate, noCrdFound, outputFiles } from '../generate.js';
import { Dedupe, sortSources } from '../load/load-sources.js';
import type { CrdModel } from '../model/ir.js';
import { kindPrefixes, type KindName } from '../model/naming.js';
import { Partition, type EmitReply, type EmitRequest, type FileSummary } from './share.js';

export interface ParallelOptions {
  /** Threads to use, the main one included (default: available parallelism). */
  threads?: number;
  /** Below this many input bytes the serial path is faster than starting workers (default 2 MB). */
  minBytes?: number;
}

interface Share {
  load(sources: SourceText[]): Promise<FileSummary[]>;
  emit(request: EmitRequest): Promise<EmitReply>;
  close(): void;
}

export async function generateParallel(sources: readonly SourceText[], options: GenerateOptions = {}, parallel: ParallelOptions = {}): Promise<GenerateResult> {
  const stats = emptyStats(0, sources);
  const threads = Math.min(parallel.threads ?? availableParallelism(), sources.length);
  if (threads <= 1 || stats.bytesIn < (parallel.minBytes ?? 2_000_000)) return generate(sources, options);

  const ordered = sortSources(sources);
  const assignment = shareOut(ordered, threads);
  const shares: Share[] = assignment.map((_, i) => (i === 0 ? localShare() : workerShare()));
  try {
    const loaded = await Promise.all(shares.map((s, i) => s.load(assignment[i].map((fi) => ordered[fi]))));
    const plan = planRun(ordered, assignment, loaded);
    const diagnostics = plan.diagnostics;
    stats.crds = plan.kept.length;
    const prefixes = [...kindPrefixes(plan.kept.map((k) => k.built))];
    const replies = await Promise.all(shares.map((s, i) => s.emit({ keep: plan.keepByShare[i], prefixes, options })));
    diagnostics.push(...mergeHandlerDiagnostics(replies.map((r) => r.handlerDiagnostics)));
    if (hasErrors(diagnostics)) return { files: [], diagnostics: sortDiagnostics(diagnostics), stats };
    const files = outputFiles(replies.flatMap((r) => r.modules), globalOrder(plan.kept, replies), options, stats);
    return { files, diagnostics: sortDiagnostics(diagnostics), stats };
  } finally {
    for (const s of shares) s.close();
  }
}

/** Largest files first, each to the least loaded share; each share keeps file order. */
function shareOut(ordered: SourceText[], threads: number): number[][] {
  const load = new Array<number>(threads).fill(0);
  const shares: number[][] = Array.from({ length: threads }, () => []);
  const bySize = ordered.map((s, i) => ({ i, size: s.text.length })).sort((a, b) => b.size - a.size || a.i - b.i);
  for (const { i, size } of bySize) {
    const target = load.indexOf(Math.min(...load));
    shares[target].push(i);
    load[target] += size;
  }
  return shares.map((s) => s.sort((a, b) => a - b));
}

interface KeptCrd {
  share: number;
  id: string;
  built: KindName;
}

/** Replays the serial loader's decisions (file order, duplicates, diagnostics) over the summaries. */
function planRun(ordered: SourceText[], assignment: number[][], loaded: FileSummary[][]) {
  const byFile: { share: number; local: number; summary: FileSummary }[] = new Array(ordered.length);
  assignment.forEach((files, share) => files.forEach((fi, local) => (byFile[fi] = { share, local, summary: loaded[share][local] })));
  const diagnostics: Diagnostic[] = [];
  const dedupe = new Dedupe();
  const kept: KeptCrd[] = [];
  for (const { share, local, summary } of byFile) {
    diagnostics.push(...summary.diagnostics);
    summary.nodes.forEach((node, ni) => {
      const duplicate = dedupe.check(node.identity);
      if (duplicate) return void diagnostics.push(duplicate);
      diagnostics.push(...node.diagnostics);
      if (!node.built) return;
      dedupe.accept(node.identity);
      kept.push({ share, id: `${local}:${ni}`, built: node.built });
    });
  }
  diagnostics.push(...noCrdFound(kept.length, ordered, diagnostics));
  const keepByShare = assignment.map((_, share) => kept.filter((k) => k.share === share).map((k) => k.id));
  return { diagnostics, kept, keepByShare };
}

/**
 * The handler pass warns (KG207) about configured kinds that match no CRD; a share sees only
 * its CRDs, so such a warning holds for the run only when every share reports it.
 */
function mergeHandlerDiagnostics(perShare: Diagnostic[][]): Diagnostic[] {
  const key = (d: Diagnostic) => `${d.pointer}\u0000${d.message}`;
  const unmatched = perShare.map((ds) => new Set(ds.filter((d) => d.code === 'KG207').map(key)));
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const ds of perShare) {
    for (const d of ds) {
      if (d.code !== 'KG207') out.push(d);
      else if (unmatched.every((u) => u.has(key(d))) && !seen.has(key(d))) {
        seen.add(key(d));
        out.push(d);
      }
    }
  }
  return sortDiagnostics(out);
}

function globalOrder(kept: KeptCrd[], replies: EmitReply[]): CrdModel[] {
  const byId = new Map<string, CrdModel>();
  replies.forEach((r, share) => r.shells.forEach((s) => byId.set(`${share}/${s.id}`, s.crd)));
  return kept.map((k) => byId.get(`${k.share}/${k.id}`)!);
}

/** The main thread's share; it yields once first, so the workers' requests are posted before it starts. */
function localShare(): Share {
  const partition = new Partition();
  return {
    load: async (sources) => {
      await Promise.resolve();
      return partition.load(sources);
    },
    emit: async (request) => {
      await Promise.resolve();
      return partition.emit(request);
    },
    close: () => undefined,
  };
}

function workerShare(): Share {
  const worker = new Worker(new URL('./thread-worker.js', import.meta.url));
  const pending: { resolve: (v: never) => void; reject: (e: Error) => void }[] = [];
  worker.on('message', (m: { ok: boolean; reply?: never; error?: string }) => {
    const p = pending.shift()!;
    if (m.ok) p.resolve(m.reply as never);
    else p.reject(new Error(`kopfgen worker failed: ${m.error}`));
  });
  worker.on('error', (e) => pending.splice(0).forEach((p) => p.reject(e)));
  // A worker that stops without an 'error' (process.exit, or killed) must fail what it owed, not hang the run.
  worker.on('exit', (code) => pending.splice(0).forEach((p) => p.reject(new Error(`kopfgen worker stopped (exit code ${code}) before answering`))));
  const call = <T>(message: unknown) =>
    new Promise<T>((resolve, reject) => {
      pending.push({ resolve: resolve as (v: never) => void, reject });
      worker.postMessage(message);
    });
  return {
    load: (sources) => call<FileSummary[]>({ type: 'load', sources }),
    emit: (request) => call<EmitReply>({ type: 'emit', request }),
    close: () => void worker.terminate(),
  };
}
