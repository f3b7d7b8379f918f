/**
 * The content-hash cache that makes a repeated `generate` cheap. One JSON file per output
 * directory under `.kopfgen-cache/` records: the key of the last successful run (hash of every
 * input's content, the options, and kopfgen's own build), the hash/size/mtime of every generated
 * file it wrote, and the stub files with the hash they had on disk afterwards.
 *
 * A hit skips parsing and emitting entirely, but is only trusted after every recorded output is
 * verified on disk (size and mtime, or failing that its content hash); anything else is a miss.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GeneratedFile, GenerateOptions, SourceText } from '../api.js';
import type { Diagnostic } from '../diagnostics.js';
import { listFiles, readIfExists } from '../io/fs.js';
import type { ProjectMemo } from '../io/stub-scan.js';
import type { StubMemo } from '../io/write.js';

export const CACHE_DIR = '.kopfgen-cache';

interface FileStamp {
  /** Relative to the output directory. */
  path: string;
  hash: string;
  size: number;
  mtimeMs: number;
}

interface StubRecord {
  sourceHash: string;
  diskHash: string;
  /** The file's definitions that other files of the stubs directory registered when it was written. */
  elsewhere: string[];
}

export interface CacheEntry {
  key: string;
  generated: FileStamp[];
  /** The last run's stub files (small), so a hit can still create a deleted stub file. */
  stubFiles: GeneratedFile[];
  /** Keyed by absolute stub file path. */
  stubs: Record<string, StubRecord>;
  /** Warnings and notes of the run, replayed on a hit. */
  diagnostics: Diagnostic[];
  stats: { crds: number; versions: number; handlers: number };
  /** The project scan's listing and scans (src/io/stub-scan.ts), so an unchanged project is not parsed again. */
  project?: ProjectMemo;
}

export function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

let buildFingerprint: Promise<string> | undefined;

/**
 * Identifies this kopfgen build: the package.json and the content of every compiled module
 * (content, not mtime: a rebuild that changes nothing must not invalidate users' caches).
 */
function fingerprint(): Promise<string> {
  buildFingerprint ??= (async () => {
    const srcRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
    const pkg = (await readIfExists(resolve(srcRoot, '../../package.json'))) ?? '';
    const parts = [hash(pkg)];
    for (const file of (await listFiles(srcRoot)).sort()) {
      if (!file.endsWith('.js')) continue;
      parts.push(`${file}:${hash(await fs.readFile(file, 'utf8'))}`);
    }
    return hash(parts.join('\n'));
  })();
  return buildFingerprint;
}

export async function cacheKey(
  sources: SourceText[],
  options: GenerateOptions,
  outDir: string,
  stubsDir: string | undefined,
): Promise<string> {
  const h = createHash('sha256');
  h.update(await fingerprint());
  h.update(JSON.stringify({ options, outDir, stubsDir: stubsDir ?? null }));
  for (const s of sources) h.update(`\0${s.file}\0${hash(s.text)}`);
  return h.digest('hex');
}

export class Cache {
  private readonly path: string;

  constructor(cwd: string, outDir: string) {
    this.path = join(cwd, CACHE_DIR, `${hash(outDir).slice(0, 16)}.json`);
  }

  async load(): Promise<CacheEntry | undefined> {
    try {
      const text = await readIfExists(this.path);
      return text === undefined ? undefined : (JSON.parse(text) as CacheEntry);
    } catch {
      return undefined; // a corrupt cache is just a miss
    }
  }

  async save(entry: CacheEntry): Promise<void> {
    await fs.mkdir(dirname(this.path), { recursive: true });
    const temp = `${this.path}.${process.pid}.tmp`;
    await fs.writeFile(temp, JSON.stringify(entry));
    await fs.rename(temp, this.path);
  }
}

/**
 * The entry's generated files as they are on disk now, when every one has the recorded content
 * (same size and mtime, or failing that the same hash); undefined when any is missing or changed.
 * A file touched without a change gets a fresh size/mtime, so the next run trusts it by stat alone.
 */
export async function verifyGenerated(entry: CacheEntry, outDir: string): Promise<FileStamp[] | undefined> {
  const current = await Promise.all(
    entry.generated.map(async (stamp) => {
      const abs = join(outDir, stamp.path);
      const st = await fs.stat(abs).catch(() => undefined);
      if (!st) return undefined;
      if (st.size === stamp.size && st.mtimeMs === stamp.mtimeMs) return stamp;
      const text = await readIfExists(abs);
      return text !== undefined && hash(text) === stamp.hash
        ? { ...stamp, size: st.size, mtimeMs: st.mtimeMs }
        : undefined;
    }),
  );
  return current.every((s) => s !== undefined) ? (current as FileStamp[]) : undefined;
}

/** Stamps the generated files just written (or verified unchanged) for the next run. */
export async function stampGenerated(files: GeneratedFile[], outDir: string): Promise<FileStamp[]> {
  const stamps: FileStamp[] = [];
  for (const f of files) {
    if (f.role !== 'generated') continue;
    const st = await fs.stat(join(outDir, f.path));
    stamps.push({ path: f.path, hash: hash(f.content), size: st.size, mtimeMs: st.mtimeMs });
  }
  return stamps;
}

function stubSourceHash(file: GeneratedFile): string {
  return hash(JSON.stringify([file.path, file.content, file.stubs ?? []]));
}

/**
 * Skips the stub merge when the stub file is byte for byte what the last run left for the same
 * stubs, with the same handlers registered in other files (moving one out or back changes what
 * the merge would add).
 */
export function stubMemo(entry: CacheEntry | undefined, stubsDir: string | undefined): StubMemo {
  return (file, existing, elsewhere) => {
    if (!entry || !stubsDir) return false;
    const record = entry.stubs[join(stubsDir, file.path)];
    if (!record || record.sourceHash !== stubSourceHash(file) || record.diskHash !== hash(existing)) return false;
    return JSON.stringify(record.elsewhere) === JSON.stringify(elsewhere);
  };
}

export function stubRecord(file: GeneratedFile, after: string, elsewhere: string[]): StubRecord {
  return { sourceHash: stubSourceHash(file), diskHash: hash(after), elsewhere };
}
