/** kopfgen as a library: the generator pipeline and the input reader. The CLI builds on these. */
export { generate } from './generate.js';
export { generateParallel } from './generate.js';
export type { ParallelOptions } from './generate.js';
export { readInputs } from './io/read.js';
export { readStubTemplates } from './io/stub-templates.js';
export type { StubTemplates } from './stubs/templates.js';
export type { ReadResult } from './io/read.js';
export type { GenerateOptions, GenerateResult, GeneratedFile, SourceText, StubEntry } from './api.js';
export { formatDiagnostic, hasErrors, sortDiagnostics } from './diagnostics.js';
export type { Diagnostic, Severity, SourcePos } from './diagnostics.js';
export type * from './model/ir.js';
