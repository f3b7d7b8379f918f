/**
 * The kopf target's side of the stubs-directory scan (stub-scan.ts): every `.py` file under the
 * stubs directory, at any depth, read by the token scan (src/stubs/py-scan.ts), and how a Python
 * import names a generated module, so registrations are found wherever the user moved them and
 * imports of names a run no longer generates are reported (KG320/KG321) as for TypeScript.
 */
import { promises as fs } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { scanPyFile } from '../stubs/py-scan.js';
import type { GeneratedModules, ScannedStubFile } from './stub-scan.js';
import { listFiles } from './fs.js';

/** Directories no handler module lives in: hidden ones (a `.venv`), installed packages, caches. */
const NOT_HANDLERS = new Set(['__pycache__', 'node_modules', 'site-packages']);

export async function scanPyStubsDir(stubsDir: string): Promise<ScannedStubFile[]> {
  const files = (await listFiles(stubsDir))
    .filter((f) => f.endsWith('.py'))
    .filter(
      (f) =>
        !relative(stubsDir, f)
          .split(sep)
          .slice(0, -1)
          .some((d) => d.startsWith('.') || NOT_HANDLERS.has(d)),
    )
    .sort();
  return Promise.all(files.map(async (absPath) => ({ absPath, scan: scanPyFile(await fs.readFile(absPath, 'utf8')) })));
}

/**
 * Python imports of the generated package: absolute (`generated.example_com.v1.myresources`,
 * `package` being the package's name as the stubs import it) or relative to the importing file
 * (`..generated.example_com`). A module is `<path>.py` or `<path>/__init__.py`.
 */
export function pyModules(pkg: string | undefined): GeneratedModules {
  return {
    candidates: (file, module, outDir) => {
      const rel = relativeModule(file, module, outDir) ?? absoluteModule(module, pkg);
      if (rel === undefined) return undefined;
      return rel === '' ? ['__init__.py'] : [`${rel}.py`, `${rel}/__init__.py`];
    },
    exported: pyExportedNames,
    submodules: (candidates, name) => {
      const dir = candidates.find((c) => c.endsWith('__init__.py'))?.replace(/\/?__init__\.py$/, '');
      if (dir === undefined) return [];
      const base = dir === '' ? name : `${dir}/${name}`;
      return [`${base}.py`, `${base}/__init__.py`];
    },
  };
}

/** `..generated.x` in `file`: the path under `outDir` it names, `/`-separated ('' for the package itself). */
function relativeModule(file: string, module: string, outDir: string): string | undefined {
  const dots = /^\.*/.exec(module)?.[0].length ?? 0;
  if (dots === 0) return undefined;
  let base = dirname(file);
  for (let i = 1; i < dots; i++) base = dirname(base);
  const rest = module.slice(dots);
  const abs = rest === '' ? base : resolve(base, ...rest.split('.'));
  if (abs !== outDir && !abs.startsWith(outDir + sep)) return undefined;
  return relative(outDir, abs).split(sep).join('/');
}

function absoluteModule(module: string, pkg: string | undefined): string | undefined {
  if (pkg === undefined || module.startsWith('.')) return undefined;
  if (module === pkg) return '';
  return module.startsWith(pkg + '.')
    ? module
        .slice(pkg.length + 1)
        .split('.')
        .join('/')
    : undefined;
}

/**
 * The names a generated Python module exports: what it binds at the top level, and for the
 * package's `__init__.py` the names of its lazy export table (kopfgen wrote both: one entry a line).
 */
export function pyExportedNames(text: string): Set<string> {
  const out = new Set(scanPyFile(text).declared);
  for (const m of text.matchAll(/^ {4}"([A-Za-z_][A-Za-z0-9_]*)": \(/gm)) out.add(m[1]);
  return out;
}
