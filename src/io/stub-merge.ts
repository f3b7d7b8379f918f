/**
 * Merging stubs into a user's existing handlers file (with ts-morph): adds the stubs of handlers
 * the file does not know yet and never changes a line the user wrote. ts-morph only reads the
 * file; new text is spliced in at two places (new import lines after the last import, new stubs
 * at the end), so every existing byte stays where and as it was. Text in, text out; it sits at
 * the I/O edge with the writer (which alone calls it) because it needs ts-morph, loaded on demand.
 *
 * A handler is known once the file mentions its definition (`MyResourceMyapp`) anywhere: a user
 * who deleted the update stub of a known handler meant it, and it is not brought back.
 */
import { Node, Project, SyntaxKind, type SourceFile } from 'ts-morph';
import type { GeneratedFile, StubEntry } from '../api.js';
import { importLines, type ImportSpec } from '../stubs/stub-files.js';

export interface StubMergeResult {
  /** The merged text; equal to `existing` byte for byte when nothing was missing. */
  text: string;
  added: StubEntry[];
  /** Exported functions in the file that no longer match a handler id/cause (reported, never deleted). */
  orphaned: string[];
}

const STUB_NAME = /^(\w+?)On(Create|Update|Resume|Delete|Field)$/;

export function mergeStubFile(existing: string, file: GeneratedFile): StubMergeResult {
  const project = new Project({ useInMemoryFileSystem: true, skipAddingFilesFromTsConfig: true });
  const user = project.createSourceFile('/user.ts', existing);
  const generated = project.createSourceFile('/generated.ts', file.content);
  const offered = importsOf(generated);
  const identifiers = identifierTexts(user);
  const { declared, exported } = topLevelNames(user);
  const entries = file.stubs ?? [];

  const added = entries.filter((entry) => {
    const definition = registeredDefinition(entry, offered);
    return !declared.has(entry.name) && !(definition !== undefined && identifiers.has(definition));
  });
  const orphaned = orphans(user, exported, entries, offered);
  if (added.length === 0) return { text: existing, added, orphaned };

  const needed = identifiersWithin(generated, added.map((entry) => spanOf(file.content, entry)));
  const missingImports = offered.filter((i) => needed.has(i.name) && !declared.has(i.name));
  const importAt = importOffset(user, existing);
  const gap = importAt === existing.length && existing !== '' && !existing.endsWith('\n') ? '\n' : '';
  const importText = missingImports.length > 0 ? gap + importLines(missingImports) : '';
  const head = existing.slice(0, importAt) + importText + existing.slice(importAt);
  const tail = added.map((entry) => '\n' + entry.text).join('');
  return { text: (head.endsWith('\n') || head === '' ? head : head + '\n') + tail, added, orphaned };
}

/** Named imports of the generated stub file, in order. */
function importsOf(source: SourceFile): ImportSpec[] {
  const out: ImportSpec[] = [];
  for (const decl of source.getImportDeclarations()) {
    for (const named of decl.getNamedImports()) {
      out.push({ module: decl.getModuleSpecifierValue(), name: named.getName(), typeOnly: decl.isTypeOnly() || named.isTypeOnly() });
    }
  }
  return out;
}

/** The definition a stub registers with (`MyResourceMyapp` in `MyResourceMyapp.onCreate(fn)`). */
function registeredDefinition(entry: StubEntry, offered: ImportSpec[]): string | undefined {
  const match = /^([A-Za-z_$][\w$]*)\.on[A-Z]\w*\(/m.exec(entry.text);
  return match && offered.some((i) => i.name === match[1]) ? match[1] : undefined;
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
 * Every name bound at the top level (declarations, import bindings) and every exported name.
 * Read from the syntax alone: ts-morph's symbol-based helpers would build a type checker,
 * which costs about a second per file.
 */
function topLevelNames(source: SourceFile): { declared: Set<string>; exported: Set<string> } {
  const declared = new Set<string>();
  const exported = new Set<string>();
  const bind = (name: string | undefined, isExported: boolean) => {
    if (!name) return;
    declared.add(name);
    if (isExported) exported.add(name);
  };
  for (const statement of source.getStatements()) {
    if (Node.isVariableStatement(statement)) {
      for (const d of statement.getDeclarations()) bind(d.getName(), statement.isExported());
    } else if (Node.isFunctionDeclaration(statement) || Node.isClassDeclaration(statement)) {
      bind(statement.getName(), statement.isExported());
    } else if (Node.isInterfaceDeclaration(statement) || Node.isTypeAliasDeclaration(statement) || Node.isEnumDeclaration(statement)) {
      bind(statement.getName(), statement.isExported());
    } else if (Node.isImportDeclaration(statement)) {
      for (const n of statement.getNamedImports()) bind(n.getAliasNode()?.getText() ?? n.getName(), false);
      bind(statement.getDefaultImport()?.getText(), false);
      bind(statement.getNamespaceImport()?.getText(), false);
    } else if (Node.isExportDeclaration(statement)) {
      for (const e of statement.getNamedExports()) exported.add(e.getAliasNode()?.getText() ?? e.getName());
    }
  }
  return { declared, exported };
}

/**
 * Stub-named functions whose handler is gone (no current stub has that handler part), and
 * generated names the file still uses from the generated module that it no longer exports.
 */
function orphans(user: SourceFile, exported: Set<string>, entries: StubEntry[], offered: ImportSpec[]): string[] {
  const handlerParts = new Set(entries.map((e) => STUB_NAME.exec(e.name)?.[1]));
  const current = new Set(entries.map((e) => e.name));
  const out = new Set<string>();
  for (const name of exported) {
    const match = STUB_NAME.exec(name);
    if (match && !current.has(name) && !handlerParts.has(match[1])) out.add(name);
  }
  const modules = new Set(offered.map((i) => i.module));
  const names = new Set(offered.map((i) => i.name));
  for (const decl of user.getImportDeclarations()) {
    if (!modules.has(decl.getModuleSpecifierValue())) continue;
    for (const named of decl.getNamedImports()) if (!names.has(named.getName())) out.add(named.getName());
  }
  return [...out].sort();
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
