/**
 * The per-CRD stage: the CRDs a share keeps → handler resolution, the naming pass, one module
 * per served version and the CRD's stub file, by the run's target (targets.ts). Everything run-wide it needs (prefix, stub path)
 * comes decided from the run stage, so a share's output does not depend on the other shares.
 */
import type { GenerateOptions, GeneratedFile } from '../api.js';
import { hasErrors, sortDiagnostics, type Diagnostic } from '../diagnostics.js';
import type { EmittedModule } from '../emit/module.js';
import { resolveHandlers } from '../model/handler-pass.js';
import { conditionsHint } from '../model/status-conditions.js';
import type { CrdModel } from '../model/ir.js';
import { nameCrd } from '../model/naming.js';
import type { StubTemplates } from '../stubs/templates.js';
import { targetOf, type CrdDecision } from './targets.js';

export type { CrdDecision };

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
  const resolved = resolveHandlers(crds, options);
  const handled = resolved.crds;
  // The project's own CRDs only: another operator's schema is not the user's to extend.
  const hints = handled.flatMap((crd) => {
    const hint = owned(crd.crd, options)
      ? conditionsHint(
          crd.crd,
          crd.versions.some((v) => v.handlers.length > 0),
        )
      : undefined;
    return hint ? [hint] : [];
  });
  const diagnostics = hints.length > 0 ? sortDiagnostics([...resolved.diagnostics, ...hints]) : resolved.diagnostics;
  const output: CrdStageOutput = { diagnostics, modules: [], conversions: [], data: [], stubs: [], handlers: 0 };
  if (!emit || hasErrors(diagnostics)) return output;
  const target = targetOf(options);
  handled.forEach((crd, i) => {
    const named = nameCrd(crd, decisions[i].prefix);
    for (const version of named.versions) {
      output.modules.push(target.module(crd.crd, version, decisions[i]));
      output.handlers += version.handlers.length;
    }
    const stub = templates && owned(crd.crd, options) && target.stubFile(named, decisions[i], options, templates);
    if (stub) output.stubs.push(stub);
    else if (templates && owned(crd.crd, options) && !optedOut(crd.crd, options))
      output.diagnostics.push(noHandlers(crd.crd));
    const data = target.schemaData?.(named);
    if (data) output.data.push(data);
    const conversion = target.conversion?.(named, decisions[i], options, templates);
    if (conversion) {
      output.conversions.push(conversion.module);
      if (conversion.stub && owned(crd.crd, options)) output.stubs.push(conversion.stub);
    }
  });
  return output;
}

/** The kind's handlers configured as `[]`: the user's word that it has none. */
function optedOut(crd: CrdModel, options: GenerateOptions): boolean {
  return [crd.kind, `${crd.plural}.${crd.group}`].some((key) => options.handlers?.[key]?.length === 0);
}

/**
 * KG211 (a note): a CRD of the project's that names no handler id, so no stub is scaffolded. Most
 * kopf operators' CRDs have an open status and no printer columns, so nothing in them names one;
 * the note gives the lines that declare ids. `assembleRun` keeps it only when the whole run has no
 * handler, where "0 handlers" would otherwise be all the user sees.
 */
export function noHandlers(crd: CrdModel): Diagnostic {
  const message =
    `${crd.kind} names no handler id (printer columns reading \`.status.<id>\`, or the \`kopfgen.dev/handlers\` annotation), so no handler is generated: ` +
    `declare the ids of your handlers (one per handler function, a create stub each, or the causes after the id) in kopfgen.config.json, ` +
    `\`"handlers": { "${crd.kind}": ["create_fn", "update_fn:update"] }\`, ` +
    `or for one run: \`kopfgen generate --handlers ${crd.kind}=create_fn,update_fn:update\`; \`"${crd.kind}": []\` says it has none`;
  return {
    severity: 'note',
    code: 'KG211',
    message,
    file: crd.pos.file,
    line: crd.pos.line,
    col: crd.pos.col,
    pointer: crd.pointer,
  };
}

/** Stubs are for the project's own CRDs, or for any whose handlers the configuration names. */
function owned(crd: CrdModel, options: GenerateOptions): boolean {
  if (!options.foreign?.includes(crd.file)) return true;
  return [crd.kind, `${crd.plural}.${crd.group}`].some((key) => (options.handlers?.[key]?.length ?? 0) > 0);
}
