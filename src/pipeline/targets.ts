/**
 * The emitters a run chooses by `GenerateOptions.target`, after the shared stages (load, model,
 * handler pass, naming): `typescript` (src/emit, src/stubs/stub-files.ts) or `kopf` (Python for
 * kopf operators: src/emit-kopf, src/stubs/py-stub-files.ts). Every target reads the same
 * `NamedCrd`, so a type or handler has the same name in both.
 */
import type { GenerateOptions, GeneratedFile, Target } from '../api.js';
import { emitConversionModule, emitSchemaModule } from '../emit/conversion-module.js';
import { emitIndex } from '../emit/index-file.js';
import { emitModule, type EmittedModule } from '../emit/module.js';
import { emitPyModule } from '../emit-kopf/py-module.js';
import { groupPackages } from '../emit-kopf/py-names.js';
import { emitPyPackage } from '../emit-kopf/py-package.js';
import type { CrdModel } from '../model/ir.js';
import { nameConversion, nameSchemaData } from '../model/conversion-naming.js';
import type { NamedCrd, NamedVersion } from '../model/naming.js';
import { conversionStubPath, emitConversionStubFile } from '../stubs/conversion-stubs.js';
import { emitPyStubFile, pyStubPaths } from '../stubs/py-stub-files.js';
import { emitStubFile, stubPaths, type StubKey } from '../stubs/stub-files.js';
import type { StubTemplates } from '../stubs/templates.js';

/** The run stage's decisions for one kept CRD (plain data: they cross to worker threads). */
export interface CrdDecision {
  /** Run-wide unique type prefix (`kindPrefixes`). */
  prefix: string;
  /** Path of its stub file in the stubs directory. */
  stubPath: string;
  /** The directory of its group's modules (`example.com` for TypeScript, the package `example_com` for kopf). */
  groupDir: string;
}

export interface TargetEmitter {
  /** Run-wide: each CRD's stub file path and group directory, by CRD name. */
  paths(crds: readonly StubKey[]): { stubPaths: Map<string, string>; groupDirs: Map<string, string> };
  module(crd: CrdModel, named: NamedVersion, decision: CrdDecision): EmittedModule;
  stubFile(
    named: NamedCrd,
    decision: CrdDecision,
    options: GenerateOptions,
    templates: StubTemplates,
  ): GeneratedFile | undefined;
  /** The run's own files besides the modules (`index.ts`; the Python package's `__init__.py` files and shim). */
  packageFiles(modules: readonly EmittedModule[]): GeneratedFile[];
  /**
   * A multi-version CRD's conversion (the runtime's `/convert`, model/conversion-naming.ts): its
   * module and its stub file. The TypeScript runtime's only: kopf has no conversion webhook.
   */
  conversion?(
    named: NamedCrd,
    decision: CrdDecision,
    options: GenerateOptions,
    templates: StubTemplates | undefined,
  ): { module: EmittedModule; stub?: GeneratedFile } | undefined;
  /** An operator's own CRD's schema data (`<plural>.schemas.ts`), for `kopfgen/testing`; TypeScript only. */
  schemaData?(named: NamedCrd): GeneratedFile | undefined;
}

const typescript: TargetEmitter = {
  paths: (crds) => ({ stubPaths: stubPaths(crds), groupDirs: new Map(crds.map((c) => [c.group, c.group])) }),
  module: (crd, named) => emitModule(crd, named),
  stubFile: (named, decision, options, templates) => emitStubFile(named, decision.stubPath, options, templates),
  packageFiles: (modules) => [emitIndex(modules)],
  // After naming, from its names: the conversion pass and its modules.
  conversion: (named, decision, options, templates) => {
    const conversion = nameConversion(named);
    if (!conversion) return undefined;
    const base = (options.generatedImportBase ?? '../generated').replace(/\/+$/, '');
    return {
      module: emitConversionModule(named.crd, conversion),
      stub: templates && emitConversionStubFile(named.crd, conversion, conversionStubPath(decision.stubPath), base),
    };
  },
  schemaData: (named) => {
    const names = nameSchemaData(named);
    return names && emitSchemaModule(named.crd, names);
  },
};

const kopf: TargetEmitter = {
  paths: (crds) => ({ stubPaths: pyStubPaths(crds), groupDirs: groupPackages(crds.map((c) => c.group)) }),
  module: (crd, named, decision) => emitPyModule(crd, named, decision.groupDir),
  stubFile: (named, decision, options, templates) =>
    emitPyStubFile(named, decision.stubPath, decision.groupDir, options, templates),
  packageFiles: (modules) => emitPyPackage(modules),
};

const TARGETS: Record<Target, TargetEmitter> = { typescript, kopf };

export function targetOf(options: GenerateOptions): TargetEmitter {
  return TARGETS[options.target ?? 'typescript'];
}
