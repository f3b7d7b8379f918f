/**
 * File-system helpers shared by the CLI, the configuration loader and the writer: reading a
 * file that may be absent, listing a tree, showing a path relative to the working directory, and
 * walking up towards the repository root.
 */
import { promises as fs } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export function displayPath(cwd: string, abs: string): string {
  const rel = relative(cwd, abs);
  return (rel === '' ? '.' : rel).split(sep).join('/');
}

export async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await fs.readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Regular files under `dir`, recursively; symlinks are not followed (they are never ours). */
export async function listFiles(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw e;
  }
  const out: string[] = [];
  for (const entry of entries) {
    const abs = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(abs)));
    else if (entry.isFile()) out.push(abs);
  }
  return out;
}

/**
 * The directory above `dir`, unless `dir` is a repository root (holds `.git`) or the file-system
 * root: how far kopfgen looks up for a configuration or a tsconfig.json, as git, ESLint and tsc do.
 */
export async function parentWithin(dir: string): Promise<string | undefined> {
  if ((await fs.stat(resolve(dir, '.git')).catch(() => undefined)) !== undefined) return undefined;
  const parent = dirname(dir);
  return parent === dir ? undefined : parent;
}
