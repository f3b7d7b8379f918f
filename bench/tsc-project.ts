/**
 * A user's project for the type-check benchmark, and the compiler run over it as an editor or a CI
 * job runs it: the `kopfgen init` project's `tsconfig.json` and `"type": "module"`, kopfgen linked
 * into `node_modules` from a checkout (as `npm install <path>` links it) beside `@types/node`, and a
 * cold `tsc --noEmit --extendedDiagnostics` in a fresh process. The figures are the compiler's own:
 * its total and check time, the files and lines it read, the types and instantiations it made, and
 * its heap after a full collection (`--expose-gc` makes "Memory used" that, rather than whatever the
 * last collection left).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TSC = join(REPO, 'node_modules/typescript/bin/tsc');

export interface TscFigures {
  totalS: number;
  checkS: number;
  memoryMB: number;
  files: number;
  /** Lines of declaration files (`.d.ts`), the project's own not included. */
  definitionLines: number;
  types: number;
  instantiations: number;
  errors: number;
}

/** `dir` as a project of the `init` template's options, with kopfgen from `checkout`; `files` written under it. */
export function userProject(dir: string, checkout: string, files: Record<string, string> = {}): string {
  mkdirSync(join(dir, 'node_modules/@types'), { recursive: true });
  symlinkSync(resolve(checkout), join(dir, 'node_modules/kopfgen'), 'dir');
  symlinkSync(join(REPO, 'node_modules/@types/node'), join(dir, 'node_modules/@types/node'), 'dir');
  copyFileSync(join(REPO, 'templates/init/tsconfig.json'), join(dir, 'tsconfig.json'));
  writeFileSync(join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

/** One cold `tsc --noEmit -p <dir>` in a fresh process: the compiler's figures. */
export function tsc(dir: string): TscFigures {
  let out: string;
  try {
    out = execFileSync(
      process.execPath,
      ['--expose-gc', TSC, '--noEmit', '-p', 'tsconfig.json', '--extendedDiagnostics'],
      { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
  } catch (e) {
    // Type errors exit 2 with the figures still printed.
    out = String((e as { stdout?: unknown }).stdout ?? '');
  }
  const figure = (name: string) => {
    const value = new RegExp(`^${name}:\\s+([\\d.]+)`, 'm').exec(out)?.[1];
    if (value === undefined) throw new Error(`tsc in ${dir} printed no ${name}:\n${out.slice(-2000)}`);
    return Number(value);
  };
  return {
    totalS: figure('Total time'),
    checkS: figure('Check time'),
    memoryMB: figure('Memory used') / 1024,
    files: figure('Files'),
    definitionLines: figure('Lines of Definitions'),
    types: figure('Types'),
    instantiations: figure('Instantiations'),
    errors: (out.match(/error TS\d+/g) ?? []).length,
  };
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Interleaved rounds of `tsc` over each project; each project's runs in order. */
export function rounds(projects: string[], count: number): TscFigures[][] {
  const runs = projects.map(() => [] as TscFigures[]);
  for (let round = 0; round < count; round++) projects.forEach((dir, i) => runs[i].push(tsc(dir)));
  return runs;
}

/**
 * A project's row: best total time (median beside), the heap, and the compiler's counts; ratios to
 * the yardstick's best (load from other work only ever adds time) and its heap.
 */
export function row(label: string, runs: TscFigures[], yardstick: TscFigures[]): string {
  const best = (of: TscFigures[]) => Math.min(...of.map((r) => r.totalS));
  const memory = median(runs.map((r) => r.memoryMB));
  const last = runs[runs.length - 1];
  return (
    `  ${label.padEnd(46)} total ${best(runs).toFixed(2)} s (median ${median(runs.map((r) => r.totalS)).toFixed(2)}; ` +
    `${(best(runs) / best(yardstick)).toFixed(2)}x), check ${median(runs.map((r) => r.checkS)).toFixed(2)} s, ` +
    `heap ${memory.toFixed(0)} MB (${(memory / median(yardstick.map((r) => r.memoryMB))).toFixed(2)}x); ` +
    `${last.files} files, ${last.definitionLines} lines of declarations, ${last.types} types, ` +
    `${last.instantiations} instantiations, ${last.errors} errors`
  );
}
