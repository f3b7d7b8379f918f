/**
 * One TypeScript file of the user's project, read as TypeScript reads it (the compiler's own
 * parser, from ts-morph's bundled `typescript`, loaded by the caller): the names it imports from
 * which module, and the handler registrations it makes (`MyResourceMyapp.onCreate(…)`, and a
 * conversion spoke's `WidgetConversion.register("v1alpha1", …)`), each at
 * its line and column. A parse, not a text search: a registration written in a string or a
 * comment is no registration, and one made through an `as` alias or a namespace import
 * (`G.MyResourceMyapp.onCreate(`) is. Only the syntax is read (no program, no type checker), so a
 * file costs its parse alone; one made through a renamed variable (`const d = MyResourceMyapp;
 * d.onCreate(…)`) is not seen (documented in docs/topics/errors-and-status.md).
 */
import type { ts as TS } from 'ts-morph';
import { REGISTER_METHODS, type ScannedFile, type ScannedImport } from '../stubs/handler-scan.js';

type Ts = typeof TS;

export function scanSource(ts: Ts, fileName: string, text: string): ScannedFile {
  return scanParsed(ts, parseSource(ts, fileName, text));
}

/** The file parsed as TypeScript (TSX for `.tsx`), for `scanParsed` and `access-scan.ts` alike. */
export function parseSource(ts: Ts, fileName: string, text: string): TS.SourceFile {
  const kind = /\.tsx$/i.test(fileName) ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind);
}

/** `scanSource` of a parsed file. */
export function scanParsed(ts: Ts, source: TS.SourceFile): ScannedFile {
  const at = (node: TS.Node) => {
    const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source));
    return { line: line + 1, col: character + 1 };
  };
  const imports: ScannedImport[] = [];
  /** Local name of a namespace import (`import * as G from …`) → its module. */
  const namespaces = new Map<string, string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier)) continue;
    const module = specifier.text;
    if (ts.isImportDeclaration(statement)) {
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) namespaces.set(bindings.name.text, module);
      else if (bindings)
        for (const e of bindings.elements) {
          const name = e.propertyName ?? e.name;
          imports.push({ module, name: name.text, local: e.name.text, ...at(name) });
        }
    } else if (statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      // `export { A } from "…"` needs `A` from the module just as an import does.
      for (const e of statement.exportClause.elements) {
        const name = e.propertyName ?? e.name;
        if (ts.isIdentifier(name)) imports.push({ module, name: name.text, local: '', ...at(name) });
      }
    }
  }
  const byLocal = new Map(imports.filter((i) => i.local !== '').map((i) => [i.local, i.name]));
  const registrations: ScannedFile['registrations'] = [];
  const visit = (node: TS.Node): void => {
    // `G.Name` of a namespace import needs `Name` from the module (TS2339 without it).
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression)) {
      const module = namespaces.get(node.expression.text);
      if (module !== undefined && !byLocal.has(node.expression.text))
        imports.push({ module, name: node.name.text, local: '', ...at(node.name) });
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const target = node.expression.expression;
      const definition = ts.isIdentifier(target)
        ? (byLocal.get(target.text) ?? target.text)
        : ts.isPropertyAccessExpression(target) && ts.isIdentifier(target.expression)
          ? target.name.text
          : undefined;
      // A conversion spoke's registration (`WidgetConversion.register("v1alpha1", …)`) is keyed
      // `WidgetConversion.v1alpha1`, as its stub's definition is.
      const version = node.arguments[0];
      if (definition !== undefined && REGISTER_METHODS.has(method))
        registrations.push({ definition, method, ...at(target) });
      else if (definition !== undefined && method === 'register' && version && ts.isStringLiteralLike(version))
        registrations.push({ definition: `${definition}.${version.text}`, method, ...at(target) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  imports.sort((a, b) => a.line - b.line || a.col - b.col);
  return { imports, registrations };
}
