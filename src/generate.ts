/**
 * The pure pipeline: source texts → generated files and diagnostics. No file system, no
 * process: `src/cli` reads the inputs and writes the result.
 *
 *   load (YAML → CRD models) → resolveHandlers → naming → per module: types + handler
 *   section → handler stubs → index.ts
 *
 * When any diagnostic is an error, `files` is empty: nothing half-generated can be written.
 */
import type { GenerateOptions, GenerateResult, GeneratedFile, SourceText } from './api.js';
import { hasErrors, sortDiagnostics, type Diagnostic } from './diagnostics.js';
import { emitIndex } from './emit/index-file.js';
import { emitModule, type EmittedModule } from './emit/module.js';
import { loadSources } from './load/index.js';
import { resolveHandlers } from './model/handlers.js';
import { nameModels } from './model/naming.js';
import { emitStubFiles } from './stubs/emit.js';

export function generate(sources: readonly SourceText[], options: GenerateOptions = {}): GenerateResult {
  const bytesIn = sources.reduce((n, s) => n + Buffer.byteLength(s.text), 0);
  const { crds, diagnostics } = loadSources(sources);
  const all: Diagnostic[] = [...diagnostics];
  if (crds.length === 0 && sources.length > 0 && !hasErrors(all)) {
    all.push({ severity: 'error', code: 'KG103', message: 'no CustomResourceDefinition found in the inputs', file: sources[0].file, line: 1, col: 1, pointer: '' });
  }
  all.push(...resolveHandlers(crds, options));
  const scopes = nameModels(crds);
  const stats = { crds: crds.length, versions: 0, handlers: 0, bytesIn, bytesOut: 0 };
  if (hasErrors(all)) return { files: [], diagnostics: sortDiagnostics(all), stats };

  const modules: EmittedModule[] = [];
  for (const crd of crds) {
    for (const version of crd.versions) {
      const scope = scopes.get(version);
      if (!scope) continue; // not served
      modules.push(emitModule(crd, version, scope));
      stats.versions++;
      stats.handlers += version.handlers.length;
    }
  }
  const files: GeneratedFile[] = modules.map((m) => m.file);
  files.push(emitIndex(modules));
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (options.stubs !== false) files.push(...emitStubFiles(crds, options));
  for (const f of files) stats.bytesOut += Buffer.byteLength(f.content);
  return { files, diagnostics: sortDiagnostics(all), stats };
}
