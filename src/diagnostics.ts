/**
 * Diagnostics are collected, never thrown: every stage returns them beside its result,
 * so one run reports every problem and the CLI alone decides the exit code.
 */
export type Severity = 'error' | 'warning' | 'note';

export interface SourcePos {
  /** The file as the user named it (relative to the working directory where possible). */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  col: number;
}

/** The file of a diagnostic about a command-line flag (`--handlers Widget=kopf`), as `<stdin>` names standard input. */
export const COMMAND_LINE = '<command line>';

export interface Diagnostic extends SourcePos {
  severity: Severity;
  /** Stable, documented code, e.g. `KG101`; tools and tests match on it. */
  code: string;
  message: string;
  /** JSON pointer into the CRD document (RFC 6901), e.g. `/spec/versions/0/schema/openAPIV3Schema`. */
  pointer: string;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** Sorted by file, line, column, then code: output order never depends on discovery order. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
      a.line - b.line ||
      a.col - b.col ||
      (a.code < b.code ? -1 : a.code > b.code ? 1 : 0),
  );
}

/** `file:line:col severity code message (at pointer)`, the format every editor can jump to. */
export function formatDiagnostic(d: Diagnostic): string {
  const at = d.pointer ? ` (at ${d.pointer})` : '';
  return `${d.file}:${d.line}:${d.col} ${d.severity} ${d.code} ${d.message}${at}`;
}

/** JSON pointer escaping (RFC 6901): `~` → `~0`, `/` → `~1`. */
export function pointerJoin(base: string, ...segments: (string | number)[]): string {
  let out = base;
  for (const s of segments) out = pointerAppend(out, String(s));
  return out;
}

/** `pointerJoin` for one string segment: the schema walk's per-node form, with no regular expression unless needed. */
export function pointerAppend(base: string, segment: string): string {
  if (segment.indexOf('~') === -1 && segment.indexOf('/') === -1) return base + '/' + segment;
  return base + '/' + segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
