/**
 * Type-checks generated code plus hand-written case files with the TypeScript compiler API
 * (strict, `kopfgen/runtime` mapped to the runtime's source), in a temporary directory laid out
 * as a user project: `generated/…`, `handlers/…` (stubs) and `cases/…`.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import type { GeneratedFile } from '../src/api.js';

export interface TsError {
  /** Relative to the project root, e.g. `cases/exactness.ts`. */
  file: string;
  line: number;
  /** 1-based. */
  col: number;
  code: string;
  message: string;
}

export const RUNTIME_INDEX = resolve(process.cwd(), 'src/runtime/index.ts');

export interface ProjectFiles {
  generated?: GeneratedFile[];
  stubs?: GeneratedFile[];
  /** Further files by project-relative path (e.g. `cases/x.ts`). */
  extra?: Record<string, string>;
}

export function typeCheckProject(files: ProjectFiles): TsError[] {
  const root = mkdtempSync(join(tmpdir(), 'kopfgen-handlers-'));
  try {
    const all: Record<string, string> = { 'package.json': '{ "type": "module" }\n', ...files.extra };
    for (const f of files.generated ?? []) all[`generated/${f.path}`] = f.content;
    for (const f of files.stubs ?? []) all[`handlers/${f.path}`] = f.content;
    for (const [path, text] of Object.entries(all)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const names = Object.keys(all).filter((p) => p.endsWith('.ts')).map((p) => join(root, p));
    return typeCheckFiles(names).map((e) => ({ ...e, file: relative(root, e.file) }));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Compiles files (absolute paths) under strict settings; returns every error with its line. */
export function typeCheckFiles(rootNames: string[]): TsError[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    typeRoots: [resolve(process.cwd(), 'node_modules/@types')],
    skipLibCheck: true,
    paths: { 'kopfgen/runtime': [RUNTIME_INDEX] },
  };
  const program = ts.createProgram(rootNames, options);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return { file: '', line: 0, col: 0, code: `TS${d.code}`, message };
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return { file: d.file.fileName, line: line + 1, col: character + 1, code: `TS${d.code}`, message };
  });
}

/** `// expect TS2353` at the end of a line: the errors a case file must produce, as `file:line code`. */
export function expectedErrors(file: string, text: string): string[] {
  const out: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/\/\/ expect (TS\d+)/g)) out.push(`${file}:${i + 1} ${m[1]}`);
  });
  return out.sort();
}

export function formatErrors(errors: TsError[]): string[] {
  return errors.map((e) => `${e.file}:${e.line} ${e.code}`).sort();
}

export function readFixture(path: string): string {
  return readFileSync(resolve(process.cwd(), path), 'utf8');
}
