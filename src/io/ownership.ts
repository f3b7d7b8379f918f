/**
 * Which files of an output directory are kopfgen's to remove: those its own runs produced, as
 * recorded in the directory's manifest (`.kopfgen-manifest.json`, written with the output through
 * the plan/apply writer). Never a file another run produced: not a nested output directory's
 * (it has its own manifest), not an enclosing one's (listed in that directory's manifest).
 *
 * Migration: a directory generated before manifests existed has none. Its files that carry the
 * generated header, outside any nested or enclosing run's files, are taken as its own once; the
 * run then writes the manifest. A directory without a manifest that holds files kopfgen did not
 * generate (e.g. a mistyped `--out src`) is refused (KG322) before anything is written.
 */
import { promises as fs } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { Diagnostic } from '../diagnostics.js';
import { isGeneratedText } from '../emit/header.js';
import { displayPath, listFiles, readIfExists } from './fs.js';

export const OUTPUT_MANIFEST = '.kopfgen-manifest.json';

interface Manifest {
  kopfgen: 1;
  /** Files the directory's last run produced, relative to it, `/`-separated, sorted. */
  files: string[];
}

export interface Ownership {
  /** Absolute paths of existing files this directory's runs produced (or, without a manifest, owns once). */
  owned: string[];
  diagnostics: Diagnostic[];
}

/** The manifest's text for the generated files (relative paths) a run leaves in its directory. */
export function manifestText(paths: readonly string[]): string {
  const manifest: Manifest = { kopfgen: 1, files: [...new Set(paths)].sort() };
  return JSON.stringify(manifest, null, 2) + '\n';
}

/** `setting`: how the user chooses the output directory, for the message (`--out (or "out" in …)`). */
export async function ownedFiles(
  outDir: string,
  cwd: string,
  setting = '--out (or "out" in kopfgen.config.json)',
): Promise<Ownership> {
  const shown = displayPath(cwd, join(outDir, OUTPUT_MANIFEST));
  const text = await readIfExists(join(outDir, OUTPUT_MANIFEST));
  const others = await enclosingRunsFiles(outDir);
  if (text !== undefined) {
    const listed = parseManifest(text);
    if (!listed) {
      const message = `${shown} is not a kopfgen output manifest (expected {"kopfgen": 1, "files": [...]}); delete it and run again to take the directory's generated files over`;
      return {
        owned: [],
        diagnostics: [{ severity: 'error', code: 'KG323', message, file: shown, line: 1, col: 1, pointer: '' }],
      };
    }
    const owned = listed
      .map((p) => resolve(outDir, p))
      .filter((abs) => abs.startsWith(outDir + sep) && !others.has(abs));
    return { owned: await existing(owned), diagnostics: [] };
  }
  const files = await filesOfThisRoot(outDir);
  const owned: string[] = [];
  const foreign: string[] = [];
  for (const abs of files) {
    if (others.has(abs)) continue;
    if (await startsWithHeader(abs)) owned.push(abs);
    else if (!basename(abs).startsWith('.')) foreign.push(abs);
  }
  if (foreign.length > 0) {
    const out = displayPath(cwd, outDir);
    const examples = foreign
      .slice(0, 3)
      .map((f) => displayPath(cwd, f))
      .join(', ');
    const message = `refusing to generate into ${out}: it has no ${OUTPUT_MANIFEST} and holds ${foreign.length} file${foreign.length > 1 ? 's' : ''} kopfgen did not generate (${examples}${foreign.length > 3 ? ', …' : ''}); choose an empty directory or one kopfgen generated for ${setting}`;
    return {
      owned: [],
      diagnostics: [{ severity: 'error', code: 'KG322', message, file: out, line: 1, col: 1, pointer: '' }],
    };
  }
  return { owned, diagnostics: [] };
}

function parseManifest(text: string): string[] | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || !('files' in value) || !Array.isArray(value.files))
      return undefined;
    const files: unknown[] = value.files;
    return files.every((f): f is string => typeof f === 'string') ? files : undefined;
  } catch {
    return undefined;
  }
}

/** Files under `outDir`, leaving out nested output directories (those with a manifest of their own). */
async function filesOfThisRoot(outDir: string): Promise<string[]> {
  const all = await listFiles(outDir);
  const nested = all
    .filter((f) => basename(f) === OUTPUT_MANIFEST && dirname(f) !== outDir)
    .map((f) => dirname(f) + sep);
  return all.filter((f) => basename(f) !== OUTPUT_MANIFEST && !nested.some((n) => f.startsWith(n)));
}

/** Files the manifests of enclosing directories list: another run's output, even when it lies below ours. */
async function enclosingRunsFiles(outDir: string): Promise<Set<string>> {
  const out = new Set<string>();
  for (let dir = dirname(outDir); ; dir = dirname(dir)) {
    const text = await readIfExists(join(dir, OUTPUT_MANIFEST)).catch(() => undefined);
    for (const p of (text && parseManifest(text)) || []) out.add(resolve(dir, p));
    if (dirname(dir) === dir) return out;
  }
}

async function existing(paths: string[]): Promise<string[]> {
  const found = await Promise.all(
    paths.map(async (p) => ((await fs.stat(p).catch(() => undefined))?.isFile() ? p : undefined)),
  );
  return found.filter((p): p is string => p !== undefined);
}

export async function startsWithHeader(path: string): Promise<boolean> {
  const handle = await fs.open(path, 'r');
  try {
    const buf = Buffer.alloc(64);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return isGeneratedText(buf.toString('utf8', 0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** `rel` relative to the output directory, as the manifest lists it. */
export function manifestPath(outDir: string, abs: string): string {
  return relative(outDir, abs).split(sep).join('/');
}
