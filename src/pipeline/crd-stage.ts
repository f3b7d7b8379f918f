/**
 * The per-CRD stage: the CRDs a share keeps → handler resolution, the naming pass, one module
 * per served version and the CRD's stub file. Everything run-wide it needs (prefix, stub path)
 * comes decided from the run stage, so a share's output does not depend on the other shares.
 */
import type { GenerateOptions, GeneratedFile } from '../api.js';
import { hasErrors, type Diagnostic } from '../diagnostics.js';
import { emitConversionModule, emitSchemaModule } from '../emit/conversion-module.js';
import { emitModule, type EmittedModule } from '../emit/module.js';
import { nameConversion } from '../model/conversion-naming.js';
import { resolveHandlers } from '../model/handler-pass.js';
import type { CrdModel } from '../model/ir.js';
import { nameCrd } from '../model/naming.js';
import { conversionStubPath, emitConversionStubFile } from '../stubs/conversion-stubs.js';
import { emitStubFile } from '../stubs/stub-files.js';
import type { StubTemplates } from '../stubs/templates.js';

/** The run stage's decisions for one kept CRD. */
export interface CrdDecision {
  /** Run-wide unique type prefix (`kindPrefixes`). */
  prefix: string;
  /** Path of its stub file in the stubs directory. */
  stubPath: string;
}

export interface CrdStageOutput {
  diagnostics: Diagnostic[];
  /** Empty when `emit` was false or handler resolution found an error. */
  modules: EmittedModule[];
  /** Multi-version CRDs' conversion modules (re-exported by `index.ts`, not counted as versions). */
  conversions: EmittedModule[];
  /** Generated files `index.ts` does not re-export (the schema data modules). */
  data: GeneratedFile[];
  stubs: GeneratedFile[];
  /** Handlers of served versions, for the run's statistics. */
  handlers: number;
}

/**
 * `emit: false` (the run already has an error) resolves handlers for their diagnostics only:
 * nothing would be written, so nothing is named or emitted. `templates` undefined: no stubs.
 */
export function emitCrds(
  crds: CrdModel[],
  decisions: CrdDecision[],
  options: GenerateOptions,
  emit: boolean,
  templates: StubTemplates | undefined,
): CrdStageOutput {
  const { crds: handled, diagnostics } = resolveHandlers(crds, options);
  const output: CrdStageOutput = { diagnostics, modules: [], conversions: [], data: [], stubs: [], handlers: 0 };
  if (!emit || hasErrors(diagnostics)) return output;
  handled.forEach((crd, i) => {
    const named = nameCrd(crd, decisions[i].prefix);
    for (const version of named.versions) {
      output.modules.push(emitModule(crd.crd, version));
      output.handlers += version.handlers.length;
    }
    const stub = templates && emitStubFile(named, decisions[i].stubPath, options, templates);
    if (stub) output.stubs.push(stub);
    // After naming, from its names: the conversion pass and its modules (model/conversion-naming.ts).
    const conversion = nameConversion(named);
    if (conversion) {
      output.conversions.push(emitConversionModule(crd.crd, conversion));
      output.data.push(emitSchemaModule(crd.crd, conversion));
      if (templates) {
        const base = (options.generatedImportBase ?? '../generated').replace(/\/+$/, '');
        const path = conversionStubPath(decisions[i].stubPath);
        output.stubs.push(emitConversionStubFile(crd.crd, conversion, path, base));
      }
    }
  });
  return output;
}
