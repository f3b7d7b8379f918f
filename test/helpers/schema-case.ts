/**
 * One schema in, its TypeScript (or the kopf target's Python) out: for the given/want tables of the emit transforms. The
 * schema (JSON or YAML text) goes through the real reader, model and naming pass, as the root
 * of a served storage version of kind `T`; the result is the root's members and every named
 * nested interface, exactly as a module writes them; where a server default makes the write view
 * differ, `interface TInput { … }` follows the root.
 */
import { parseAllDocuments } from 'yaml';
import type { Diagnostic } from '../../src/diagnostics.js';
import { pushMembers, pushNestedInterfaces, viewNames, type TypeUsage } from '../../src/emit/type-expr.js';
import { objectMembers, pushNestedTypedDicts, pushTypedDict, PyImports } from '../../src/emit-kopf/py-type-expr.js';
import { ParsedSource } from '../../src/load/yaml-source.js';
import { documentTree } from '../../src/load/yaml-tree.js';
import { buildSchema } from '../../src/model/build-schema.js';
import type { CrdModel, ObjectNode } from '../../src/model/ir.js';
import { withoutHandlers } from '../../src/model/handler-pass.js';
import { nameCrd } from '../../src/model/naming.js';

export interface SchemaCase {
  name: string;
  /** The schema below the root: the root is `{ type: object, properties: { x: <given> } }` unless `root` is set. */
  given: string;
  want: string;
  root?: boolean;
}

/** The text `interface T { … }` plus nested interfaces, and the diagnostics of reading the schema. */
export function emitSchema(given: string, root = false): { text: string; diagnostics: Diagnostic[]; usage: TypeUsage } {
  const { schema, diagnostics } = readSchema(root ? given : `{"type": "object", "properties": {"x": ${given}}}`);
  const named = nameCrd(withoutHandlers(crdOf(schema)), 'T').versions[0];
  const usage: TypeUsage = { kubernetesObject: false, objectMeta: false };
  const views = viewNames(named.types, named.inputTypes);
  const out: string[] = ['interface T {\n'];
  pushMembers(out, schema, named.types);
  out.push('}\n');
  // The root's write view, where a server default makes it differ (as a module writes `TInput`).
  const input = named.inputTypes.get(schema);
  if (input !== undefined) {
    out.push(`interface ${input} {\n`);
    pushMembers(out, schema, views.write, undefined, [], 'write');
    out.push('}\n');
  }
  pushNestedInterfaces(out, schema, views, usage);
  return { text: out.join(''), diagnostics, usage };
}

/** A root object schema (JSON or YAML text) through the real reader and model. */
export function readSchema(text: string): { schema: ObjectNode; diagnostics: Diagnostic[] } {
  const source = new ParsedSource('case.yaml', text);
  const [doc] = parseAllDocuments(text, { lineCounter: source.lineCounter, uniqueKeys: false });
  const diagnostics: Diagnostic[] = [];
  const schema = buildSchema({ source, diagnostics, structural: 'error' }, documentTree(source, doc).root, '');
  if (schema.type !== 'object') throw new Error(`case root is not an object: ${text}`);
  return { schema, diagnostics };
}

function crdOf(schema: ObjectNode): CrdModel {
  const at = { pointer: '', pos: { file: 'case.yaml', line: 1, col: 1 } };
  const version = {
    ...at,
    name: 'v1',
    served: true,
    storage: true,
    deprecated: false,
    schema,
    subresources: { status: false },
    printerColumns: [],
  };
  const names = { name: 'ts.x.io', group: 'x.io', kind: 'T', plural: 'ts', shortNames: [], categories: [] };
  return { ...at, ...names, file: 'case.yaml', scope: 'Namespaced', annotations: {}, versions: [version] };
}

/**
 * The kopf target's text for a schema: every named nested TypedDict (children first, with its
 * write view where it differs), then the root as `class T`, as a Python module writes them.
 */
export function emitPySchema(given: string, root = false): { text: string; diagnostics: Diagnostic[] } {
  const { schema, diagnostics } = readSchema(root ? given : `{"type": "object", "properties": {"x": ${given}}}`);
  const named = nameCrd(withoutHandlers(crdOf(schema)), 'T').versions[0];
  const views = viewNames(named.types, named.inputTypes);
  const imports = new PyImports();
  const out: string[] = [];
  pushNestedTypedDicts(out, schema, views, imports);
  pushTypedDict(out, 'T', objectMembers(schema, named.types, imports, 'read'), imports);
  return { text: out.join('').replace(/^\n\n/, ''), diagnostics };
}
