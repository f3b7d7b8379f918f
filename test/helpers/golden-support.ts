/**
 * Shared helpers for the generator's golden, type and corpus tests: generating a fixture,
 * writing a generated tree to a temporary directory, and type-checking TypeScript files under
 * `strict` with `kopfgen/runtime` (and `kopfgen/runtime/builtins`) mapped to the runtime's sources (no prior build needed).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import type { GeneratedFile, GenerateResult } from '../../src/api.js';
import { generate } from '../../src/generate.js';
import { pyHeaderLine } from '../../src/emit/header.js';
import { SHIM_PATH, SHIM_TEXT } from '../../src/emit-kopf/py-shim.js';
import { tempDir as newTempDir } from './temp-dirs.js';

export const REPO = process.cwd();

/** Generates one fixture file as a run of its own, without stubs (the handlers work tests those). */
export function generateFile(file: string): GenerateResult {
  return generate([{ file, text: readFileSync(resolve(REPO, file), 'utf8') }], { stubs: false });
}

/** The kopf target's goldens (test/integration/kopf-golden.test.ts), one directory per fixture. */
export const KOPF_GOLDEN = join(REPO, 'test/golden-kopf');

/** The fixtures the goldens of both targets are made from: test/fixtures/crds/*.yaml, and crds/*.yaml as `crds-<name>`. */
export function goldenFixtures(): { name: string; file: string }[] {
  const list = (dir: string, prefix: string) =>
    readdirSync(join(REPO, dir))
      .filter((f) => f.endsWith('.yaml'))
      .sort()
      .map((f) => ({ name: prefix + basename(f, '.yaml'), file: `${dir}/${f}` }));
  return [...list('test/fixtures/crds', ''), ...list('crds', 'crds-')];
}

/**
 * A golden package, whole: the committed golden has every generated file but the shim, which is
 * the same text in every package (`src/emit-kopf/py-shim.ts`, compared by the golden test).
 */
export function copyKopfGolden(name: string, to: string): void {
  cpSync(join(KOPF_GOLDEN, name), to, { recursive: true });
  writeFileSync(join(to, SHIM_PATH), pyHeaderLine() + SHIM_TEXT);
}

/** Every file under `dir`, relative and `/`-separated, sorted; none when it does not exist. */
export function listTree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return filesUnder(dir)
    .map((p) => relative(dir, p).split(sep).join('/'))
    .sort();
}

export function writeTree(dir: string, files: readonly GeneratedFile[]): string[] {
  const paths: string[] = [];
  for (const f of files) {
    const path = join(dir, f.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.content);
    paths.push(path);
  }
  return paths;
}

export function tempDir(prefix: string): string {
  return newTempDir(`kopfgen-${prefix}-`);
}

export interface TsDiagnostic {
  file: string;
  line: number;
  /** 1-based; 0 when the diagnostic has no position. */
  col: number;
  code: number;
  message: string;
}

export const STRICT_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts'],
  types: ['node'],
  typeRoots: [join(REPO, 'node_modules/@types')],
  paths: {
    'kopfgen/runtime': [join(REPO, 'src/runtime/index.ts')],
    'kopfgen/runtime/builtins': [join(REPO, 'src/runtime/builtin-kinds.ts')],
    'kopfgen/testing': [join(REPO, 'src/testing/index.ts')],
  },
};

/** One Program over all files: every semantic and syntactic diagnostic, with 1-based lines and columns. */
export function typecheck(rootNames: readonly string[]): TsDiagnostic[] {
  const program = ts.createProgram({ rootNames, options: STRICT_OPTIONS });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    const where = at ? { line: at.line + 1, col: at.character + 1 } : { line: 0, col: 0 };
    return {
      file: d.file?.fileName ?? '',
      ...where,
      code: d.code,
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    };
  });
}

export function formatTs(d: TsDiagnostic): string {
  return `${d.file}:${d.line} TS${d.code} ${d.message}`;
}

/** Every file below `dir`, recursively (an example's sources, a generated tree). */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
