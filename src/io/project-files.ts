/**
 * The files of the user's project that may use the generated code: every TypeScript file the
 * nearest tsconfig.json above the output directory includes (and its project references'), as
 * tsc would compile them, plus those of the stubs directory, but none under the output directory.
 * Only the files whose text mentions the output directory's name, a handler definition's name or
 * `builtins` (client calls and declarations of built-in kinds, which `generate` checks as `run
 * --check` does: KG361) are returned with their text: importing the generated code needs its path
 * in a specifier, so the others are read but never parsed, which keeps a large project cheap.
 *
 * The tsconfig is read with TypeScript's own reader (`extends`, `include`/`exclude`/`files`,
 * `references`), from ts-morph's bundled `typescript`. Loading it costs about a quarter of a
 * second, so the listing is kept (`ListingMemo`, in the generate cache) with what it depends on,
 * as `tsc --watch` watches it: the configuration files read and the mtime of every directory
 * under the directories TypeScript names for wildcards (an entry added, removed or renamed changes
 * its directory's mtime). While those are unchanged the listing is reused without TypeScript.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, sep } from 'node:path';
import type { ts as TS } from 'ts-morph';
import { listFiles, parentWithin } from './fs.js';
import { tsMorph } from './ts-morph-load.js';

const TYPESCRIPT = /\.(?:ts|mts|cts|tsx)$/;
const DECLARATION = /\.d\.[mc]?ts$/;

export interface ProjectFile {
  absPath: string;
  text: string;
}

/** A file or directory as it was: a change of its mtime (or size) means the listing may differ. */
interface Stamp {
  path: string;
  mtimeMs: number;
  size?: number;
}

/** A tsconfig's listing and what it depends on (JSON, kept in the generate cache between runs). */
export interface ListingMemo {
  tsconfig: string;
  /** The configuration files TypeScript read (the tsconfig, what it extends, its references). */
  configs: Stamp[];
  /** Every directory whose entries decide the listing, with its mtime. */
  dirs: Stamp[];
  files: string[];
}

export interface ProjectFiles {
  /** The files that mention the output (to be parsed), sorted by path. */
  files: ProjectFile[];
  /** The listing to keep for the next run; undefined without a tsconfig.json. */
  listing?: ListingMemo;
}

export async function projectFiles(
  outDir: string,
  stubsDir: string | undefined,
  names: ReadonlySet<string>,
  memo?: ListingMemo,
): Promise<ProjectFiles> {
  const tsconfig = await nearestTsconfig(outDir);
  const listing = tsconfig === undefined ? undefined : current(memo, tsconfig) ? memo : listTsconfig(tsconfig);
  const paths = new Set<string>(listing?.files);
  if (stubsDir !== undefined) for (const f of await listFiles(stubsDir)) paths.add(f);
  const inside = outDir + sep;
  const candidates = [...paths]
    .filter((f) => TYPESCRIPT.test(f) && !DECLARATION.test(f) && !f.startsWith(inside))
    .sort();
  const marker = basename(outDir);
  // `builtins`: a client call of a built-in kind, or a declaration of one, for the KG361 check.
  const mentions = (text: string): boolean =>
    text.includes(marker) || text.includes('builtins') || [...names].some((n) => text.includes(n));
  const files: ProjectFile[] = [];
  for (const absPath of candidates) {
    // Read synchronously: for thousands of small files, seven times faster than promises (measured).
    const text = readText(absPath);
    if (text !== undefined && mentions(text)) files.push({ absPath, text });
  }
  return { files, listing };
}

/** The first tsconfig.json in `dir` or above it, up to the repository root. */
async function nearestTsconfig(dir: string): Promise<string | undefined> {
  for (let d: string | undefined = dir; d !== undefined; d = await parentWithin(d)) {
    const candidate = join(d, 'tsconfig.json');
    if (stamp(candidate)?.size !== undefined) return candidate;
  }
  return undefined;
}

/** Whether the kept listing still holds: same tsconfig, its configuration files and directories unchanged. */
function current(memo: ListingMemo | undefined, tsconfig: string): memo is ListingMemo {
  if (!memo || memo.tsconfig !== tsconfig) return false;
  const same = (a: Stamp[], b: Stamp[]) => JSON.stringify(a) === JSON.stringify(b);
  return (
    same(
      memo.configs.map((c) => stamp(c.path) ?? { path: c.path, mtimeMs: -1 }),
      memo.configs,
    ) && same(directoryStamps(memo.dirs), memo.dirs)
  );
}

/**
 * The files tsc compiles for `tsconfig` (and its references), read with TypeScript, with what
 * the listing depends on. An unreadable or invalid tsconfig lists nothing (tsc reports it).
 */
function listTsconfig(tsconfig: string): ListingMemo {
  const ts = tsMorph().ts;
  const configs = new Set<string>();
  const roots = new Map<string, boolean>();
  const files: string[] = [];
  const host: TS.ParseConfigFileHost = {
    ...ts.sys,
    readFile: (path) => {
      configs.add(path);
      return ts.sys.readFile(path);
    },
    onUnRecoverableConfigFileDiagnostic: () => undefined,
  };
  const seen = new Set<string>();
  const visit = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    const parsed = ts.getParsedCommandLineOfConfigFile(path, undefined, host);
    if (!parsed) return;
    files.push(...parsed.fileNames);
    // What `tsc --watch` watches for a change of the file list.
    for (const [dir, flags] of Object.entries(parsed.wildcardDirectories ?? {}))
      roots.set(dir, (roots.get(dir) ?? false) || (flags & ts.WatchDirectoryFlags.Recursive) !== 0);
    for (const reference of parsed.projectReferences ?? []) visit(ts.resolveProjectReferencePath(reference));
  };
  visit(tsconfig);
  const dirs: Stamp[] = [];
  for (const [dir, recursive] of [...roots].sort()) collectDirs(dir, recursive, dirs);
  return {
    tsconfig,
    configs: [...configs].sort().flatMap((path) => [stamp(path) ?? { path, mtimeMs: -1 }]),
    dirs,
    files: [...new Set(files)].sort(),
  };
}

/** The recorded directories as they are now (walked again from the same roots). */
function directoryStamps(recorded: Stamp[]): Stamp[] {
  const out: Stamp[] = [];
  const roots = recorded.filter((d) => d.size !== undefined);
  for (const root of roots) collectDirs(root.path, root.size === 1, out);
  return out;
}

/**
 * `dir` (a root: `size` 1 when walked recursively, 0 when not, so a later run walks it the same
 * way) and, when recursive, every directory below it but node_modules and hidden ones, which
 * TypeScript's default excludes and wildcards skip.
 */
function collectDirs(dir: string, recursive: boolean, out: Stamp[]): void {
  const root = stamp(dir);
  out.push({ path: dir, mtimeMs: root?.mtimeMs ?? -1, size: recursive ? 1 : 0 });
  if (!root || !recursive) return;
  const walk = (d: string): void => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith('.') || e.name === 'node_modules') continue;
      const path = join(d, e.name);
      out.push({ path, mtimeMs: stamp(path)?.mtimeMs ?? -1 });
      walk(path);
    }
  };
  walk(dir);
}

/** A file's mtime and size (a directory's mtime, size left out), or undefined when it is not there. */
function stamp(path: string): Stamp | undefined {
  try {
    const st = statSync(path);
    return st.isDirectory() ? { path, mtimeMs: st.mtimeMs } : { path, mtimeMs: st.mtimeMs, size: st.size };
  } catch {
    return undefined;
  }
}

/** A file's text; undefined when it cannot be read (tsc reports that, not kopfgen). */
function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
