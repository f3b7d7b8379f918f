/**
 * Merging stubs into a user's existing handlers file (with ts-morph): adds the stubs of handlers
 * registered nowhere yet and never removes or rewrites a line the user wrote, except that a
 * needed name joins the file's existing import from its module (one import per module: a second
 * `import … from` the same module is what a reader, and linters, flag). ts-morph only reads the
 * file; new text is spliced in (names into an import's braces, new import lines after the last
 * import, new stubs at the end), so every existing byte stays in order. Text in, text out; it
 * sits at the I/O edge with the writer (which alone calls it) because it needs ts-morph, loaded
 * on demand.
 *
 * A handler is known once this file mentions its definition (`MyResourceMyapp`) anywhere, or
 * any file of the stubs directory registers it (`registeredElsewhere`, from the writer's scan):
 * a user who moved the stubs, or deleted the update stub of a known handler, meant it, and
 * nothing is brought back.
 */
import type { ImportDeclaration, SourceFile } from 'ts-morph';
import type { GeneratedFile, StubEntry } from '../api.js';
import { importLines, type ImportSpec } from '../stubs/stub-files.js';
import { scanSource } from './source-scan.js';
import { tsMorph } from './ts-morph-load.js';

const { Node, Project, SyntaxKind } = tsMorph();

export interface StubMergeResult {
  /** The merged text; equal to `existing` byte for byte when nothing was missing. */
  text: string;
  /** The stubs added, each under the name it was added with. */
  added: StubEntry[];
  /**
   * The file does not parse, and stubs were missing: nothing was added (appended text would land
   * inside an unclosed block), and this is the first syntax error.
   */
  syntax?: { line: number; col: number; message: string };
}

export function mergeStubFile(
  existing: string,
  file: GeneratedFile,
  registeredElsewhere: ReadonlySet<string> = new Set(),
): StubMergeResult {
  const project = new Project({ useInMemoryFileSystem: true, skipAddingFilesFromTsConfig: true });
  const user = project.createSourceFile('/user.ts', existing);
  const generated = project.createSourceFile('/generated.ts', file.content);
  const offered = importsOf(generated);
  const identifiers = identifierTexts(user);
  const { declared } = topLevelNames(user);
  const entries = file.stubs ?? [];
  // A conversion spoke's key (`WidgetConversion.v1alpha1`) is no identifier: its registration here counts.
  const registeredHere = new Set(scanSource(tsMorph().ts, 'user.ts', existing).registrations.map((r) => r.definition));

  const missing = entries.filter(
    (entry) =>
      !identifiers.has(entry.definition) &&
      !registeredHere.has(entry.definition) &&
      !registeredElsewhere.has(entry.definition),
  );
  if (missing.length === 0) return { text: existing, added: [] };
  const syntax = firstSyntaxError(existing);
  if (syntax) return { text: existing, added: [], syntax };
  // A name of the user's (a function of their own, registering nothing) leaves the handler
  // unregistered if its stub is dropped: the stub takes the next free name instead.
  const taken = new Set([...declared, ...identifiers]);
  const added = missing.map((entry) => withFreeName(entry, taken));

  const needed = identifiersWithin(
    generated,
    missing.map((entry) => spanOf(file.content, entry)),
  );
  const missingImports = offered.filter((i) => needed.has(i.name) && !declared.has(i.name));
  const splices = importSplices(user, existing, missingImports);
  let text = existing;
  for (const s of splices.sort((a, b) => b.at - a.at))
    text = text.slice(0, s.at) + s.text + text.slice(s.at + s.remove);
  const tail = added.map((entry) => '\n' + entry.text).join('');
  return { text: (text.endsWith('\n') || text === '' ? text : text + '\n') + tail, added };
}

/** `entry` under a name nothing in the file uses (`myappOnCreate2`, …), its text renamed to match. */
function withFreeName(entry: StubEntry, taken: Set<string>): StubEntry {
  let name = entry.name;
  for (let n = 2; taken.has(name); n++) name = `${entry.name}${n}`;
  taken.add(name);
  if (name === entry.name) return entry;
  return { ...entry, name, text: entry.text.replace(new RegExp(`\\b${entry.name}\\b`, 'g'), name) };
}

/** The file's first syntax error (TypeScript's syntactic diagnostics only: no types, no program). */
function firstSyntaxError(text: string): StubMergeResult['syntax'] {
  const { ts } = tsMorph();
  const { diagnostics } = ts.transpileModule(text, { reportDiagnostics: true, fileName: 'user.ts' });
  const first = diagnostics?.find((d) => d.category === ts.DiagnosticCategory.Error && d.start !== undefined);
  if (!first) return undefined;
  const before = text.slice(0, first.start);
  const line = before.split('\n').length;
  const col = (first.start ?? 0) - (before.lastIndexOf('\n') + 1) + 1;
  return { line, col, message: ts.flattenDiagnosticMessageText(first.messageText, ' ') };
}

/** Replaces `remove` characters at `at` with `text`. */
interface Splice {
  at: number;
  remove: number;
  text: string;
}

/**
 * Where the missing names go: into the braces of the file's import from their module (a type-only
 * one turns into a mixed one when values join it: `import type { A }` → `import { type A, B }`),
 * else new import lines after the last import.
 */
function importSplices(user: SourceFile, text: string, missing: ImportSpec[]): Splice[] {
  const splices: Splice[] = [];
  const fresh: ImportSpec[] = [];
  const modules = [...new Set(missing.map((m) => m.module))];
  for (const module of modules) {
    const specs = missing.filter((m) => m.module === module);
    const decls = user
      .getImportDeclarations()
      .filter((d) => d.getModuleSpecifierValue() === module && d.getNamedImports().length > 0);
    const target = decls.find((d) => !d.isTypeOnly()) ?? decls[0];
    if (!target) {
      fresh.push(...specs);
      continue;
    }
    const named = target.getNamedImports();
    const values = specs.some((s) => !s.typeOnly);
    const turnsMixed = target.isTypeOnly() && values;
    if (turnsMixed) {
      splices.push(...untype(target));
      for (const n of named) if (!n.isTypeOnly()) splices.push({ at: n.getStart(), remove: 0, text: 'type ' });
    }
    const list = specs
      .map((s) => (s.typeOnly && (!target.isTypeOnly() || turnsMixed) ? `type ${s.name}` : s.name))
      .join(', ');
    splices.push({ at: named[named.length - 1].getEnd(), remove: 0, text: `, ${list}` });
  }
  if (fresh.length > 0) {
    const at = importOffset(user, text);
    const gap = at === text.length && text !== '' && !text.endsWith('\n') ? '\n' : '';
    splices.push({ at, remove: 0, text: gap + importLines(fresh) });
  }
  return splices;
}

/** Removes the `type ` of `import type {`. */
function untype(decl: ImportDeclaration): Splice[] {
  const m = /^import(\s+)type(\s+)/.exec(decl.getText());
  if (!m) return [];
  return [{ at: decl.getStart() + 'import'.length + m[1].length, remove: 'type'.length + m[2].length, text: '' }];
}

/** Named imports of the generated stub file, in order. */
function importsOf(source: SourceFile): ImportSpec[] {
  const out: ImportSpec[] = [];
  for (const decl of source.getImportDeclarations()) {
    for (const named of decl.getNamedImports()) {
      out.push({
        module: decl.getModuleSpecifierValue(),
        name: named.getName(),
        typeOnly: decl.isTypeOnly() || named.isTypeOnly(),
      });
    }
  }
  return out;
}

function identifierTexts(source: SourceFile): Set<string> {
  return new Set(source.getDescendantsOfKind(SyntaxKind.Identifier).map((i) => i.getText()));
}

/** Where a stub's text sits in its file's content (the file is the stubs' texts joined after the imports). */
function spanOf(content: string, entry: StubEntry): [number, number] {
  const start = content.indexOf(entry.text);
  if (start < 0) throw new Error(`kopfgen: stub ${entry.name} is not part of its stub file`);
  return [start, start + entry.text.length];
}

/** Identifiers (also in JSDoc links) inside the given spans of an already parsed file. */
function identifiersWithin(source: SourceFile, spans: [number, number][]): Set<string> {
  const out = new Set<string>();
  for (const id of source.getDescendantsOfKind(SyntaxKind.Identifier)) {
    const at = id.getStart();
    if (spans.some(([start, end]) => at >= start && at < end)) out.add(id.getText());
  }
  return out;
}

/**
 * Every name bound at the top level (declarations, import bindings).
 * Read from the syntax alone: ts-morph's symbol-based helpers would build a type checker,
 * which costs about a second per file.
 */
function topLevelNames(source: SourceFile): { declared: Set<string> } {
  const declared = new Set<string>();
  const bind = (name: string | undefined) => name && declared.add(name);
  for (const statement of source.getStatements()) {
    if (Node.isVariableStatement(statement)) {
      for (const d of statement.getDeclarations()) bind(d.getName());
    } else if (Node.isFunctionDeclaration(statement) || Node.isClassDeclaration(statement)) {
      bind(statement.getName());
    } else if (
      Node.isInterfaceDeclaration(statement) ||
      Node.isTypeAliasDeclaration(statement) ||
      Node.isEnumDeclaration(statement)
    ) {
      bind(statement.getName());
    } else if (Node.isImportDeclaration(statement)) {
      for (const n of statement.getNamedImports()) bind(n.getAliasNode()?.getText() ?? n.getName());
      bind(statement.getDefaultImport()?.getText());
      bind(statement.getNamespaceImport()?.getText());
    }
  }
  return { declared };
}

/** Just after the line of the last import; before the first statement when there is none. */
function importOffset(user: SourceFile, text: string): number {
  const imports = user.getImportDeclarations();
  const anchor = imports.length > 0 ? imports[imports.length - 1].getEnd() : undefined;
  if (anchor !== undefined) {
    const eol = text.indexOf('\n', anchor);
    return eol < 0 ? text.length : eol + 1;
  }
  const first = user.getStatements()[0];
  if (!first) return text.length;
  const start = Node.isNode(first) ? first.getStart(true) : 0;
  return text.lastIndexOf('\n', start - 1) + 1;
}
