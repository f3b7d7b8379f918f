/**
 * The user's code as the writer needs it: every TypeScript file of the project that uses the
 * generated code (`project-files.ts`: the files the tsconfig.json includes and the stubs
 * directory's) parsed (`source-scan.ts`) for the handlers it registers and the generated names it
 * imports. From that, which handlers are present wherever the user put them, and which
 * registrations and imports the run leaves behind (orphans), as positioned diagnostics:
 *
 * - KG320 (warning) at a registration of a definition the CRD no longer names;
 * - KG321 (error) at an import of a name the generated module would no longer export, or from a
 *   module the run would no longer generate: writing would leave a project that does not
 *   type-check (TS2305/TS2724/TS2307), so nothing is written until the user removes that code
 *   (kopfgen never deletes it) or names the handler again. A helper in `src/lib/` counts as much
 *   as a stub file.
 *
 * Each file's access facts (`access-scan.ts`) come from the same parse and are kept with its scan:
 * `generate` reports the client calls no declaration covers (KG361, `cli/uses-check.ts`).
 */
import { createHash } from 'node:crypto';
import { dirname, relative, resolve, sep } from 'node:path';
import type { Diagnostic } from '../diagnostics.js';
import { exportedNames, type ScannedFile } from '../stubs/handler-scan.js';
import { displayPath } from './fs.js';
import { projectFiles, type ListingMemo } from './project-files.js';
import { scanAccess, type AccessFacts } from './access-scan.js';
import { parseSource, scanParsed } from './source-scan.js';
import { tsMorph } from './ts-morph-load.js';

export interface ScannedStubFile {
  absPath: string;
  scan: ScannedFile;
}

/**
 * What the last run learnt about the project (JSON, kept in the generate cache): the tsconfig's
 * listing and each parsed file's scan by the hash of its text. A run with nothing changed then
 * needs no TypeScript at all.
 */
export interface ProjectMemo {
  listing?: ListingMemo;
  scans: Record<string, ScanMemo>;
}

/** One file's scan and access facts by the hash of its text (`access` missing in a memo from before it was kept: parsed again). */
interface ScanMemo {
  hash: string;
  scan: ScannedFile;
  access?: AccessFacts;
}

/**
 * The project's files that mention the output, parsed (or their scans reused). `definitions`: the
 * handler definitions the run knows, whose mention alone makes a file worth parsing (a
 * registration through a re-export).
 */
export async function scanProject(
  outDir: string,
  stubsDir: string | undefined,
  definitions: ReadonlySet<string>,
  memo?: ProjectMemo,
): Promise<{ files: ScannedStubFile[]; memo: ProjectMemo }> {
  const { files, listing } = await projectFiles(outDir, stubsDir, definitions, memo?.listing);
  const scans: ProjectMemo['scans'] = {};
  const out = files.map(({ absPath, text }): ScannedStubFile => {
    const digest = createHash('sha256').update(text).digest('hex');
    const kept = memo?.scans[absPath];
    const { scan, access } =
      kept?.hash === digest && kept.access !== undefined
        ? { scan: kept.scan, access: kept.access }
        : scanBoth(absPath, text);
    scans[absPath] = { hash: digest, scan, access };
    return { absPath, scan };
  });
  return { files: out, memo: { ...(listing ? { listing } : {}), scans } };
}

/** `memo` with `files` (their texts as written) scanned, for the next run. */
export function rememberScans(memo: ProjectMemo, files: readonly { absPath: string; text: string }[]): ProjectMemo {
  const scans = { ...memo.scans };
  for (const { absPath, text } of files) {
    const digest = createHash('sha256').update(text).digest('hex');
    if (scans[absPath]?.hash !== digest) scans[absPath] = { hash: digest, ...scanBoth(absPath, text) };
  }
  return { ...memo, scans };
}

/** One parse of a file: its registrations and imports, and its access facts. */
function scanBoth(absPath: string, text: string): { scan: ScannedFile; access: AccessFacts } {
  const ts = tsMorph().ts;
  const source = parseSource(ts, absPath, text);
  return { scan: scanParsed(ts, source), access: scanAccess(ts, source) };
}

/** Definitions registered in some scanned file other than `absPath`. */
export function registeredElsewhere(files: readonly ScannedStubFile[], absPath: string): Set<string> {
  const out = new Set<string>();
  for (const f of files) if (f.absPath !== absPath) for (const r of f.scan.registrations) out.add(r.definition);
  return out;
}

/** How a target's imports name generated files, and what a generated file exports. */
export interface GeneratedModules {
  /** The generated files (relative to `outDir`, `/`-separated) an import of `specifier` in `file` may mean; undefined when it names none. */
  candidates(file: string, specifier: string, outDir: string): string[] | undefined;
  exported(text: string): Set<string>;
  /** Where `name` would be a module of its own inside the package the candidates name (Python's `from pkg import module`). */
  submodules?(candidates: readonly string[], name: string): string[];
}

/** TypeScript: relative specifiers into the output directory (`../generated/example.com/v1/myresources.js`). */
export const TS_MODULES: GeneratedModules = {
  candidates: (file, specifier, outDir) => {
    const rel = generatedModule(file, specifier, outDir);
    return rel === undefined ? undefined : moduleCandidates(rel);
  },
  exported: exportedNames,
};

/**
 * The orphan diagnostics. `moduleText(rel)` gives the text this run leaves at `rel` (relative to
 * the output directory), or undefined when the run does not produce that file.
 */
export async function orphanDiagnostics(
  files: readonly ScannedStubFile[],
  outDir: string,
  cwd: string,
  moduleText: (rel: string) => Promise<string | undefined>,
  modules: GeneratedModules = TS_MODULES,
): Promise<Diagnostic[]> {
  const exportsOf = new Map<string, Set<string> | undefined>();
  const out: Diagnostic[] = [];
  for (const f of files) {
    const shown = displayPath(cwd, f.absPath);
    const gone = new Map<string, string>();
    const missing = new Map<string, { names: string[]; line: number; col: number; generated: boolean }>();
    for (const imp of f.scan.imports) {
      const candidates = modules.candidates(f.absPath, imp.module, outDir);
      if (candidates === undefined) continue;
      const rel = candidates.join('|');
      if (!exportsOf.has(rel)) {
        let text: string | undefined;
        for (const candidate of candidates) text ??= await moduleText(candidate);
        exportsOf.set(rel, text === undefined ? undefined : modules.exported(text));
      }
      const names = exportsOf.get(rel);
      if (names?.has(imp.name)) continue;
      if (names !== undefined && (await someText(modules.submodules?.(candidates, imp.name) ?? [], moduleText)))
        continue;
      gone.set(imp.name, imp.module);
      const group = missing.get(imp.module) ?? {
        names: [],
        line: imp.line,
        col: imp.col,
        generated: names !== undefined,
      };
      group.names.push(`\`${imp.name}\``);
      missing.set(imp.module, group);
    }
    // One error per module, at its first missing name: the import the user has to edit.
    for (const [module, g] of missing) {
      const why = g.generated
        ? `"${module}" no longer exports ${g.names.length > 1 ? 'them' : 'it'} (the CRD no longer names that handler or type)`
        : `"${module}" is no longer generated (its CRD or version is gone)`;
      out.push({
        severity: 'error',
        code: 'KG321',
        file: shown,
        line: g.line,
        col: g.col,
        pointer: '',
        message: `${g.names.join(', ')} ${g.names.length > 1 ? 'are' : 'is'} imported here but ${why}; generating would leave code that does not type-check, so nothing was written: remove the import and the code using it (kopfgen never deletes your code), or name the handler in the CRD again`,
      });
    }
    for (const r of f.scan.registrations) {
      const module = gone.get(r.definition);
      if (module === undefined) continue;
      out.push({
        severity: 'warning',
        code: 'KG320',
        file: shown,
        line: r.line,
        col: r.col,
        pointer: '',
        message: `handler registered with \`${r.definition}.${r.method}\`, which the CRD no longer names (not exported by "${module}"); remove the handler, or name it in the CRD again`,
      });
    }
  }
  return out;
}

/** Whether the run leaves any of the paths. */
async function someText(
  paths: readonly string[],
  moduleText: (rel: string) => Promise<string | undefined>,
): Promise<boolean> {
  for (const path of paths) if ((await moduleText(path)) !== undefined) return true;
  return false;
}

/** The path (relative to `outDir`, `/`-separated, as written) an import specifier of `file` names inside the output, if any. */
function generatedModule(file: string, specifier: string, outDir: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const abs = resolve(dirname(file), specifier);
  if (abs !== outDir && !abs.startsWith(outDir + sep)) return undefined;
  return relative(outDir, abs).split(sep).join('/');
}

/** The generated files an import may mean: `x.js` → `x.ts`; `x` → `x.ts` or `x/index.ts` (the output directory itself → `index.ts`). */
function moduleCandidates(rel: string): string[] {
  if (rel === '') return ['index.ts'];
  if (/\.js$/.test(rel)) return [rel.replace(/\.js$/, '.ts')];
  if (/\.ts$/.test(rel)) return [rel];
  return [`${rel}.ts`, `${rel}/index.ts`];
}
