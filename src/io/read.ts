/**
 * Inputs → source texts: files as named, directories recursively (`*.yaml`, `*.yml`, `*.json`),
 * globs (`*`, `**`, `?`), and `-` for standard input (shown as `<stdin>`, so
 * `helm template … | kopfgen generate -` works). Every text is decoded as strict UTF-8. Problems
 * (a missing file, a directory without CRD files, a glob that matches nothing, bytes that are not
 * UTF-8) become diagnostics; reading never throws for bad input.
 */
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
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
  /** Reads all of standard input, for the input `-` (default: `process.stdin`). */
  stdin?: () => Promise<Uint8Array>;
  /**
   * Above this many bytes of files in all, each file's text is read from disk again whenever it
   * is used instead of being held (default HOLD_BYTES): a 100 MB provider package then costs the
   * run a file's text at a time, not its whole size. Every file is still read and checked here.
   */
  holdBytes?: number;
}

export const HOLD_BYTES = 16_000_000;

/** The input that names standard input, and the file name diagnostics give it. */
export const STDIN_INPUT = '-';
export const STDIN_FILE = '<stdin>';

/** What a directory walk picks up: YAML, and JSON (YAML 1.2 reads JSON with the same positions). */
const CRD_FILE = /\.(?:ya?ml|json)$/i;
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
  let stdin = false;
  for (const input of inputs) {
    if (input === STDIN_INPUT) {
      stdin = true;
      continue;
    }
    const found = isGlob(input) ? await expandGlob(input, cwd, diagnostics) : await expandPath(input, cwd, diagnostics);
    if (found && found.length === 0) {
      const glob = isGlob(input);
      diagnostics.push(
        problem(
          glob ? 'KG116' : 'KG102',
          input,
          glob ? `no file matches ${input}` : `directory ${input} holds no .yaml, .yml or .json files`,
        ),
      );
    }
    files.push(...(found ?? []));
  }
  const unique = [...new Set(files)].sort();
  const sizes = await Promise.all(
    unique.map((abs) =>
      stat(abs).then(
        (info) => info.size,
        () => 0,
      ),
    ),
  );
  const hold = sizes.reduce((n, size) => n + size, 0) <= (options.holdBytes ?? HOLD_BYTES);
  // Each file is checked as soon as it is read, a few at a time, so the bytes of a large input
  // set are never all held (2,000 CRDs: 100 MB of buffers otherwise). A text read again on use is
  // only validated here (`isUtf8`, no string made): decoding a few 5 MB bundles at once to drop
  // the strings made the read the run's memory peak.
  const named: (SourceText | Diagnostic)[] = new Array(unique.length);
  let next = 0;
  const reader = async (): Promise<void> => {
    while (next < unique.length) {
      const i = next++;
      const file = display(unique[i], cwd);
      const bytes = await readFile(unique[i]).catch((e: unknown) => readProblem(file, e));
      if (!(bytes instanceof Uint8Array)) {
        named[i] = bytes;
        continue;
      }
      if (!hold && isUtf8(bytes)) {
        named[i] = readOnUse(file, unique[i], bytes.length);
        continue;
      }
      const text = decodeUtf8(file, bytes);
      named[i] = typeof text !== 'string' ? text : hold ? { file, text } : readOnUse(file, unique[i], bytes.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, unique.length) }, reader));
  if (stdin) {
    const text = decodeUtf8(STDIN_FILE, await (options.stdin ?? readStdin)());
    named.push(typeof text === 'string' ? { file: STDIN_FILE, text } : text);
  }
  const sources: SourceText[] = [];
  for (const entry of named) {
    if ('text' in entry) sources.push(entry);
    else diagnostics.push(entry);
  }
  return { sources, diagnostics };
}

/**
 * A source whose text is read from disk on each use. It was read and checked once already; a
 * file changed meanwhile is read as it is now (as a later run would), one that became unreadable
 * fails the run with the file-system error on its path.
 */
function readOnUse(file: string, abs: string, bytes: number): SourceText {
  return {
    file,
    bytes,
    get text(): string {
      const decoded = decodeUtf8(file, readFileSync(abs));
      if (typeof decoded === 'string') return decoded;
      throw new Error(`${file} changed while kopfgen was running and is no longer UTF-8; run it again`);
    },
  };
}

/** Files read at once: enough to keep the disk busy, few enough that their buffers stay small. */
const READ_CONCURRENCY = 8;

async function readStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

/**
 * Strict UTF-8 (the encoding YAML 1.2 and JSON both require of a stream without a BOM for
 * another encoding): a Latin-1 file must not turn silently into U+FFFD replacement characters,
 * so the first byte that is not UTF-8 is reported at its line and column.
 */
export function decodeUtf8(file: string, bytes: Uint8Array): string | Diagnostic {
  const bom = byteOrderMark(bytes);
  if (bom !== undefined) {
    const message = `not UTF-8: the file is ${bom} (byte-order mark); convert it, e.g. \`iconv -f ${bom} -t UTF-8\``;
    return { severity: 'error', code: 'KG150', message, file, line: 1, col: 1, pointer: '' };
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const bad = firstInvalidUtf8(bytes);
    const lineStart = bytes.lastIndexOf(0x0a, bad - 1) + 1;
    const line = countNewlines(bytes, bad) + 1;
    const col = new TextDecoder('utf-8').decode(bytes.subarray(lineStart, bad)).length + 1;
    const hex = (bytes[bad] ?? 0).toString(16).toUpperCase().padStart(2, '0');
    const message = `not UTF-8: byte 0x${hex} is not valid UTF-8 (is the file Latin-1?); convert it, e.g. \`iconv -f latin1 -t utf-8\``;
    return { severity: 'error', code: 'KG150', message, file, line, col, pointer: '' };
  }
}

/**
 * The encoding a UTF-16 or UTF-32 byte-order mark announces (YAML 1.2 §5.2 lists these marks),
 * so such a file is named for what it is instead of for its first byte that is not UTF-8.
 * UTF-32LE's mark starts like UTF-16LE's, so it is tested first.
 */
function byteOrderMark(bytes: Uint8Array): string | undefined {
  const [a, b, c, d] = bytes;
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) return 'UTF-32LE';
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return 'UTF-32BE';
  if (a === 0xff && b === 0xfe) return 'UTF-16LE';
  if (a === 0xfe && b === 0xff) return 'UTF-16BE';
  return undefined;
}

function countNewlines(bytes: Uint8Array, end: number): number {
  let n = 0;
  for (let i = 0; i < end; i++) if (bytes[i] === 0x0a) n++;
  return n;
}

/** The offset of the first byte that starts no valid UTF-8 sequence (RFC 3629, section 4). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const [length, low, high] =
      b < 0x80
        ? [1, 0, 0]
        : b >= 0xc2 && b <= 0xdf
          ? [2, 0x80, 0xbf]
          : b === 0xe0
            ? [3, 0xa0, 0xbf]
            : b === 0xed
              ? [3, 0x80, 0x9f]
              : b >= 0xe1 && b <= 0xef
                ? [3, 0x80, 0xbf]
                : b === 0xf0
                  ? [4, 0x90, 0xbf]
                  : b >= 0xf1 && b <= 0xf3
                    ? [4, 0x80, 0xbf]
                    : b === 0xf4
                      ? [4, 0x80, 0x8f]
                      : [0, 0, 0];
    if (length === 0) return i;
    for (let k = 1; k < length; k++) {
      const c = bytes[i + k];
      const [lo, hi] = k === 1 ? [low, high] : [0x80, 0xbf];
      if (c === undefined || c < lo || c > hi) return i;
    }
    i += length;
  }
  return bytes.length;
}

/** A file (returned as is, whatever its extension) or a directory (walked); undefined when missing. */
async function expandPath(input: string, cwd: string, diagnostics: Diagnostic[]): Promise<string[] | undefined> {
  const abs = resolve(cwd, input);
  const info = await stat(abs).catch((e: unknown) => readProblem(input, e));
  if (!('isDirectory' in info)) {
    diagnostics.push(info);
    return undefined;
  }
  if (!info.isDirectory()) return [abs];
  const walked = await walk(abs, cwd, diagnostics, true);
  // A directory that could not be listed has said why; "holds no .yaml" would be a second, wrong reason.
  return walked?.filter((f) => CRD_FILE.test(f));
}

/**
 * Every file below `dir`, skipping hidden directories and node_modules; undefined when `dir`
 * itself cannot be listed. A directory that cannot be listed (permission denied, a link loop)
 * is KG118: CRDs in it would be missed without a word otherwise. `missingIsEmpty`: a glob's base
 * that does not exist matches nothing (KG116), it is no read failure.
 */
async function walk(
  dir: string,
  cwd: string,
  diagnostics: Diagnostic[],
  missingIsEmpty = false,
): Promise<string[] | undefined> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if (!(missingIsEmpty && (e as NodeJS.ErrnoException).code === 'ENOENT'))
      diagnostics.push(readProblem(display(dir, cwd), e));
    return undefined;
  }
  const out: string[] = [];
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (!e.name.startsWith('.') && e.name !== 'node_modules')
        out.push(...((await walk(path, cwd, diagnostics)) ?? []));
    } else if (e.isFile()) out.push(path);
  }
  return out;
}

/**
 * Why `input` (as the user named it) cannot be read: KG101 when it does not exist, KG118 for a
 * path that exists but cannot be read (permission denied, a symbolic link loop, an I/O error).
 * Never a problem of the output: nothing was going to be written there.
 */
export function readProblem(input: string, e: unknown): Diagnostic {
  const code = (e as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (code === 'ENOENT' || code === 'ENOTDIR') return problem('KG101', input, `no such file or directory: ${input}`);
  const why =
    code === 'EACCES' || code === 'EPERM'
      ? 'permission denied (check its mode and the directories above it)'
      : code === 'ELOOP'
        ? 'a symbolic link loop (or a chain of too many links)'
        : `${code || 'error'} (${(e instanceof Error ? e.message : String(e)).replace(/^E[A-Z]+: /, '').replace(/, \w+ '[^']*'$/, '')})`;
  return problem('KG118', input, `cannot read ${input}: ${why}`);
}

async function expandGlob(pattern: string, cwd: string, diagnostics: Diagnostic[]): Promise<string[]> {
  const baseDir = globBase(pattern);
  const base = resolve(cwd, baseDir);
  const rest = pattern
    .split(sep)
    .join('/')
    .slice(baseDir === '.' ? 0 : baseDir.length + 1);
  const matcher = globToRegExp(rest);
  const files = (await walk(base, cwd, diagnostics, true)) ?? [];
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
