/**
 * The handler section of a resource module (owned by the handlers work): per handler, its
 * branded status type, its TemporaryError/PermanentError subclasses and its `defineHandler`.
 */
import type { CrdModel, VersionModel } from '../model/ir.js';

export interface HandlerSectionInput {
  crd: CrdModel;
  version: VersionModel;
  /** The module's type prefix (e.g. `MyResource`, or `MyResourceV1beta1` for a non-storage version). */
  prefix: string;
  /** Name of the resource interface and of the descriptor constant in this module. */
  resourceType: string;
  descriptor: string;
  /** Claims a module-unique exported name: returns `base`, or `base` with a numeric suffix if taken. */
  uniqueName(base: string): string;
}

export interface HandlerSection {
  /** Value imports needed from `kopfgen/runtime` (e.g. `TemporaryError`). */
  runtimeImports: string[];
  /** Type-only imports needed from `kopfgen/runtime`. */
  runtimeTypeImports: string[];
  text: string;
  /** Names `index.ts` re-exports. */
  exports: { name: string; typeOnly: boolean }[];
}

export function emitHandlerSection(input: HandlerSectionInput): HandlerSection {
  void input;
  return { runtimeImports: [], runtimeTypeImports: [], text: '', exports: [] };
}
