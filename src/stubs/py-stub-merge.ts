/**
 * Merging stubs into a user's existing Python handler module, as `io/stub-merge.ts` does for
 * TypeScript: the stubs of handlers registered nowhere yet are appended, and nothing the user
 * wrote is removed or rewritten, except that a needed name joins the module's existing
 * `from <module> import …` (one import statement per module). Pure: text in, text out, read
 * through the token scan (py-scan.ts), never through regular expressions over raw text.
 *
 * A handler is known once this module names its helper (`MyResourceMyapp`) anywhere, or any
 * file of the stubs directory registers it: a user who moved the stubs, or deleted one stub of a
 * known handler, meant it, and nothing is brought back.
 */
import type { GeneratedFile, StubEntry } from '../api.js';
import { pyImportLines, type PyImportSpec } from './py-stub-files.js';
import { pyTokens, scanPyFile, type PyImportStatement, type PyScan } from './py-scan.js';

export interface PyStubMergeResult {
  /** The merged text; equal to `existing` byte for byte when nothing was missing. */
  text: string;
  added: StubEntry[];
}

export function mergePyStubFile(
  existing: string,
  file: GeneratedFile,
  registeredElsewhere: ReadonlySet<string> = new Set(),
): PyStubMergeResult {
  const user = scanPyFile(existing);
  const entries = file.stubs ?? [];
  const added = entries.filter(
    (e) => !user.declared.has(e.name) && !user.identifiers.has(e.definition) && !registeredElsewhere.has(e.definition),
  );
  if (added.length === 0) return { text: existing, added };

  const missing = neededImports(file, added).filter((spec) => !user.declared.has(spec.name || spec.module));
  let text = existing;
  for (const s of importSplices(user, existing, missing).sort((a, b) => b.at - a.at))
    text = text.slice(0, s.at) + s.text + text.slice(s.at);
  const body = text === '' || text.endsWith('\n') ? text : text + '\n';
  return { text: body + added.map((e) => '\n\n' + e.text + (e.text.endsWith('\n') ? '' : '\n')).join(''), added };
}

/** The imports of the generated stub module that the added stubs' texts use. */
function neededImports(file: GeneratedFile, added: readonly StubEntry[]): PyImportSpec[] {
  const generated = scanPyFile(file.content);
  const used = new Set<string>();
  for (const entry of added) {
    const start = file.content.indexOf(entry.text);
    if (start < 0) throw new Error(`kopfgen: stub ${entry.name} is not part of its stub file`);
    for (const t of pyTokens(entry.text)) if (t.kind === 'name') used.add(t.text);
  }
  const specs: PyImportSpec[] = [];
  for (const s of generated.fromImports)
    for (const n of s.names) if (used.has(n.local)) specs.push({ module: s.module, name: n.name });
  for (const m of generated.moduleImports) if (used.has(m.local)) specs.push({ module: m.module, name: '' });
  return specs;
}

interface Splice {
  at: number;
  text: string;
}

/**
 * Where the missing names go: into the module's top-level `from <module> import …` (after its
 * last name; in a parenthesised list with a trailing comma, on a line of their own), else new
 * statements after the last top-level import, or before the first statement.
 */
function importSplices(user: PyScan, text: string, missing: PyImportSpec[]): Splice[] {
  const splices: Splice[] = [];
  const fresh: PyImportSpec[] = [];
  for (const module of [...new Set(missing.map((m) => m.module))]) {
    const specs = missing.filter((m) => m.module === module);
    const names = specs.filter((s) => s.name !== '').map((s) => s.name);
    fresh.push(...specs.filter((s) => s.name === ''));
    if (names.length === 0) continue;
    const target = user.fromImports.find((s) => s.topLevel && s.module === module && !s.star && s.names.length > 0);
    if (!target) fresh.push(...specs.filter((s) => s.name !== ''));
    else splices.push(joinImport(target, text, names));
  }
  if (fresh.length > 0) {
    const at = freshImportOffset(user, text);
    const lines = pyImportLines(fresh).replace(/^\n/, '');
    const before = at === text.length && text !== '' && !text.endsWith('\n') ? '\n' : '';
    const after = at < text.length && user.firstStatement === at ? '\n\n' : '';
    splices.push({ at, text: before + lines + after });
  }
  return splices;
}

function joinImport(target: PyImportStatement, text: string, names: string[]): Splice {
  const last = target.names[target.names.length - 1];
  if (target.parenthesized && target.trailingComma) {
    const comma = text.indexOf(',', last.end);
    const lineStart = text.lastIndexOf('\n', last.end - 1) + 1;
    const indent = /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? '    ';
    return { at: comma + 1, text: names.map((n) => `\n${indent}${n},`).join('') };
  }
  return { at: last.end, text: names.map((n) => `, ${n}`).join('') };
}

/** Just after the line of the last top-level import; else before the first statement (after a docstring). */
function freshImportOffset(user: PyScan, text: string): number {
  const ends = [
    ...user.fromImports.filter((s) => s.topLevel).map((s) => s.end),
    ...user.moduleImports.filter((m) => m.topLevel).map((m) => m.end),
  ];
  if (ends.length > 0) {
    const eol = text.indexOf('\n', Math.max(...ends));
    return eol < 0 ? text.length : eol + 1;
  }
  return user.firstStatement;
}
