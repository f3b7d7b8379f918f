/**
 * Schema IR → Python types, one small transform per schema construct, as `emit/type-expr.ts`
 * does for TypeScript: objects are TypedDicts named by the naming pass, maps `Dict[str, T]`,
 * lists `List[T]`, enums `Literal[…]`, int-or-string `Union[int, str]`, anything `Any`.
 *
 * Names are read from the same `ViewNames` as the TypeScript target's (read and write views),
 * spelt for Python by `pyName`. What a module uses from `typing` and `typing_extensions` is
 * recorded in `PyImports`, so it imports exactly that (strict checkers reject unused imports).
 */
import type { ObjectNode, PropertyNode, SchemaNode } from '../model/ir.js';
import { IMPLIED_MEMBERS } from '../model/naming.js';
import { optionalIn, type TypeNames, type View, type ViewNames } from '../emit/type-expr.js';
import { docLines, pushComment, pushDocstring } from './py-docs.js';
import { isClassFormKey, pyName, pyString } from './py-names.js';

/** The names a module imports from `typing` and `typing_extensions`, as it uses them. */
export class PyImports {
  readonly typing = new Set<string>();
  readonly extensions = new Set<string>();

  /** `Any`, `Dict`, `List`, `Optional`, `Union`, `Literal` come from `typing` (3.8+); the rest from `typing_extensions`. */
  use(name: string): string {
    if (TYPING.has(name)) this.typing.add(name);
    else this.extensions.add(name);
    return name;
  }
}

const TYPING: ReadonlySet<string> = new Set(['Any', 'Dict', 'List', 'Literal', 'Optional', 'Union']);

/** The Python type of a schema node, as written where it is used. */
export function pyTypeExpr(node: SchemaNode, types: TypeNames, imports: PyImports): string {
  const base = baseExpr(node, types, imports);
  if (!node.nullable || node.type === 'unknown' || base === 'None' || base.startsWith('Optional[')) return base;
  return `${imports.use('Optional')}[${base}]`;
}

function baseExpr(node: SchemaNode, types: TypeNames, imports: PyImports): string {
  switch (node.type) {
    case 'object': {
      const name = types.get(node);
      if (name !== undefined) return pyName(name);
      return `${imports.use('Dict')}[str, ${valueExpr(node, types, imports)}]`;
    }
    case 'array':
      return `${imports.use('List')}[${node.items ? pyTypeExpr(node.items, types, imports) : imports.use('Any')}]`;
    case 'int-or-string':
      return `${imports.use('Union')}[int, str]`;
    case 'unknown':
      return imports.use('Any');
    default:
      if (node.enum && node.enum.length > 0) return enumExpr(node.enum, imports);
      return node.type === 'integer'
        ? 'int'
        : node.type === 'number'
          ? 'float'
          : node.type === 'boolean'
            ? 'bool'
            : 'str';
  }
}

/**
 * `Literal["a", "b"]`, `Optional[Literal[…]]` when the enum admits null. A literal type cannot
 * hold a float, so a number enum with a fraction is typed `float`.
 */
function enumExpr(values: readonly (string | number | boolean | null)[], imports: PyImports): string {
  const literals = [...new Set(values.filter((v) => v !== null))];
  const hasNull = literals.length < new Set(values).size;
  if (literals.some((v) => typeof v === 'number' && !Number.isInteger(v))) {
    return hasNull ? `${imports.use('Optional')}[float]` : 'float';
  }
  if (literals.length === 0) return 'None';
  const literal = `${imports.use('Literal')}[${literals.map(literalValue).join(', ')}]`;
  return hasNull ? `${imports.use('Optional')}[${literal}]` : literal;
}

function literalValue(v: string | number | boolean): string {
  if (typeof v === 'string') return pyString(v);
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return String(v);
}

function valueExpr(node: ObjectNode, types: TypeNames, imports: PyImports): string {
  const ap = node.additionalProperties;
  if (ap === undefined || ap === 'any') return imports.use('Any');
  return pyTypeExpr(ap, types, imports);
}

/** One key of a TypedDict: its type, whether it is required, and the lines that document it. */
export interface PyMember {
  key: string;
  type: string;
  required: boolean;
  doc: string[];
}

/** The members of an object node in a view (those in `skip` are written by the caller). */
export function objectMembers(
  node: ObjectNode,
  types: TypeNames,
  imports: PyImports,
  view: View,
  skip?: ReadonlySet<string>,
): PyMember[] {
  return node.properties
    .filter((prop) => !skip?.has(prop.name))
    .map((prop: PropertyNode) => ({
      key: prop.name,
      type: pyTypeExpr(prop.schema, types, imports),
      required: !optionalIn(view, prop),
      doc: docLines(prop.schema.description, prop.schema.doc),
    }));
}

const NAME = /[A-Za-z_][A-Za-z0-9_]*/g;

/**
 * Whether a key is spelt like a name the members' types use (`str`, `List`, a generated type): a
 * class body's annotated key is a variable of the class scope to checkers, so it would shadow
 * that name for the keys after it. String literals (`Literal["x"]`) hold no names.
 */
function shadows(members: readonly PyMember[], types: readonly string[]): boolean {
  const keys = new Set(members.map((m) => m.key));
  const names = (type: string) => type.replace(/"(?:[^"\\]|\\.)*"/g, '').match(NAME) ?? [];
  return types.some((type) => names(type).some((name) => keys.has(name)));
}

/**
 * A TypedDict declaration. Every one is `total=False`, with `Required[…]` on the keys the view
 * requires (typing_extensions' `TypedDict`, since `typing.TypedDict` before 3.11 does not know
 * `Required`). A key a class body cannot declare (`x-kube`, `class`, `__x`) makes the whole
 * type the functional form, which takes any string; its keys' documentation becomes comments.
 * So does a key spelt like a name the members' types use.
 */
export function pushTypedDict(
  out: string[],
  name: string,
  members: readonly PyMember[],
  imports: PyImports,
  doc: readonly string[] = [],
): void {
  const typedDict = imports.use('TypedDict');
  const types = members.map((m) => (m.required ? `${imports.use('Required')}[${m.type}]` : m.type));
  out.push('\n\n');
  if (members.every((m) => isClassFormKey(m.key)) && !shadows(members, types)) {
    out.push(`class ${name}(${typedDict}, total=False):\n`);
    pushDocstring(out, '    ', doc);
    if (doc.length > 0 && members.length > 0) out.push('\n');
    members.forEach((m, i) => {
      out.push(`    ${m.key}: ${types[i]}\n`);
      pushDocstring(out, '    ', m.doc);
    });
    if (members.length === 0 && doc.length === 0) out.push('    pass\n');
    return;
  }
  pushComment(out, '', doc);
  out.push(`${name} = ${typedDict}(\n    ${pyString(name)},\n    {\n`);
  members.forEach((m, i) => {
    pushComment(out, '        ', m.doc);
    out.push(`        ${pyString(m.key)}: ${types[i]},\n`);
  });
  out.push('    },\n    total=False,\n)\n');
}

/** The members of an embedded resource: a Kubernetes object, so apiVersion and kind are present. */
function embeddedMembers(node: ObjectNode, types: TypeNames, imports: PyImports, view: View): PyMember[] {
  const metadata = node.properties.find((p) => p.name === 'metadata');
  return [
    { key: 'apiVersion', type: 'str', required: true, doc: [] },
    { key: 'kind', type: 'str', required: true, doc: [] },
    { key: 'metadata', type: OBJECT_META, required: metadata !== undefined && !optionalIn(view, metadata), doc: [] },
    ...objectMembers(node, types, imports, view, IMPLIED_MEMBERS),
  ];
}

/** Kubernetes' ObjectMeta, declared once in the package's shim. */
export const OBJECT_META = 'kopfgen.ObjectMeta';

/**
 * Every named object node below `node` (and its `…Input` where the views differ), children before
 * their parents (post-order, in property order): a class body is evaluated where it stands, so a
 * type must be declared before a type that uses it. CRD schemas hold no cycles (no `$ref`).
 */
export function pushNestedTypedDicts(
  out: string[],
  node: ObjectNode,
  names: ViewNames,
  imports: PyImports,
  skip?: ReadonlySet<string>,
): void {
  for (const prop of node.properties) if (!skip?.has(prop.name)) pushNamedBelow(out, prop.schema, names, imports);
  const ap = node.additionalProperties;
  if (ap && ap !== 'any') pushNamedBelow(out, ap, names, imports);
}

function pushNamedBelow(out: string[], node: SchemaNode, names: ViewNames, imports: PyImports): void {
  if (node.type === 'array') {
    if (node.items) pushNamedBelow(out, node.items, names, imports);
    return;
  }
  if (node.type !== 'object') return;
  pushNestedTypedDicts(out, node, names, imports, node.embeddedResource ? IMPLIED_MEMBERS : undefined);
  const name = names.read.get(node);
  if (name !== undefined) pushObject(out, node, pyName(name), names.read, imports, 'read');
  const input = names.input.get(node);
  if (input !== undefined) {
    const doc = [writeDocLine(pyName(name ?? input))];
    pushObject(out, node, pyName(input), names.write, imports, 'write', doc);
  }
}

/** The docstring of a write-view TypedDict. */
export function writeDocLine(readName: string): string {
  return `${readName} as a user writes it (create, apply, patch): the fields the API server defaults may be left out.`;
}

/**
 * A named object node without properties whose keys are open (a typed map that also keeps
 * unknown fields, or an object that keeps any): TypeScript gives it an index signature, which a
 * TypedDict cannot have, so Python names it as an alias of `Dict[str, …]`.
 */
export function isMapLike(node: ObjectNode): boolean {
  return (
    node.properties.length === 0 &&
    !node.embeddedResource &&
    (node.additionalProperties !== undefined || node.preserveUnknownFields)
  );
}

/** `Name: TypeAlias = <type>` and its docstring. */
export function pushAlias(out: string[], name: string, type: string, imports: PyImports, doc: readonly string[]): void {
  out.push(`\n\n${name}: ${imports.use('TypeAlias')} = ${type}\n`);
  pushDocstring(out, '', doc);
}

function pushObject(
  out: string[],
  node: ObjectNode,
  name: string,
  types: TypeNames,
  imports: PyImports,
  view: View,
  doc: string[] = [],
): void {
  if (isMapLike(node)) {
    const map = `${imports.use('Dict')}[str, ${valueExpr(node, types, imports)}]`;
    return pushAlias(out, name, map, imports, doc);
  }
  const members = node.embeddedResource
    ? embeddedMembers(node, types, imports, view)
    : objectMembers(node, types, imports, view);
  pushTypedDict(out, name, members, imports, doc);
}
