/**
 * The writer: first a plan (what each output file would become, read-only), then `applyPlan`.
 * Splitting the two is what makes `--check` (plan only), "nothing written on error" (no apply)
 * and "unchanged files are not rewritten" (the plan says `unchanged`) one code path.
 *
 * Ownership rules: generated files are kopfgen's and may be replaced or removed, but only when
 * they carry the generated header; stub files are the user's and are only ever merged into.
 */
import { promises as fs } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { GeneratedFile, StubEntry, Target } from '../api.js';
import type { Diagnostic } from '../diagnostics.js';
import { GENERATED_MARK, isGeneratedText, YAML_GENERATED_MARK } from '../emit/header.js';
import { unifiedDiff } from './diff.js';
import { onPath } from './file-errors.js';
import { displayPath, listFiles, readIfExists } from './fs.js';
import { manifestPath, manifestText, OUTPUT_MANIFEST, ownedFiles, startsWithHeader } from './ownership.js';
import { pyModules, scanPyStubsDir } from './py-stub-scan.js';
import type { StubMergeResult } from './stub-merge.js';
import {
  orphanDiagnostics,
  registeredElsewhere,
  scanProject,
  TS_MODULES,
  type ProjectMemo,
  type ScannedStubFile,
} from './stub-scan.js';

export interface WriteTargets {
  /** Absolute output directory of generated files. */
  outDir: string;
  /** Absolute stubs directory, or undefined when stubs are off. */
  stubsDir?: string;
  /** Paths in reports are shown relative to this directory. */
  cwd: string;
  /**
   * Keep an output manifest (`generate`): only files the directory's runs produced are removed
   * (src/io/ownership.ts). Without it (`manifests`, whose caller filters), every stale file with
   * the generated header is.
   */
  manifest?: boolean;
  /** What the stubs are written in (default `typescript`): which files of the stubs directory are scanned, and how. */
  target?: Target;
  /** kopf target: the generated package's name as the stubs import it (`GenerateOptions.generatedPackage`). */
  generatedPackage?: string;
  /**
   * Check the project's code against the output (`generate`): its registrations count wherever
   * they are, and an import the run would break is KG321 (src/io/stub-scan.ts). The TypeScript
   * target reads the project (tsconfig.json); the kopf target its stubs directory's Python.
   */
  guard?: boolean;
  /** How the user sets the output directory, for messages (default: `--out (or "out" in kopfgen.config.json)`). */
  outSetting?: string;
}

export type Change = 'create' | 'update' | 'remove' | 'unchanged';

export interface PlannedFile {
  role: 'generated' | 'stub';
  absPath: string;
  /** Relative to the working directory, `/`-separated. */
  displayPath: string;
  change: Change;
  /** The file's current text; undefined when it does not exist. */
  before?: string;
  /** The text after the run; undefined when the file is removed. */
  after?: string;
  addedStubs: StubEntry[];
  /** Stubs: the file's definitions registered in other files of the stubs directory (their stubs are not added here). */
  elsewhere?: string[];
  /**
   * The output manifest: written with the rest, but bookkeeping, not output: not counted in the
   * summary, and not a reason for `--check` to fail (it follows from the files, which are checked).
   */
  bookkeeping?: boolean;
}

export interface WritePlan {
  files: PlannedFile[];
  /** Problems that forbid applying the plan (a user file in the way, a path outside the output). */
  diagnostics: Diagnostic[];
  /** The output directory: pruning emptied directories stops here. */
  outDir: string;
  /** What the project scan learnt, for the next run (`guard` only). */
  project?: ProjectMemo;
}

/**
 * Lets a caller skip the (ts-morph) stub merge when the stub file is exactly what the last run
 * left for the same stubs and the same handlers registered in the directory's other files.
 */
export type StubMemo = (file: GeneratedFile, existing: string, elsewhere: readonly string[]) => boolean;

function fileDiagnostic(file: string, code: string, message: string): Diagnostic {
  return { severity: 'error', code, message, file, line: 1, col: 1, pointer: '' };
}

/** Joins a generator-relative path under `root`, refusing anything that would escape it. */
function placeUnder(root: string, path: string): string | undefined {
  if (isAbsolute(path) || path.split('/').includes('..')) return undefined;
  const abs = resolve(root, path);
  return abs.startsWith(root + sep) ? abs : undefined;
}

export interface PlanExtras {
  stubMemo?: StubMemo;
  /** Generated files (relative to the output) already verified to be on disk as this run would write them. */
  verified?: string[];
  /** What the last run's project scan learnt (`guard`). */
  project?: ProjectMemo;
}

export async function planWrite(
  files: GeneratedFile[],
  targets: WriteTargets,
  extras: PlanExtras = {},
): Promise<WritePlan> {
  const plan: WritePlan = { files: [], diagnostics: [], outDir: targets.outDir };
  const produced = new Set<string>();
  const memo = extras.stubMemo;
  for (const path of extras.verified ?? []) {
    const abs = resolve(targets.outDir, path);
    produced.add(abs);
    plan.files.push({
      role: 'generated',
      absPath: abs,
      displayPath: displayPath(targets.cwd, abs),
      change: 'unchanged',
      addedStubs: [],
    });
  }
  const kopf = targets.target === 'kopf';
  const definitions = new Set(files.flatMap((f) => (f.stubs ?? []).map((s) => s.definition)));
  const project =
    !kopf && targets.guard
      ? await scanProject(targets.outDir, targets.stubsDir, definitions, extras.project)
      : undefined;
  const scanned = kopf
    ? targets.stubsDir === undefined
      ? []
      : await scanPyStubsDir(targets.stubsDir)
    : (project?.files ?? []);
  plan.project = project?.memo;
  for (const file of files) {
    const root = file.role === 'stub' ? targets.stubsDir : targets.outDir;
    if (root === undefined) continue;
    const abs = placeUnder(root, file.path);
    if (abs === undefined) {
      plan.diagnostics.push(
        fileDiagnostic(file.path, 'KG311', `output path "${file.path}" is outside ${displayPath(targets.cwd, root)}`),
      );
      continue;
    }
    produced.add(abs);
    const before = await readIfExists(abs);
    const entry =
      file.role === 'stub'
        ? await planStub(file, abs, before, targets, scanned, plan, memo)
        : planGenerated(file, abs, before, targets, plan);
    if (entry) plan.files.push(entry);
  }
  plan.diagnostics.push(
    ...(await orphanDiagnostics(
      scanned,
      targets.outDir,
      targets.cwd,
      moduleTexts(files, extras.verified ?? [], targets.outDir),
      kopf ? pyModules(targets.generatedPackage) : TS_MODULES,
    )),
  );
  const ownership = targets.manifest ? await ownedFiles(targets.outDir, targets.cwd, targets.outSetting) : undefined;
  if (ownership) {
    plan.diagnostics.push(...ownership.diagnostics);
    const generated = plan.files
      .filter((f) => f.role === 'generated')
      .map((f) => manifestPath(targets.outDir, f.absPath));
    const abs = join(targets.outDir, OUTPUT_MANIFEST);
    produced.add(abs);
    const before = await readIfExists(abs);
    const after = manifestText(generated);
    const change: Change = before === undefined ? 'create' : before === after ? 'unchanged' : 'update';
    plan.files.push({
      role: 'generated',
      absPath: abs,
      displayPath: displayPath(targets.cwd, abs),
      change,
      before,
      after,
      addedStubs: [],
      bookkeeping: true,
    });
  }
  const candidates = ownership ? ownership.owned : await listFiles(targets.outDir);
  for (const abs of await staleGeneratedFiles(candidates, produced)) {
    plan.files.push({
      role: 'generated',
      absPath: abs,
      displayPath: displayPath(targets.cwd, abs),
      change: 'remove',
      before: await readIfExists(abs),
      addedStubs: [],
    });
  }
  plan.files.sort((a, b) => (a.displayPath < b.displayPath ? -1 : a.displayPath > b.displayPath ? 1 : 0));
  return plan;
}

function planGenerated(
  file: GeneratedFile,
  abs: string,
  before: string | undefined,
  targets: WriteTargets,
  plan: WritePlan,
): PlannedFile {
  const shown = displayPath(targets.cwd, abs);
  if (before !== undefined && before !== file.content && !isGeneratedText(before)) {
    const mark = file.content.startsWith(YAML_GENERATED_MARK) ? YAML_GENERATED_MARK : GENERATED_MARK;
    plan.diagnostics.push(
      fileDiagnostic(
        shown,
        'KG310',
        `refusing to overwrite ${shown}: it does not start with "${mark}", so it is not kopfgen's; move it or choose another --out`,
      ),
    );
  }
  const change: Change = before === undefined ? 'create' : before === file.content ? 'unchanged' : 'update';
  // Read from the file when needed rather than copied: the run's files may hold their text compactly (share.ts).
  return {
    role: 'generated',
    absPath: abs,
    displayPath: shown,
    change,
    before,
    get after() {
      return file.content;
    },
    addedStubs: [],
  };
}

/**
 * A stub file's plan: the stubs of handlers registered nowhere in the stubs directory, merged into
 * the file (created when absent); undefined when the file is absent and every handler it would
 * hold is registered in another file (the user moved them all: nothing to re-add).
 */
async function planStub(
  file: GeneratedFile,
  abs: string,
  before: string | undefined,
  targets: WriteTargets,
  scanned: readonly ScannedStubFile[],
  plan: WritePlan,
  memo?: StubMemo,
): Promise<PlannedFile | undefined> {
  const shown = displayPath(targets.cwd, abs);
  const entries = file.stubs ?? [];
  const others = registeredElsewhere(scanned, abs);
  const elsewhere = [...new Set(entries.map((e) => e.definition).filter((d) => others.has(d)))].sort();
  const base = { role: 'stub' as const, absPath: abs, displayPath: shown, before, elsewhere };
  if (before === undefined && elsewhere.length === 0) {
    return { ...base, change: 'create', after: file.content, addedStubs: entries };
  }
  if (before === undefined && entries.every((e) => others.has(e.definition))) return undefined;
  if (before !== undefined && memo?.(file, before, elsewhere))
    return { ...base, change: 'unchanged', after: before, addedStubs: [] };
  // Loaded on demand: the TypeScript merge needs ts-morph (a quarter of a second to load), most runs need no merge.
  const { mergeStubFile } = abs.endsWith('.py')
    ? { mergeStubFile: (await import('../stubs/py-stub-merge.js')).mergePyStubFile }
    : await import('./stub-merge.js');
  // An absent file with some handlers registered elsewhere starts from the scaffold's head comment.
  // The TypeScript merge refuses a file that does not parse (the Python one reads tokens: no such case).
  const merged: Pick<StubMergeResult, 'text' | 'added' | 'syntax'> = mergeStubFile(
    before ?? stubHead(file.content),
    file,
    new Set(elsewhere),
  );
  const syntax = merged.syntax;
  if (syntax) {
    // Stubs appended to a file that does not parse would land inside its unclosed block.
    const { line, col, message } = syntax;
    plan.diagnostics.push({
      severity: 'error',
      code: 'KG324',
      file: shown,
      line,
      col,
      pointer: '',
      message: `cannot add the new handlers' stubs to ${shown}: it does not parse here (${message}), and stubs appended to it would land inside the unclosed code; fix it and run again`,
    });
  }
  const change: Change = before === undefined ? 'create' : merged.text === before ? 'unchanged' : 'update';
  return { ...base, change, after: merged.text, addedStubs: merged.added };
}

/** The head comment of a new stub file: everything before its first import (`import …`, or Python's `from … import`). */
function stubHead(content: string): string {
  const at = content.search(/^(?:import|from) /m);
  return at < 0 ? '' : content.slice(0, at);
}

/**
 * The text this run leaves at a generated path: from the run's files, or (on a cache hit, where
 * only verified paths are known) from disk, since the cache verified it is what the run would write.
 */
function moduleTexts(
  files: GeneratedFile[],
  verified: string[],
  outDir: string,
): (rel: string) => Promise<string | undefined> {
  const byPath = new Map(files.filter((f) => f.role === 'generated').map((f) => [f.path, f]));
  const onDisk = new Set(verified);
  return async (rel) =>
    byPath.get(rel)?.content ?? (onDisk.has(rel) ? await readIfExists(resolve(outDir, rel)) : undefined);
}

/**
 * The candidates (files the directory owns) that this run did not produce and that still carry
 * the generated header: a listed file the user has since made their own is never removed.
 */
async function staleGeneratedFiles(candidates: readonly string[], produced: Set<string>): Promise<string[]> {
  const stale: string[] = [];
  for (const abs of candidates) {
    if (!produced.has(abs) && (await startsWithHeader(abs))) stale.push(abs);
  }
  return stale;
}

/**
 * Applies a plan: every new text goes to a temporary file beside its target first, then all are
 * renamed into place (rename is atomic on one file system), then stale files are removed and the
 * directories that removal emptied are pruned. A failure while writing temporaries leaves the
 * tree untouched.
 */
export async function applyPlan(plan: WritePlan): Promise<void> {
  const writes = plan.files.filter((f) => f.change === 'create' || f.change === 'update');
  await assertUntouched(writes);
  // Each text is read as it is written, so a plan's texts are never all decoded at once.
  await writeFilesAtomic(
    writes.map((f) => ({
      path: f.absPath,
      get content() {
        return f.after ?? '';
      },
    })),
  );
  const removed = plan.files.filter((f) => f.change === 'remove');
  for (const f of removed) await fs.rm(f.absPath, { force: true });
  await pruneEmptyDirs(
    removed.map((f) => dirname(f.absPath)),
    plan.outDir,
  );
}

/** A file changed on disk between planning and applying: nothing was written. */
export class ConcurrentEditError extends Error {}

/**
 * Every target must still read as it did when the plan was made. A merged stub file is computed
 * from what the user had then; renaming it over a save made meanwhile (an editor during `--watch`)
 * would lose that save, so the whole run writes nothing instead and asks for another.
 */
async function assertUntouched(writes: PlannedFile[]): Promise<void> {
  for (const f of writes) {
    if ((await readIfExists(f.absPath)) !== f.before) {
      throw new ConcurrentEditError(
        `${f.displayPath} changed while kopfgen was running; nothing was written: run it again`,
      );
    }
  }
}

/** Temporaries written at once: the writes are I/O waits, so a few in flight keep the disk busy (2,000 modules). */
const WRITE_CONCURRENCY = 8;

/**
 * Writes every file to a temporary beside it, a few at a time, then renames all into place; on
 * failure nothing changed. Each text is read from `files` as it is written.
 */
export async function writeFilesAtomic(files: { path: string; content: string }[]): Promise<void> {
  const temps: { temp: string; target: string; index: number }[] = [];
  const made = new Map<string, Promise<unknown>>();
  let failure: { error: unknown; directory: string } | undefined;
  let next = 0;
  const writer = async (): Promise<void> => {
    while (next < files.length && !failure) {
      const index = next++;
      const f = files[index];
      const directory = dirname(f.path);
      try {
        if (!made.has(directory)) made.set(directory, fs.mkdir(directory, { recursive: true }));
        await made.get(directory);
        const temp = join(directory, `.${Math.random().toString(36).slice(2)}.kopfgen.tmp`);
        temps.push({ temp, target: f.path, index });
        await fs.writeFile(temp, f.content, { flag: 'wx' });
      } catch (error) {
        failure ??= { error, directory };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(WRITE_CONCURRENCY, files.length) }, writer));
  if (failure) {
    await Promise.all(temps.map((t) => fs.rm(t.temp, { force: true })));
    // The temporary's name is ours: the failure is the directory's, which the user can fix.
    throw onPath(failure.error, failure.directory);
  }
  // Renamed in the order given, as before the writes went in parallel.
  temps.sort((a, b) => a.index - b.index);
  for (const [i, t] of temps.entries()) {
    try {
      await fs.rename(t.temp, t.target);
    } catch (e) {
      await Promise.all(temps.slice(i).map((r) => fs.rm(r.temp, { force: true })));
      throw onPath(e, t.target);
    }
  }
}

/** Removes directories below `root` left empty by stale-file removal (and emptied parents); never others. */
async function pruneEmptyDirs(dirs: string[], root: string): Promise<void> {
  const sorted = [...new Set(dirs)].sort((a, b) => b.length - a.length);
  for (let dir of sorted) {
    while (dir.startsWith(root + sep)) {
      try {
        await fs.rmdir(dir);
      } catch {
        break;
      }
      dir = dirname(dir);
    }
  }
}

export interface PlanSummary {
  written: string[];
  unchanged: number;
  removed: string[];
  stubsAdded: { file: string; stub: StubEntry }[];
}

export function summarize(plan: WritePlan): PlanSummary {
  const s: PlanSummary = { written: [], unchanged: 0, removed: [], stubsAdded: [] };
  for (const f of plan.files) {
    if (f.bookkeeping) continue;
    if (f.change === 'create' || f.change === 'update') s.written.push(f.displayPath);
    else if (f.change === 'remove') s.removed.push(f.displayPath);
    else s.unchanged++;
    for (const stub of f.addedStubs) s.stubsAdded.push({ file: f.displayPath, stub });
  }
  return s;
}

/** Files a run of `generate` would write or remove: what makes `--check` fail. */
export function outOfDate(plan: WritePlan): PlannedFile[] {
  return plan.files.filter((f) => f.change !== 'unchanged' && !f.bookkeeping);
}

/** The unified diff `--check` prints for one out-of-date file. */
export function planDiff(f: PlannedFile): string {
  return unifiedDiff(f.before, f.after, { from: `a/${f.displayPath}`, to: `b/${f.displayPath}` });
}
