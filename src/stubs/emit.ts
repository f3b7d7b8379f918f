/**
 * Handler stub files (owned by the handlers work): one user-owned file per kind with a stub
 * per handler id and cause. Called by the pipeline after modules are emitted, so
 * `version.names` and `handler.names` are set.
 */
import type { GenerateOptions, GeneratedFile } from '../api.js';
import type { CrdModel } from '../model/ir.js';

export function emitStubFiles(crds: CrdModel[], options: GenerateOptions): GeneratedFile[] {
  void crds;
  void options;
  return [];
}
