/**
 * The pure pipeline: source texts → generated files and diagnostics. No file system, no
 * process: `src/cli` reads the inputs and writes the result.
 *
 *   load (YAML → CRD models) → resolveHandlers → naming → per module: types + handler
 *   section → handler stubs → index.ts
 *
 * When any diagnostic is an error, `files` is empty: nothing half-generated can be written.
 * `src/parallel` runs the same stages over shares of the inputs and reuses the pieces below.
 */
import type { GenerateOptions, GenerateResult, GeneratedFile, SourceText } from './api.js';
import { hasErrors, sortDiagnostics, type Diagnostic } from './diagnostics.js';
import { emitIndex } from './emit/index-file.js';
import { emitModule, type EmittedModule } from './emit/module.js';
import { loadSources } from './load/load-sources.js';
import { resolveHandlers } from './model/handler-pass.js';
import type { CrdModel } from './model/ir.js';
import { nameModels, type ModuleScopes } from './model/naming.js';
import { emitStubFiles } from './stubs/stub-files.js';

export function generate(sources: readonly SourceText[], options: GenerateOptions = {}): GenerateResult {
  const { crds, diagnostics } = loadSources(sources);
  const all: Diagnostic[] = [...diagnostics, ...noCrdFound(crds.length, sources, diagnostics)];
  all.push(...resolveHandlers(crds, options));
  const scopes = nameModels(crds);
  const stats = emptyStats(crds.length, sources);
  if (hasErrors(all)) return { files: [], diagnostics: sortDiagnostics(all), stats };
  const files = outputFiles(emitModules(crds, scopes), crds, options, stats);
  return { files, diagnostics: sortDiagnostics(all), stats };
}

export function emptyStats(crds: number, sources: readonly SourceText[]): GenerateResult['stats'] {
  const bytesIn = sources.reduce((n, s) => n + Buffer.byteLength(s.text), 0);
  return { crds, versions: 0, handlers: 0, bytesIn, bytesOut: 0 };
}

/** KG103 (at the first input by name) when the inputs hold no CRD and no error says why. */
export function noCrdFound(found: number, sources: readonly SourceText[], diagnostics: readonly Diagnostic[]): Diagnostic[] {
  if (found > 0 || sources.length === 0 || hasErrors(diagnostics)) return [];
  const file = sources.reduce((a, b) => (b.file < a.file ? b : a)).file;
  return [{ severity: 'error', code: 'KG103', message: 'no CustomResourceDefinition found in the inputs', file, line: 1, col: 1, pointer: '' }];
}

/** One module per served version, in CRD and version order. */
export function emitModules(crds: readonly CrdModel[], scopes: ModuleScopes): EmittedModule[] {
  const modules: EmittedModule[] = [];
  for (const crd of crds) {
    for (const version of crd.versions) {
      const scope = scopes.get(version);
      if (scope) modules.push(emitModule(crd, version, scope)); // no scope: not served
    }
  }
  return modules;
}

/**
 * The modules, their `index.ts` (sorted by path) and then the stubs of `crds` (in run order;
 * version schemas are not needed). Fills the output counts of `stats`.
 */
export function outputFiles(modules: readonly EmittedModule[], crds: CrdModel[], options: GenerateOptions, stats: GenerateResult['stats']): GeneratedFile[] {
  const files: GeneratedFile[] = modules.map((m) => m.file);
  files.push(emitIndex(modules));
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (options.stubs !== false) files.push(...emitStubFiles(crds, options));
  stats.versions = modules.length;
  for (const crd of crds) for (const v of crd.versions) if (v.served) stats.handlers += v.handlers.length;
  for (const f of files) stats.bytesOut += Buffer.byteLength(f.content);
  return files;
}
