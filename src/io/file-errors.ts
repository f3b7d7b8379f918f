/**
 * File-system failures as diagnostics. Node's errors name the path of the system call that
 * failed, which for an atomic write is an internal temporary (`.x1y2.kopfgen.tmp`) and for a
 * `--out` that is a file is some path below it; the diagnostic names the path the user can act
 * on instead: the target file, or the existing file that stands where a directory must be.
 */
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Diagnostic } from '../diagnostics.js';
import { displayPath } from './fs.js';

/** A file-system failure on `path`, the user's path (never a temporary). */
export class FileError extends Error {
  constructor(
    readonly path: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function isErrnoError(e: unknown): e is NodeJS.ErrnoException & { code: string } {
  return (
    e instanceof Error &&
    typeof (e as NodeJS.ErrnoException).code === 'string' &&
    /^E[A-Z]+$/.test((e as NodeJS.ErrnoException).code ?? '')
  );
}

/** `e` (a failed call on a temporary or on `path` itself) as a failure on `path`; other errors unchanged. */
export function onPath(e: unknown, path: string): unknown {
  if (e instanceof FileError || !isErrnoError(e)) return e;
  return new FileError(path, e.code, e.message);
}

/**
 * KG900 not writable (EACCES, EPERM, EROFS), KG901 a file where a directory must be (ENOTDIR,
 * EEXIST on a directory, EISDIR), KG902 any other file-system failure (ENOSPC, EIO, …); undefined
 * for an error that is not a file-system failure.
 */
/** `directories`: which of the user's settings name the directories, for KG901's hint. */
export function fileDiagnostic(e: unknown, cwd: string, directories = '--out and --stubs'): Diagnostic | undefined {
  const error =
    e instanceof FileError ? e : isErrnoError(e) ? new FileError(e.path ?? '', e.code, e.message) : undefined;
  if (!error) return undefined;
  const at = (path: string): Diagnostic => ({
    severity: 'error',
    code: '',
    message: '',
    file: path ? displayPath(cwd, path) : '.',
    line: 1,
    col: 1,
    pointer: '',
  });
  switch (error.code) {
    case 'EACCES':
    case 'EPERM':
    case 'EROFS': {
      const d = at(existingAncestor(error.path));
      const what = error.code === 'EROFS' ? 'is on a read-only file system' : 'is not writable (permission denied)';
      return { ...d, code: 'KG900', message: `${d.file} ${what}; nothing was written` };
    }
    case 'ENOTDIR':
    case 'EEXIST':
    case 'EISDIR': {
      const blocker = error.code === 'EISDIR' ? undefined : blockingFile(error.path);
      const d = at(blocker ?? error.path);
      const message = blocker
        ? `${d.file} is a file, but kopfgen needs a directory there (check ${directories}); nothing was written`
        : `${d.file} is a directory, but kopfgen needs to write a file there; nothing was written`;
      return { ...d, code: 'KG901', message };
    }
    default: {
      const d = at(error.path);
      return {
        ...d,
        code: 'KG902',
        message: `${d.file}: ${error.code} (${withoutPaths(error.message)}); nothing was written`,
      };
    }
  }
}

/** `path` or its nearest existing ancestor, when that is not a directory (what ENOTDIR and EEXIST are about). */
function blockingFile(path: string): string | undefined {
  for (let p = path; p !== dirname(p); p = dirname(p)) {
    try {
      return statSync(p).isDirectory() ? undefined : p;
    } catch {
      // absent or itself below a file: look further up
    }
  }
  return undefined;
}

/** `path`, or its nearest ancestor that exists: a directory that could not be created is its parent's fault. */
function existingAncestor(path: string): string {
  for (let p = path; p !== dirname(p); p = dirname(p)) {
    try {
      statSync(p);
      return p;
    } catch {
      // not there: its parent refused it
    }
  }
  return path;
}

/** Node's message without the quoted path (`ENOSPC: no space left on device, write '…'`). */
function withoutPaths(message: string): string {
  return message.replace(/^E[A-Z]+: /, '').replace(/, \w+ '[^']*'( -> '[^']*')?$/, '');
}
