/**
 * The files that make the generated modules one Python package: the shim (`kopfgen.py`), an
 * `__init__.py` in every directory, and the root's, which re-exports every module's names as
 * `index.ts` does for TypeScript (a name an earlier module in path order already exports gets a
 * numbered alias). The re-exports are lazy: importing one module imports its package's
 * `__init__.py` first, which must not import every CRD's module; checkers read the names from an
 * `if TYPE_CHECKING:` block, Python resolves them on first use (PEP 562's `__getattr__`).
 */
import type { GeneratedFile } from '../api.js';
import { pyHeaderLine } from '../emit/header.js';
import { indexEntries } from '../emit/index-file.js';
import type { EmittedModule } from '../emit/module.js';
import { NameScope } from '../model/reserved.js';
import { PY_KEYWORDS, PY_MODULE_NAMES, pyString } from './py-names.js';
import { SHIM_PATH, SHIM_TEXT } from './py-shim.js';

export function emitPyPackage(modules: readonly EmittedModule[]): GeneratedFile[] {
  const sorted = [...modules].sort((a, b) => (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0));
  const files: GeneratedFile[] = [
    { path: '__init__.py', content: rootInit(sorted), role: 'generated' },
    { path: SHIM_PATH, content: pyHeaderLine() + SHIM_TEXT, role: 'generated' },
  ];
  const dirs = new Set<string>();
  for (const m of sorted) {
    const parts = m.file.path.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  for (const dir of [...dirs].sort())
    files.push({ path: `${dir}/__init__.py`, content: pyHeaderLine(), role: 'generated' });
  return files;
}

function rootInit(modules: readonly EmittedModule[]): string {
  // The names this file binds itself are not exports' aliases.
  const reserved = [...PY_KEYWORDS, ...PY_MODULE_NAMES, 'Tuple', 'importlib', 'PermanentError', 'TemporaryError'];
  const imports: string[] = [];
  const table: string[] = [];
  const all: string[] = [];
  for (const { module, exports } of indexEntries(modules, new NameScope(reserved))) {
    const from = '.' + module.file.path.replace(/\.py$/, '').split('/').join('.');
    for (const e of exports) {
      table.push(`    ${pyString(e.alias)}: (${pyString(from)}, ${pyString(e.name)}),\n`);
      all.push(e.alias);
    }
    if (exports.length > 0)
      imports.push(
        `    from ${from} import (\n${exports.map((e) => `        ${e.name} as ${e.alias},\n`).join('')}    )\n`,
      );
  }
  const out = [
    pyHeaderLine(),
    '"""Every generated resource, handler and type by name, imported from its module on first use."""\n',
    'import importlib\n',
    `from typing import ${imports.length > 0 ? 'TYPE_CHECKING, ' : ''}Any, Dict, Tuple\n`,
    // The shim's base errors, for a helper several handlers share: its status goes to whichever runs.
    '\nfrom .kopfgen import PermanentError as PermanentError\n',
    'from .kopfgen import TemporaryError as TemporaryError\n',
  ];
  if (imports.length > 0) out.push('\nif TYPE_CHECKING:\n', ...imports);
  out.push(
    '\n_EXPORTS: Dict[str, Tuple[str, str]] = {\n',
    ...table,
    '}\n',
    '\n__all__ = [\n',
    ...['PermanentError', 'TemporaryError', ...all].map((n) => `    ${pyString(n)},\n`),
    ']\n',
    '\n\ndef __getattr__(name: str) -> Any:\n',
    '    if name not in _EXPORTS:\n',
    '        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")\n',
    '    module, attribute = _EXPORTS[name]\n',
    '    value = getattr(importlib.import_module(module, __name__), attribute)\n',
    '    globals()[name] = value\n',
    '    return value\n',
  );
  return out.join('');
}
