/**
 * The per-CRD stage: the CRDs a share keeps → handler resolution, the naming pass, one module
 * per served version and the CRD's stub file. Everything run-wide it needs (prefix, stub path)
 * comes decided from the run stage, so a share's output does not depend on the other shares.
 */
import type { GenerateOptions, GeneratedFile } from '../api.js';
import { hasErrors, type Diagnostic } from '../diagnostics.js';
import { emitModule, type EmittedModule } from '../emit/module.js';
import { resolveHandlers } from '../model/handler-pass.js';
import type { CrdModel } from '../model/ir.js';
import { nameCrd } from '../model/naming.js';
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
  const output: CrdStageOutput = { diagnostics, modules: [], stubs: [], handlers: 0 };
  if (!emit || hasErrors(diagnostics)) return output;
  handled.forEach((crd, i) => {
    const named = nameCrd(crd, decisions[i].prefix);
    for (const version of named.versions) {
      output.modules.push(emitModule(crd.crd, version));
      output.handlers += version.handlers.length;
    }
    const stub = templates && emitStubFile(named, decisions[i].stubPath, options, templates);
    if (stub) output.stubs.push(stub);
  });
  return output;
}
