/**
 * TypeScript 7 (the native compiler, what `npm install typescript` gives and the scaffold pins)
 * run as a user runs it: its `tsc` over a tsconfig.json, its answer read from the
 * `file(line,col): error TSxxxx: message` lines it prints. It has no in-process API that
 * `golden-support.ts`'s `typecheck` could call, so each check is one process.
 *
 * It is installed nested (`tools/typescript-7`, a `file:` devDependency): a second `typescript`
 * at the top of node_modules would link its `tsc` over TypeScript 5.9's in `node_modules/.bin`,
 * and which one `npx tsc` ran would depend on npm's linking order.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { REPO, tempDir, type TsDiagnostic } from './golden-support.js';
import { outsideUnitScope } from './test-scope.js';

/** TypeScript 7's own `tsc` script (it finds the platform's native binary). */
export const TSC7 = join(REPO, 'tools/typescript-7/node_modules/typescript/bin/tsc');

/** Skip reason where TypeScript 7 cannot run: the unit scope, or `npm install` not run since it was added. */
export const typescript7Skip: string | false =
  outsideUnitScope('TypeScript 7') ||
  (existsSync(TSC7) ? false : 'needs TypeScript 7 in tools/typescript-7/node_modules (run npm install)');

/** The version TypeScript 7's package says it is (the scaffold's pin is compared with it). */
export function typescript7Version(): string {
  const pkg = JSON.parse(readFileSync(join(TSC7, '../../package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * golden-support's `STRICT_OPTIONS` as tsconfig.json compiler options, `kopfgen/*` mapped to the
 * runtime's sources the same way, so both compilers see the same program.
 */
export function strictConfig(): Record<string, unknown> {
  return {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: ['es2023'],
    types: ['node'],
    typeRoots: [join(REPO, 'node_modules/@types')],
    paths: {
      'kopfgen/runtime': [join(REPO, 'src/runtime/index.ts')],
      'kopfgen/runtime/builtins': [join(REPO, 'src/runtime/builtin-kinds.ts')],
      'kopfgen/testing': [join(REPO, 'src/testing/index.ts')],
    },
  };
}

/** TypeScript 7's `tsc` with `args` in `cwd`; its errors, files absolute. */
export function tsc7(args: readonly string[], cwd: string): { status: number | null; diagnostics: TsDiagnostic[] } {
  const run = spawnSync(process.execPath, [TSC7, '--pretty', 'false', ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 << 20,
    timeout: 600_000,
  });
  if (run.error) throw run.error;
  return { status: run.status, diagnostics: parseTscOutput(run.stdout + run.stderr, cwd) };
}

/**
 * `tsc --pretty false` output: `file(line,col): error TS1234: message` per diagnostic, further
 * lines of a message indented; a global one (`error TS5112: …`) has no position.
 */
export function parseTscOutput(output: string, cwd: string): TsDiagnostic[] {
  const out: TsDiagnostic[] = [];
  for (const line of output.split('\n')) {
    const at = /^(.+)\((\d+),(\d+)\): error TS(\d+): (.*)$/.exec(line);
    const global = /^error TS(\d+): (.*)$/.exec(line);
    const last = out.at(-1);
    if (at) {
      const [, file, l, c, code, message] = at;
      out.push({
        file: isAbsolute(file) ? file : resolve(cwd, file),
        line: Number(l),
        col: Number(c),
        code: Number(code),
        message,
      });
    } else if (global) out.push({ file: '', line: 0, col: 0, code: Number(global[1]), message: global[2] });
    else if (last && /^\s/.test(line) && line.trim() !== '') last.message += `\n${line.trim()}`;
  }
  return out;
}

/**
 * golden-support's `typecheck` under TypeScript 7: the same root files, the same options, every
 * error with its absolute file and 1-based line and column.
 */
export function typecheck7(rootNames: readonly string[]): TsDiagnostic[] {
  const dir = tempDir('ts7');
  try {
    const config = { compilerOptions: strictConfig(), files: rootNames.map((f) => resolve(f)) };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config, null, 2));
    return tsc7(['-p', join(dir, 'tsconfig.json')], dir).diagnostics;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
