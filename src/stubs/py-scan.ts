/**
 * A scan of a user's Python handler module (text in, facts out), what `handler-scan.ts` is for
 * TypeScript: the names it imports from which module, the handlers it registers
 * (`MyResourceMyapp.on_create(`), its top-level names, and where its import statements are, so a
 * merge can add to them. It runs over every `.py` file of the stubs directory on every run.
 *
 * It reads Python's tokens, not raw text: comments, strings in every form (prefixes `r`, `b`, `f`
 * and their pairs, single and triple quotes, escapes, and f-strings' `{…}` fields, which may
 * themselves hold strings with the same quotes since Python 3.12), line continuations and
 * brackets (an import in parentheses spans lines), so a registration inside a string or a
 * comment is none, and positions are exact. A registration through a renamed variable
 * (`d = MyResourceMyapp; d.on_create()`) is not seen, as in TypeScript.
 */
import {
  lineStarts,
  position,
  type ScannedFile,
  type ScannedImport,
  type ScannedRegistration,
} from './handler-scan.js';

/** The methods of a generated `kopfgen.Handler` that register a handler with kopf. */
export const PY_REGISTER_METHODS: ReadonlySet<string> = new Set([
  'on_create',
  'on_update',
  'on_resume',
  'on_delete',
  'on_field',
  'timer',
  'daemon',
]);

export type PyTokenKind = 'name' | 'number' | 'string' | 'op' | 'newline';

export interface PyToken {
  kind: PyTokenKind;
  text: string;
  /** Offset of the first character, and just past the last. */
  start: number;
  end: number;
  /** 1-based. */
  line: number;
  col: number;
}

const STRING_PREFIX = /^(?:[rRuUbBfF]|[rR][bBfF]|[bBfF][rR])$/;
const NAME_START = /[A-Za-z_\u0080-\uffff]/;
const NAME_PART = /[A-Za-z0-9_\u0080-\uffff]/;
const OPEN = '([{';
const CLOSE = ')]}';

/**
 * The tokens of a Python source that the scan needs: names, numbers, strings (whole), operators
 * (one character each), and a `newline` at the end of every logical line (none inside brackets
 * or after a backslash continuation). Comments, blank lines and a byte-order mark yield nothing. An unterminated
 * string ends at the end of its line (or, triple-quoted, of the text), as a tolerant editor reads it.
 */
export function pyTokens(text: string): PyToken[] {
  const tokens: PyToken[] = [];
  const starts = lineStarts(text);
  let depth = 0;
  let i = 0;
  const at = (offset: number) => position(starts, offset);
  const push = (kind: PyTokenKind, start: number, end: number) =>
    tokens.push({ kind, text: text.slice(start, end), start, end, ...at(start) });
  const lastIsLineEnd = () => tokens.length === 0 || tokens[tokens.length - 1].kind === 'newline';
  while (i < text.length) {
    const c = text[i];
    if (c === '\n' || c === '\r') {
      if (depth === 0 && !lastIsLineEnd()) push('newline', i, i + 1);
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else if (c === ' ' || c === '\t' || c === '\f' || (c === '\ufeff' && i === 0)) {
      i++;
    } else if (c === '#') {
      while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
    } else if (c === '\\' && (text[i + 1] === '\n' || text[i + 1] === '\r')) {
      i += text[i + 1] === '\r' && text[i + 2] === '\n' ? 3 : 2;
    } else if (c === '"' || c === "'") {
      const end = stringEnd(text, i, '');
      push('string', i, end);
      i = end;
    } else if (NAME_START.test(c)) {
      let j = i + 1;
      while (j < text.length && NAME_PART.test(text[j])) j++;
      if ((text[j] === '"' || text[j] === "'") && STRING_PREFIX.test(text.slice(i, j))) {
        const end = stringEnd(text, j, text.slice(i, j));
        push('string', i, end);
        i = end;
      } else {
        push('name', i, j);
        i = j;
      }
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(text[i + 1] ?? ''))) {
      let j = i + 1;
      while (j < text.length && (/[0-9A-Za-z_.]/.test(text[j]) || (/[eE]/.test(text[j - 1]) && /[+-]/.test(text[j]))))
        j++;
      push('number', i, j);
      i = j;
    } else {
      if (OPEN.includes(c)) depth++;
      else if (CLOSE.includes(c) && depth > 0) depth--;
      push('op', i, i + 1);
      i++;
    }
  }
  if (!lastIsLineEnd()) push('newline', text.length, text.length);
  return tokens;
}

/**
 * The offset just past the string whose opening quote is at `open`, given its prefix. A backslash
 * keeps the next character from closing the string, raw or not (`r"\""` is one string); in a raw
 * f-string it does not escape a `{`.
 */
function stringEnd(text: string, open: number, prefix: string): number {
  const formatted = /[fF]/.test(prefix);
  const raw = /[rR]/.test(prefix);
  const q = text[open];
  const triple = text[open + 1] === q && text[open + 2] === q;
  const closing = triple ? q + q + q : q;
  let i = open + closing.length;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += raw && text[i + 1] === '{' ? 1 : 2;
    else if (text.startsWith(closing, i)) return i + closing.length;
    else if (!triple && (c === '\n' || c === '\r')) return i;
    else if (formatted && c === '{') {
      if (text[i + 1] === '{') i += 2;
      else i = fieldEnd(text, i + 1);
    } else i++;
  }
  return text.length;
}

/**
 * The offset just past the `}` that closes an f-string's replacement field whose expression starts
 * at `from`: brackets nest, strings inside are skipped whole (any quotes, as Python 3.12 allows),
 * and a format spec's own `{…}` fields are brackets too.
 */
function fieldEnd(text: string, from: number): number {
  let depth = 0;
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (c === '"' || c === "'") {
      i = stringEnd(text, i, '');
      continue;
    }
    if (NAME_START.test(c)) {
      let j = i + 1;
      while (j < text.length && NAME_PART.test(text[j])) j++;
      const prefix = text.slice(i, j);
      i = (text[j] === '"' || text[j] === "'") && STRING_PREFIX.test(prefix) ? stringEnd(text, j, prefix) : j;
      continue;
    }
    if (OPEN.includes(c)) depth++;
    else if (CLOSE.includes(c)) {
      if (depth === 0) return i + 1;
      depth--;
    }
    i++;
  }
  return text.length;
}

/** One `from <module> import …` statement: where its names are, so a merge can add one. */
export interface PyImportStatement {
  /** As written, leading dots included (`..generated.x`). */
  module: string;
  names: { name: string; local: string; line: number; col: number; end: number }[];
  star: boolean;
  /** Whether the names are in parentheses; `trailingComma`: a comma follows the last name. */
  parenthesized: boolean;
  trailingComma: boolean;
  /** At the top level of the module (not indented). */
  topLevel: boolean;
  /** Offsets of the statement's first character and of its logical line's end. */
  start: number;
  end: number;
}

export interface PyScan extends ScannedFile {
  fromImports: PyImportStatement[];
  /** `import a.b` statements at any depth: the module and its local name (`kopf`, or the `as` name). */
  moduleImports: { module: string; local: string; topLevel: boolean; start: number; end: number }[];
  /** Names bound at the top level: functions, classes, assignments, imports. */
  declared: Set<string>;
  /** Every name token (not in strings or comments). */
  identifiers: Set<string>;
  /** Offset of the first top-level statement that is not a docstring or an import (the text's length when none). */
  firstStatement: number;
}

export function scanPyFile(text: string): PyScan {
  const tokens = pyTokens(text);
  const fromImports: PyImportStatement[] = [];
  const moduleImports: PyScan['moduleImports'] = [];
  const declared = new Set<string>();
  const identifiers = new Set<string>();
  let firstStatement = text.length;
  for (const t of tokens) if (t.kind === 'name') identifiers.add(t.text);
  for (const line of logicalLines(tokens)) {
    const first = line[0];
    const topLevel = first.col === 1;
    const end = line[line.length - 1].start;
    const word = (k: number) => (line[k]?.kind === 'name' ? line[k].text : undefined);
    if (word(0) === 'from') {
      const statement = fromImport(line, topLevel, end);
      if (statement) {
        fromImports.push(statement);
        if (topLevel) for (const n of statement.names) declared.add(n.local);
        continue;
      }
    } else if (word(0) === 'import') {
      for (const imported of moduleImport(line)) {
        moduleImports.push({ ...imported, topLevel, start: first.start, end });
        if (topLevel) declared.add(imported.local);
      }
      continue;
    }
    if (!topLevel) continue;
    const docstring = line.length === 2 && first.kind === 'string';
    if (!docstring && first.start < firstStatement) firstStatement = first.start;
    const def = word(0) === 'async' ? 1 : 0;
    if ((word(def) === 'def' || word(0) === 'class') && word(def + 1)) declared.add(line[def + 1].text);
    else if (first.kind === 'name' && (line[1]?.text === '=' || line[1]?.text === ':')) declared.add(first.text);
  }
  const byLocal = new Map<string, string>();
  const imports: ScannedImport[] = [];
  for (const s of fromImports)
    for (const n of s.names) {
      imports.push({ module: s.module, name: n.name, local: n.local, line: n.line, col: n.col });
      byLocal.set(n.local, n.name);
    }
  const registrations: ScannedRegistration[] = [];
  for (let k = 0; k + 3 < tokens.length; k++) {
    const [name, dot, method, paren] = tokens.slice(k, k + 4);
    if (name.kind !== 'name' || dot.text !== '.' || method.kind !== 'name' || paren.text !== '(') continue;
    if (!PY_REGISTER_METHODS.has(method.text)) continue;
    const attribute = k > 0 && tokens[k - 1].text === '.';
    const definition = attribute ? name.text : (byLocal.get(name.text) ?? name.text);
    registrations.push({ definition, method: method.text, line: name.line, col: name.col });
  }
  return { imports, registrations, fromImports, moduleImports, declared, identifiers, firstStatement };
}

/** The tokens of each logical line, its `newline` token last. */
function logicalLines(tokens: PyToken[]): PyToken[][] {
  const lines: PyToken[][] = [];
  let current: PyToken[] = [];
  for (const t of tokens) {
    current.push(t);
    if (t.kind === 'newline') {
      lines.push(current);
      current = [];
    }
  }
  return lines;
}

/** A dotted name starting at `k` (leading dots of a relative import included) and the index after it. */
function dotted(line: PyToken[], k: number): { name: string; next: number } {
  let name = '';
  let i = k;
  while (line[i]?.text === '.') {
    name += '.';
    i++;
  }
  if (line[i]?.kind !== 'name' || line[i].text === 'import') return { name, next: i };
  name += line[i].text;
  i++;
  while (line[i]?.text === '.' && line[i + 1]?.kind === 'name') {
    name += '.' + line[i + 1].text;
    i += 2;
  }
  return { name, next: i };
}

function fromImport(line: PyToken[], topLevel: boolean, end: number): PyImportStatement | undefined {
  const { name: module, next } = dotted(line, 1);
  if (module === '' || line[next]?.text !== 'import') return undefined;
  let i = next + 1;
  const parenthesized = line[i]?.text === '(';
  if (parenthesized) i++;
  const statement: PyImportStatement = {
    module,
    names: [],
    star: line[i]?.text === '*',
    parenthesized,
    trailingComma: false,
    topLevel,
    start: line[0].start,
    end,
  };
  while (i < line.length && line[i].kind === 'name') {
    const name = line[i];
    let local = name.text;
    let last = name;
    if (line[i + 1]?.text === 'as' && line[i + 2]?.kind === 'name') {
      local = line[i + 2].text;
      last = line[i + 2];
      i += 2;
    }
    statement.names.push({ name: name.text, local, line: name.line, col: name.col, end: last.end });
    i++;
    statement.trailingComma = line[i]?.text === ',';
    if (line[i]?.text !== ',') break;
    i++;
  }
  return statement;
}

function moduleImport(line: PyToken[]): { module: string; local: string }[] {
  const out: { module: string; local: string }[] = [];
  let i = 1;
  while (i < line.length) {
    const { name: module, next } = dotted(line, i);
    if (module === '') break;
    i = next;
    let local = module.split('.')[0];
    if (line[i]?.text === 'as' && line[i + 1]?.kind === 'name') {
      local = line[i + 1].text;
      i += 2;
    }
    out.push({ module, local });
    if (line[i]?.text !== ',') break;
    i++;
  }
  return out;
}
