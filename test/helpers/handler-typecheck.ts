/**
 * Type-checks generated code plus hand-written case files with golden-support's strict
 * `typecheck`, in a temporary directory laid out as a user project: `generated/…`,
 * `handlers/…` (stubs) and `cases/…`.
 */
import { readFileSync, rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { GeneratedFile } from '../../src/api.js';
import { tempDir, typecheck, writeTree, type TsDiagnostic } from './golden-support.js';

export interface ProjectFiles {
  generated?: GeneratedFile[];
  stubs?: GeneratedFile[];
  /** Further files by project-relative path (e.g. `cases/x.ts`). */
  extra?: Record<string, string>;
}

/**
 * Every error of the project, with `file` relative to its root (e.g. `cases/exactness.ts`).
 * `compiler`: golden-support's `typecheck` (TypeScript 5.9), or typescript7.ts's `typecheck7`.
 */
export function typeCheckProject(
  files: ProjectFiles,
  compiler: (rootNames: readonly string[]) => TsDiagnostic[] = typecheck,
): TsDiagnostic[] {
  const root = tempDir('handlers');
  try {
    const all: GeneratedFile[] = [
      { path: 'package.json', content: '{ "type": "module" }\n', role: 'generated' },
      ...Object.entries(files.extra ?? {}).map(([path, content]) => ({ path, content, role: 'generated' as const })),
      ...(files.generated ?? []).map((f) => ({ ...f, path: `generated/${f.path}` })),
      ...(files.stubs ?? []).map((f) => ({ ...f, path: `handlers/${f.path}` })),
    ];
    const paths = writeTree(root, all).filter((p) => p.endsWith('.ts'));
    return compiler(paths).map((e) => ({ ...e, file: relative(root, e.file) }));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** `// expect TS2353` at the end of a line: the errors a case file must produce, as `file:line code`. */
export function expectedErrors(file: string, text: string): string[] {
  const out: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/\/\/ expect (TS\d+)/g)) out.push(`${file}:${i + 1} ${m[1]}`);
  });
  return out.sort();
}

export function formatErrors(errors: TsDiagnostic[]): string[] {
  return errors.map((e) => `${e.file}:${e.line} TS${e.code}`).sort();
}

export function readFixture(path: string): string {
  return readFileSync(resolve(process.cwd(), path), 'utf8');
}
