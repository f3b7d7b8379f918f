/**
 * What a scan of the user's code yields (`src/io/source-scan.ts` parses each file with the
 * TypeScript parser): the named imports it takes from which module and the handler
 * registrations it makes, each positioned; and the names a generated module exports, read from
 * the text kopfgen wrote. Facts only: no file, no parser. Also the offset → line:column helpers
 * the Python scan (`py-scan.ts`) positions its findings with.
 */
import type { SourcePos } from '../diagnostics.js';

/** The methods of a `defineHandler` definition that register a handler (src/runtime/api/define.ts). */
export const REGISTER_METHODS: ReadonlySet<string> = new Set([
  'onCreate',
  'onUpdate',
  'onDelete',
  'onResume',
  'onField',
  'onEvent',
  'onTimer',
  'onDaemon',
]);

export interface ScannedImport {
  /** The module specifier as written. */
  module: string;
  /** The exported name imported. */
  name: string;
  /** The local binding (`as` alias or the name itself). */
  local: string;
  /** Where the imported name is written. */
  line: number;
  col: number;
}

export interface ScannedRegistration {
  /** The exported definition registered with, resolved through `as` aliases of the file's imports. */
  definition: string;
  /** `onCreate`, `onUpdate`, … */
  method: string;
  line: number;
  col: number;
}

export interface ScannedFile {
  imports: ScannedImport[];
  registrations: ScannedRegistration[];
}

const IDENT = '[A-Za-z_$][\\w$]*';
const ELEMENT = new RegExp(`^(\\s*)(?:type\\s+)?(${IDENT})(?:\\s+as\\s+(${IDENT}))?\\s*$`);

/**
 * The names a generated module exports, read from its text (kopfgen wrote it: one declaration
 * per line, `export interface|type|const|class|function …` or `export { … } from` in index.ts).
 */
export function exportedNames(moduleText: string): Set<string> {
  const out = new Set<string>();
  const declaration = new RegExp(
    `^export\\s+(?:declare\\s+)?(?:abstract\\s+)?(?:interface|type|const|let|var|class|function|enum)\\s+(${IDENT})`,
    'gm',
  );
  for (const m of moduleText.matchAll(declaration)) out.add(m[1]);
  const list = /^export\s+(?:type\s+)?\{([^}]*)\}/gm;
  for (const m of moduleText.matchAll(list)) {
    for (const element of m[1].split(',')) {
      const e = ELEMENT.exec(element);
      if (e) out.add(e[3] ?? e[2]);
    }
  }
  return out;
}

/** The offset of each line's first character. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The 1-based line and column of an offset, given `lineStarts`. */
export function position(starts: number[], offset: number): Pick<SourcePos, 'line' | 'col'> {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, col: offset - starts[lo] + 1 };
}
