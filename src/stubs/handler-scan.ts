/**
 * A fast scan of a user's handler file (text in, facts out): the named imports it takes from
 * which module, the handler registrations it makes (`MyResourceMyapp.onCreate(`), each with its
 * line and column. It runs over every file of the stubs directory on every `generate`, cache
 * hits included, so it is a scan (comments blanked, then regular expressions), not a parse:
 * ts-morph would cost about a second to load.
 *
 * What it sees is what TypeScript's syntax allows for these forms; a registration through a
 * namespace import (`G.MyResourceMyapp.onCreate(`) is seen, since the scan keys on the name right
 * before `.onX(`; one made through a renamed variable (`const d = MyResourceMyapp; d.onCreate(`)
 * is not, and then kopfgen would add the stubs again (documented in the README).
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
const IMPORT = new RegExp(
  `\\bimport\\s+(?:type\\s+)?(?:${IDENT}\\s*,\\s*)?\\{([^}]*)\\}\\s*from\\s*(['"])([^'"\\n]+)\\2`,
  'g',
);
const ELEMENT = new RegExp(`^(\\s*)(?:type\\s+)?(${IDENT})(?:\\s+as\\s+(${IDENT}))?\\s*$`);
const REGISTRATION = new RegExp(`(?<![\\w$])(${IDENT})\\s*\\.\\s*(on[A-Z]\\w*)\\s*\\(`, 'g');
/** A conversion spoke's registration (`WidgetConversion.register("v1alpha1", …)`), keyed `WidgetConversion.v1alpha1`. */
const CONVERSION = new RegExp(`(?<![\\w$])(${IDENT})\\s*\\.\\s*register\\s*\\(\\s*(['"])([\\w.-]+)\\2`, 'g');

export function scanHandlerFile(text: string): ScannedFile {
  const code = blankComments(text);
  const lines = lineStarts(text);
  const at = (offset: number): Pick<SourcePos, 'line' | 'col'> => position(lines, offset);
  const imports: ScannedImport[] = [];
  for (const m of code.matchAll(IMPORT)) {
    const braceAt = (m.index ?? 0) + m[0].indexOf('{') + 1;
    let offset = braceAt;
    for (const element of m[1].split(',')) {
      const e = ELEMENT.exec(element);
      if (e)
        imports.push({
          module: m[3],
          name: e[2],
          local: e[3] ?? e[2],
          ...at(offset + e[1].length + element.slice(e[1].length).indexOf(e[2])),
        });
      offset += element.length + 1;
    }
  }
  const byLocal = new Map(imports.map((i) => [i.local, i.name]));
  const registrations: ScannedRegistration[] = [];
  for (const m of code.matchAll(REGISTRATION)) {
    if (!REGISTER_METHODS.has(m[2])) continue;
    registrations.push({ definition: byLocal.get(m[1]) ?? m[1], method: m[2], ...at(m.index ?? 0) });
  }
  for (const m of code.matchAll(CONVERSION)) {
    const definition = `${byLocal.get(m[1]) ?? m[1]}.${m[3]}`;
    registrations.push({ definition, method: 'register', ...at(m.index ?? 0) });
  }
  return { imports, registrations };
}

/**
 * The text with every comment replaced by spaces (newlines kept, so offsets and positions stay):
 * a registration commented out is not a registration. String and template literals are skipped
 * whole, so `//` inside a URL does not start a comment.
 */
export function blankComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      out += ' '.repeat(stop - i);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== c && !(c !== '`' && text[j] === '\n')) j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
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
