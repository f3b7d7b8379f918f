/**
 * `kopfgen run --check`: type-check the operator module with the user's own TypeScript before starting
 * it (tsx strips types without checking them, so a wrong status type would otherwise only show at run
 * time). The compiler is the one the module's project resolves (`typescript` from the module's
 * directory, as `npx tsc` there would find it), never kopfgen's; the project is the nearest
 * `tsconfig.json` above the module (`tsc -p`, every file it includes), or, without one, the module alone
 * with the settings kopfgen's own output is written for (strict, nodenext).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

export type TypeCheck =
  | { ok: true; what: string }
  /** `lines`: the compiler's diagnostics (or one line saying why none could run). */
  | { ok: false; lines: string[] };

const TS = /\.[cm]?ts$/;

/** The nearest tsconfig.json in `dir` or above. */
export function nearestTsconfig(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, 'tsconfig.json');
    if (existsSync(candidate)) return candidate;
    if (dirname(at) === at) return undefined;
  }
}

/** The `tsc` entry of the TypeScript the module's directory resolves, or undefined. */
export function projectTsc(dir: string): string | undefined {
  try {
    const typescript = createRequire(join(dir, 'noop.js')).resolve('typescript/package.json');
    const tsc = join(dirname(typescript), 'bin', 'tsc');
    return existsSync(tsc) ? tsc : undefined;
  } catch {
    return undefined;
  }
}

/** The compiler's arguments: the project, or the module alone with strict nodenext settings. */
function tscArgs(file: string, tsconfig: string | undefined): string[] {
  const common = ['--noEmit', '--pretty', 'false'];
  if (tsconfig) return ['-p', tsconfig, ...common];
  return [
    file,
    ...common,
    ...['--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'],
    '--skipLibCheck',
  ];
}

/**
 * Runs the project's tsc on the module's project; resolves with its verdict. tsc runs in `cwd`
 * (the user's working directory), so the paths it prints are relative to where the user typed
 * the command, as every other kopfgen diagnostic is (`src/handlers/x.ts`, not `handlers/x.ts`).
 */
export async function typeCheck(modulePath: string, cwd = process.cwd()): Promise<TypeCheck> {
  const file = resolve(cwd, modulePath);
  const dir = dirname(file);
  const tsconfig = nearestTsconfig(dir);
  if (!TS.test(file) && !tsconfig)
    return { ok: true, what: `${modulePath} is JavaScript and no tsconfig.json applies` };
  const tsc = projectTsc(dir);
  if (!tsc)
    return {
      ok: false,
      lines: [
        `--check needs TypeScript in the module's project: none resolves from ${dir} (npm install --save-dev typescript)`,
      ],
    };
  const args = tscArgs(file, tsconfig);
  const output = await new Promise<{ code: number; text: string }>((done) => {
    execFile(process.execPath, [tsc, ...args], { cwd, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      done({ code, text: `${stdout}${stderr}` });
    });
  });
  const what = tsconfig ? `the project ${tsconfig}` : modulePath;
  if (output.code === 0) return { ok: true, what };
  const lines = output.text.split('\n').filter((line) => line.trim() !== '');
  return { ok: false, lines: lines.length ? lines : [`tsc exited with ${output.code} on ${what}`] };
}
