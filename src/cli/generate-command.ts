/**
 * One run of `kopfgen generate` (or `--check`): read → (cache or generate) → plan → apply or
 * compare. Any error diagnostic, from reading, generating or planning, means nothing is written.
 */
import { join } from 'node:path';
import { sourceBytes, type GeneratedFile, type GenerateOptions, type GenerateResult, type SourceText } from '../api.js';
import type { Diagnostic } from '../diagnostics.js';
import { hasErrors } from '../diagnostics.js';
import { fileDiagnostic } from '../io/file-errors.js';
import { MissingTsMorphError } from '../io/ts-morph-load.js';
import {
  applyPlan,
  ConcurrentEditError,
  outOfDate,
  planDiff,
  planWrite,
  summarize,
  type PlannedFile,
  type WritePlan,
  type WriteTargets,
} from '../io/write.js';
import { displayPath, readIfExists } from '../io/fs.js';
import { importBlock, stubPathsIn, syncImportBlock } from './entry-imports.js';
import { scaffoldOf } from './init-scaffolds.js';
import { Cache, cacheKey, stampGenerated, stubMemo, stubRecord, verifyGenerated, type CacheEntry } from './cache.js';
import type { ClusterSource } from './from-cluster.js';
import { foreignSources, type ResolvedRun } from './options.js';
import { rememberScans, type ProjectMemo } from '../io/stub-scan.js';
import { EXIT_INTERNAL, type Reporter, type RunReport } from './report.js';
import { undeclaredIn } from './uses-check.js';
import { messageOf } from '../runtime/error-message.js';

/** The generator as the CLI sees it; bound to the real reader and pipeline in `pipeline.ts`. */
export interface Pipeline {
  /** Files (`inputs`), or with `cluster` the CRDs installed in a cluster. */
  read(
    inputs: string[],
    cwd: string,
    cluster?: ClusterSource,
  ): Promise<{ sources: SourceText[]; diagnostics: Diagnostic[] }>;
  generate(sources: SourceText[], options: GenerateOptions): GenerateResult | Promise<GenerateResult>;
}

interface Produced {
  diagnostics: Diagnostic[];
  /** The generator's own diagnostics (not the reader's), replayed from the cache on a hit. */
  generatorDiagnostics?: Diagnostic[];
  /** Undefined when the run had errors. */
  plan?: WritePlan;
  files: GeneratedFile[];
  stats?: RunReport['stats'];
  entry?: CacheEntry;
  /** On a hit: the entry's generated files as verified on disk (fresh size/mtime where touched). */
  verified?: CacheEntry['generated'];
  key?: string;
  hit: boolean;
}

/**
 * One run; whatever fails becomes a report: a file-system failure is a diagnostic naming the
 * user's path (KG900–KG902, exit 1), a file edited during the run KG903 (exit 1), anything else
 * an internal error KG999 (exit 3). Failures happen before or during the atomic apply, which
 * leaves the tree as it was, so every report of a failure says nothing was written.
 */
export async function runGenerate(
  run: ResolvedRun,
  pipeline: Pipeline,
  reporter: Reporter,
  fixCommand: string,
): Promise<RunReport> {
  const started = performance.now();
  try {
    return await generateOnce(run, pipeline, reporter, fixCommand, started);
  } catch (e) {
    const command = run.check ? ('check' as const) : ('generate' as const);
    return { ...failureReport(e, run.cwd), command, cache: 'off', timeMs: Math.round(performance.now() - started) };
  }
}

export function failureReport(e: unknown, cwd: string): Pick<RunReport, 'exitCode' | 'diagnostics'> {
  const file = fileDiagnostic(e, cwd);
  if (file) return { exitCode: 1, diagnostics: [file] };
  const message = messageOf(e);
  if (e instanceof MissingTsMorphError) {
    return {
      exitCode: 1,
      diagnostics: [{ severity: 'error', code: 'KG904', message, file: '.', line: 1, col: 1, pointer: '' }],
    };
  }
  if (e instanceof ConcurrentEditError) {
    return {
      exitCode: 1,
      diagnostics: [{ severity: 'error', code: 'KG903', message, file: '.', line: 1, col: 1, pointer: '' }],
    };
  }
  return { exitCode: EXIT_INTERNAL, diagnostics: [internalDiagnostic(e)] };
}

/** KG999: a bug in kopfgen. The message, and the stack with KOPFGEN_DEBUG=1, for the report. */
export function internalDiagnostic(e: unknown): Diagnostic {
  const message = e instanceof Error ? (process.env.KOPFGEN_DEBUG ? (e.stack ?? e.message) : e.message) : String(e);
  const hint = process.env.KOPFGEN_DEBUG ? '' : ' (set KOPFGEN_DEBUG=1 for the stack)';
  return {
    severity: 'error',
    code: 'KG999',
    message: `internal error: ${message}; nothing was written; please report this${hint}`,
    file: 'kopfgen',
    line: 1,
    col: 1,
    pointer: '',
  };
}

async function generateOnce(
  run: ResolvedRun,
  pipeline: Pipeline,
  reporter: Reporter,
  fixCommand: string,
  started: number,
): Promise<RunReport> {
  const produced = await produce(run, pipeline, reporter);
  const base = {
    command: run.check ? ('check' as const) : ('generate' as const),
    diagnostics: produced.diagnostics,
    stats: produced.stats,
    cache: !run.cache ? ('off' as const) : produced.hit ? ('hit' as const) : ('miss' as const),
  };
  const elapsed = (): number => Math.round(performance.now() - started);
  if (!produced.plan) return { ...base, exitCode: 1, timeMs: elapsed() };
  const entry = await planEntry(run, produced.files);
  const plan = entry ? { ...produced.plan, files: [...produced.plan.files, entry] } : produced.plan;
  if (run.check) {
    const stale = outOfDate(plan).map((f) => ({
      path: f.displayPath,
      role: f.role,
      change: f.change,
      diff: planDiff(f),
    }));
    return {
      ...base,
      exitCode: stale.length > 0 ? 1 : 0,
      outOfDate: stale,
      fixCommand,
      summary: summarize(plan),
      timeMs: elapsed(),
    };
  }
  reporter.progress(`writing ${outOfDate(plan).length} files…`);
  await applyPlan(plan);
  if (run.cache && produced.key) {
    // The cache only saves time: a read-only checkout or a full disk must not fail the run.
    await saveCache(run, produced, plan).catch(() => undefined);
  }
  return { ...base, exitCode: 0, summary: summarize(plan), timeMs: elapsed() };
}

/**
 * The scaffold's entry module (`src/operator.ts`, kopf's `handlers.py`, in the project's
 * directory) when its marked import block no longer names exactly the run's handler files: the
 * block rewritten (entry-imports.ts), planned with the rest so `--check` reports it and the write
 * stays atomic. Nothing when the project has no such entry or it is in step.
 */
async function planEntry(run: ResolvedRun, files: readonly GeneratedFile[]): Promise<PlannedFile | undefined> {
  if (run.stubsDir === undefined) return undefined;
  const scaffold = scaffoldOf(run.options.target);
  const absPath = join(run.projectDir, scaffold.entry);
  const before = await readIfExists(absPath);
  if (before === undefined) return undefined;
  const after = syncImportBlock(before, importBlock(scaffold, stubPathsIn(run.projectDir, run.stubsDir, files)));
  if (after === undefined || after === before) return undefined;
  return {
    role: 'generated',
    absPath,
    displayPath: displayPath(run.cwd, absPath),
    change: 'update',
    before,
    after,
    addedStubs: [],
  };
}

function targetsOf(run: ResolvedRun): WriteTargets {
  return {
    outDir: run.outDir,
    stubsDir: run.stubsDir,
    cwd: run.cwd,
    manifest: true,
    guard: true,
    target: run.options.target,
    generatedPackage: run.options.generatedPackage,
  };
}

async function produce(run: ResolvedRun, pipeline: Pipeline, reporter: Reporter): Promise<Produced> {
  reporter.progress('reading inputs…');
  const read = await pipeline.read(run.inputs, run.cwd, run.cluster);
  const options = withForeign(run, read.sources);
  // A missing input must not hide the problems of the others (one run reports every problem):
  // the inputs that could be read are still generated, only to collect their diagnostics.
  if (hasErrors(read.diagnostics)) {
    const result = read.sources.length > 0 ? await pipeline.generate(read.sources, options) : undefined;
    return { diagnostics: [...read.diagnostics, ...(result?.diagnostics ?? [])], files: [], hit: false };
  }
  const cache = run.cache ? new Cache(run.cwd, run.outDir) : undefined;
  const entry = await cache?.load();
  const key = cache ? await cacheKey(read.sources, options, run.outDir, run.stubsDir) : undefined;
  const memo = stubMemo(entry, run.stubsDir);
  const verified = entry && entry.key === key ? await verifyGenerated(entry, run.outDir) : undefined;
  if (entry && verified) {
    // Hit: the inputs, options and kopfgen are what produced the files on disk; skip parse and emit.
    const stubs = run.stubsDir ? entry.stubFiles : [];
    const plan = await planWrite(stubs, targetsOf(run), {
      stubMemo: memo,
      verified: verified.map((g) => g.path),
      project: entry.project,
    });
    const replayed = entry.diagnostics;
    return finishPlan(
      {
        diagnostics: [...read.diagnostics, ...replayed],
        generatorDiagnostics: replayed,
        files: stubs,
        stats: entry.stats,
        entry,
        verified,
        key,
        hit: true,
      },
      plan,
      run.cwd,
    );
  }
  const bytes = read.sources.reduce((n, s) => n + sourceBytes(s), 0);
  reporter.progress(
    `generating from ${read.sources.length} files (${(bytes / 1e6).toFixed(1)} MB)…`,
    bytes > 1_000_000,
  );
  const result = await pipeline.generate(read.sources, options);
  const diagnostics = [...read.diagnostics, ...result.diagnostics];
  const stats = { crds: result.stats.crds, versions: result.stats.versions, handlers: result.stats.handlers };
  if (hasErrors(diagnostics)) return { diagnostics, files: result.files, stats, hit: false };
  reporter.progress(`comparing ${result.files.length} files…`);
  const plan = await planWrite(result.files, targetsOf(run), { stubMemo: memo, project: entry?.project });
  return finishPlan(
    { diagnostics, generatorDiagnostics: result.diagnostics, files: result.files, stats, entry, key, hit: false },
    plan,
    run.cwd,
  );
}

/** The run's options with the sources it does not own (no stubs for their CRDs unless configured). */
function withForeign(run: ResolvedRun, sources: SourceText[]): GenerateOptions {
  if (run.options.stubs === false || run.options.stubs === undefined) return run.options;
  const foreign = foreignSources(
    run,
    sources.map((s) => s.file),
  );
  return foreign.length > 0 ? { ...run.options, foreign } : run.options;
}

function finishPlan(produced: Produced, plan: WritePlan, cwd: string): Produced {
  const diagnostics = [...produced.diagnostics, ...plan.diagnostics, ...undeclaredAccess(plan.project, cwd)];
  return { ...produced, diagnostics, plan: hasErrors(plan.diagnostics) ? undefined : plan };
}

/**
 * `run --check`'s KG361 over the project scan (`uses-check.ts`, the same checker): client calls of
 * built-in kinds no declaration covers. Warnings here: `generate` writes types and stubs, which such
 * a call does not break; the operator would be refused the call at run time.
 */
function undeclaredAccess(project: ProjectMemo | undefined, cwd: string): Diagnostic[] {
  const files = Object.entries(project?.scans ?? {}).flatMap(([absPath, { access }]) =>
    access === undefined ? [] : [{ file: displayPath(cwd, absPath), access }],
  );
  return undeclaredIn(files, 'warning');
}

/**
 * The project memo with the stub files this run wrote scanned as written: the next run then finds
 * every file as it was scanned and loads no TypeScript (the scan of a new project's stub files
 * costs the run that creates them, once).
 */
function withWrittenStubs(memo: ProjectMemo, plan: WritePlan): ProjectMemo {
  const written = plan.files
    .filter((f) => f.role === 'stub' && (f.change === 'create' || f.change === 'update') && f.after !== undefined)
    .map((f) => ({ absPath: f.absPath, text: f.after ?? '' }));
  return written.length > 0 ? rememberScans(memo, written) : memo;
}

async function saveCache(run: ResolvedRun, produced: Produced, plan: WritePlan): Promise<void> {
  const generated = produced.verified ?? (await stampGenerated(produced.files, run.outDir));
  const stubFiles = produced.files.filter((f) => f.role === 'stub');
  const byPath = new Map(plan.files.map((f) => [f.absPath, f]));
  const stubs: CacheEntry['stubs'] = {};
  for (const file of stubFiles) {
    const abs = run.stubsDir ? join(run.stubsDir, file.path) : undefined;
    const planned = abs ? byPath.get(abs) : undefined;
    if (abs && planned?.after !== undefined) stubs[abs] = stubRecord(file, planned.after, planned.elsewhere ?? []);
  }
  const nonErrors = (produced.generatorDiagnostics ?? []).filter((d) => d.severity !== 'error');
  const entry: CacheEntry = {
    key: produced.key ?? '',
    generated,
    stubFiles,
    stubs,
    diagnostics: nonErrors,
    stats: produced.stats ?? { crds: 0, versions: 0, handlers: 0 },
    ...(plan.project ? { project: withWrittenStubs(plan.project, plan) } : {}),
  };
  // A hit that found everything as recorded has nothing new to say: leave the cache file alone.
  if (produced.hit && JSON.stringify(entry) === JSON.stringify(produced.entry)) return;
  await new Cache(run.cwd, run.outDir).save(entry);
}
