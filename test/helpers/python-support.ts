/**
 * Python for the kopf target's tests: the interpreters found here, kopf 1.38.0's source
 * (`../shared/kopf-1.38.0`) and the Debian packages it runs on, and pyright (the npm
 * devDependency) run once over a project directory. A test that needs something absent skips
 * with a message saying what; on CI (`CI=true`), as root with apt-get, kopf's Debian packages are
 * installed first, as `.ci/run` would.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { outsideUnitScope } from './test-scope.js';

const REPO = process.cwd();

/** kopf 1.38.0's source, as the issue ships it (MIT, unmodified). */
export const KOPF_SRC = resolve(REPO, '../shared/kopf-1.38.0');

/** Debian bookworm's Python 3.11: the one kopf's Debian packages are for (a pyenv python may come first on PATH). */
export const DEBIAN_PYTHON = '/usr/bin/python3';

/** What kopf 1.38 imports, and the Debian packages that provide it. */
const KOPF_MODULES = ['aiohttp', 'click', 'iso8601', 'pythonjsonlogger', 'yaml', 'typing_extensions'];
const KOPF_PACKAGES = [
  'python3-aiohttp',
  'python3-click',
  'python3-iso8601',
  'python3-pythonjsonlogger',
  'python3-yaml',
  'python3-typing-extensions',
];

/** Skip reason for pyright over code that imports kopf (its source is the type information). */
export const pyrightSkip: string | false =
  outsideUnitScope('pyright') || (existsSync(KOPF_SRC) ? false : 'needs ../shared/kopf-1.38.0 (kopf 1.38.0 source)');

function importable(python: string, modules: string[]): boolean {
  const run = spawnSync(python, ['-c', modules.map((m) => `import ${m}`).join('; ')], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: KOPF_SRC },
    timeout: 60_000,
  });
  return run.status === 0;
}

let kopfRuntime: string | false | undefined;

/**
 * Why kopf 1.38 cannot run on Debian's Python here, or false. On CI, as root with apt-get, the
 * missing Debian packages are installed first (quietly, bounded); elsewhere nothing is installed.
 */
export function kopfRuntimeSkip(): string | false {
  if (kopfRuntime !== undefined) return kopfRuntime;
  const scope = outsideUnitScope('Python and kopf');
  if (scope) return (kopfRuntime = scope);
  if (!existsSync(KOPF_SRC)) return (kopfRuntime = 'needs ../shared/kopf-1.38.0 (kopf 1.38.0 source)');
  if (!existsSync(DEBIAN_PYTHON)) return (kopfRuntime = `needs ${DEBIAN_PYTHON} (Debian's Python 3)`);
  if (importable(DEBIAN_PYTHON, [...KOPF_MODULES, 'kopf'])) return (kopfRuntime = false);
  const args = ['install', '-y', '-qq', '--no-install-recommends', ...KOPF_PACKAGES];
  const root = process.getuid?.() === 0;
  if (process.env.CI === 'true' && root && existsSync('/usr/bin/apt-get')) {
    try {
      execFileSync('/usr/bin/apt-get', ['update', '-qq'], { stdio: 'ignore', timeout: 300_000 });
      execFileSync('/usr/bin/apt-get', args, {
        stdio: 'ignore',
        timeout: 300_000,
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    } catch (error) {
      return (kopfRuntime = `could not install kopf's Debian packages (${(error as Error).message.split('\n')[0]})`);
    }
    if (importable(DEBIAN_PYTHON, [...KOPF_MODULES, 'kopf'])) return (kopfRuntime = false);
  }
  return (kopfRuntime = `needs kopf's Debian packages for ${DEBIAN_PYTHON}: apt-get install ${KOPF_PACKAGES.join(' ')}`);
}

/** The Python minor versions the kopf target supports: kopf 1.38's oldest to the newest released. */
export const PYTHON_VERSIONS = ['3.9', '3.10', '3.11', '3.12', '3.13', '3.14'];

/** One interpreter per supported Python minor version found here (PATH, Debian's, pyenv's), by version. */
export function pythons(): Map<string, string> {
  const candidates = [DEBIAN_PYTHON, ...PYTHON_VERSIONS.map((v) => `python${v}`)];
  const versions = join(process.env.PYENV_ROOT ?? join(homedir(), '.pyenv'), 'versions');
  if (existsSync(versions))
    for (const v of readdirSync(versions).sort()) candidates.push(join(versions, v, 'bin', 'python3'));
  const found = new Map<string, string>();
  for (const python of candidates) {
    const run = spawnSync(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    const version = run.status === 0 ? run.stdout.trim() : '';
    if (PYTHON_VERSIONS.includes(version) && !found.has(version)) found.set(version, python);
  }
  return found;
}

export interface PyrightDiagnostic {
  /** Relative to the project directory, `/`-separated. */
  file: string;
  line: number;
  col: number;
  severity: string;
  rule: string;
  message: string;
}

/**
 * pyright (node_modules/pyright) in strict mode over `dir`, with kopf's source on the import
 * path of every execution root named (each a directory of `dir` holding a generated package and
 * the code importing it): one process for everything, since its start and typeshed cost seconds.
 */
export function runPyright(
  dir: string,
  roots: string[],
  /**
   * The Python whose rules apply (default 3.9, the oldest the kopf target supports). Top-level: pyright
   * 1.1.414 reports a deprecation by the configuration's version, not an execution environment's.
   */
  pythonVersion = '3.9',
): { diagnostics: PyrightDiagnostic[]; files: number } {
  const config = {
    typeCheckingMode: 'strict',
    pythonVersion,
    include: roots,
    // Top-level, not per environment: kopf's own files are outside every root, and resolve its
    // internal imports in the default environment (per-environment paths leave kopf's types unknown).
    extraPaths: [KOPF_SRC],
    executionEnvironments: roots.map((root) => ({ root })),
  };
  writeFileSync(join(dir, 'pyrightconfig.json'), JSON.stringify(config, null, 2));
  const run = spawnSync(process.execPath, [join(REPO, 'node_modules/pyright/index.js'), '--outputjson', '-p', dir], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: 600_000,
  });
  const report = JSON.parse(run.stdout) as {
    generalDiagnostics: {
      file: string;
      severity: string;
      message: string;
      rule?: string;
      range: { start: { line: number; character: number } };
    }[];
    summary: { filesAnalyzed: number };
  };
  return {
    files: report.summary.filesAnalyzed,
    diagnostics: report.generalDiagnostics.map((d) => ({
      file: d.file.startsWith(dir + '/') ? d.file.slice(dir.length + 1) : d.file,
      line: d.range.start.line + 1,
      col: d.range.start.character + 1,
      severity: d.severity,
      rule: d.rule ?? '',
      message: d.message.split('\n')[0],
    })),
  };
}

export function formatPyright(d: PyrightDiagnostic): string {
  return `${d.file}:${d.line}:${d.col} ${d.severity} ${d.rule} ${d.message}`;
}
