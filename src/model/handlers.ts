/**
 * The handler pass (owned by the handlers work): discovers handler ids per CRD version, sets
 * `version.handlers`, synthesises status schemas from printer columns where status is open, and
 * returns cross-check diagnostics. Runs after the schema model is built and before naming.
 */
import type { GenerateOptions } from '../api.js';
import type { Diagnostic } from '../diagnostics.js';
import type { CrdModel } from './ir.js';

export function resolveHandlers(crds: CrdModel[], options: GenerateOptions): Diagnostic[] {
  void crds;
  void options;
  return [];
}
