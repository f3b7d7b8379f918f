/**
 * Inputs → source texts: files as named, directories recursively (`*.yaml`, `*.yml`), and
 * globs (`*`, `**`, `?`). Problems (a missing file, a directory without YAML, a glob that
 * matches nothing) become diagnostics; reading never throws for bad input.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { SourceText } from '../api.js';
import type { Diagnostic } from '../diagnostics.js';

export interface ReadResult {
  sources: SourceText[];
  diagnostics: Diagnostic[];
}

export interface ReadOptions {
  /** Inputs and displayed paths are relative to this directory (default: `process.cwd()`). */
  cwd?: string;
}

const YAML_FILE = /\.ya?ml$/i;
const GLOB_CHAR = /[*?[]/;

/** Whether an input is a glob (rather than a file or directory path). */
export function isGlob(input: string): boolean {
  return GLOB_CHAR.test(input);
}

/** The directory a glob's matches live under: its segments before the first with a wildcard (`.` if none). */
export function globBase(pattern: string): string {
  const segments = pattern.split(sep).join('/').split('/');
  const firstGlob = segments.findIndex((s) => GLOB_CHAR.test(s));
  return segments.slice(0, firstGlob < 0 ? segments.length : firstGlob).join('/') || '.';
}

export async function readInputs(inputs: readonly string[], options: ReadOptions = {}): Promise<ReadResult> {
  const cwd = options.cwd ?? process.cwd();
  const diagnostics: Diagnostic[] = [];
  const files: string[] = [];
  for (const input of inputs) {
    const found = isGlob(input) ? await expandGlob(input, cwd) : await expandPath(input, cwd, diagnostics);
    if (found && found.length === 0) {
      const glob = isGlob(input);
      diagnostics.push(problem(glob ? 'KG116' : 'KG102', input, glob ? `no file matches ${input}` : `directory ${input} holds no .yaml or .yml files`));
    }
    files.push(...(found ?? []));
  }
  const unique = [...new Set(files)].sort();
  const sources = await Promise.all(unique.map(async (abs) => ({ file: display(abs, cwd), text: await readFile(abs, 'utf8') })));
  return { sources, diagnostics };
}

/** A file (returned as is, whatever its extension) or a directory (walked); undefined when missing. */
async function expandPath(input: string, cwd: string, diagnostics: Diagnostic[]): Promise<string[] | undefined> {
  const abs = resolve(cwd, input);
  const info = await stat(abs).catch(() => undefined);
  if (!info) {
    diagnostics.push(problem('KG101', input, `no such file or directory: ${input}`));
    return undefined;
  }
  if (!info.isDirectory()) return [abs];
  return (await walk(abs)).filter((f) => YAML_FILE.test(f));
}

/** Every file below `dir`, skipping hidden directories and node_modules. */
async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (!e.name.startsWith('.') && e.name !== 'node_modules') out.push(...(await walk(path)));
    } else if (e.isFile()) out.push(path);
  }
  return out;
}

async function expandGlob(pattern: string, cwd: string): Promise<string[]> {
  const baseDir = globBase(pattern);
  const base = resolve(cwd, baseDir);
  const rest = pattern.split(sep).join('/').slice(baseDir === '.' ? 0 : baseDir.length + 1);
  const matcher = globToRegExp(rest);
  const files = await walk(base);
  return files.filter((f) => matcher.test(relative(base, f).split(sep).join('/')));
}

/** `**` spans directories, `*` and `?` stay within one path segment. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

function display(abs: string, cwd: string): string {
  const rel = relative(cwd, abs);
  const shown = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
  return shown.split(sep).join('/');
}

function problem(code: string, input: string, message: string): Diagnostic {
  return { severity: 'error', code, message, file: input, line: 1, col: 1, pointer: '' };
}
