/**
 * Schema IR → TypeScript, one small transform per schema construct (as openapi-typescript
 * does). Writes into a shared string array that the module emitter joins once.
 */
import type { ObjectNode, PropertyNode, SchemaNode } from '../model/ir.js';
import { IMPLIED_MEMBERS } from '../model/naming.js';
import { serverDefaulted } from '../model/write-view.js';
import { propertyKey } from './ident.js';
import { pushJsDoc } from './jsdoc.js';

/** The interface name of each named object node of a module, from the naming pass (`NamedVersion.types`). */
export type TypeNames = ReadonlyMap<ObjectNode, string>;

/**
 * Which view a type is written in: `read`, an object as the API server returns it (defaults
 * filled in), or `write`, what a user creates, applies or patches (server-defaulted properties
 * optional). See model/write-view.ts.
 */
export type View = 'read' | 'write';

/** A module's names in both views: `write` maps a node to its `…Input` name where the views differ, else to its read name. */
export interface ViewNames {
  read: TypeNames;
  /** Only the nodes whose write view differs (`NamedVersion.inputTypes`). */
  input: TypeNames;
  write: TypeNames;
}

export function viewNames(read: TypeNames, input: TypeNames): ViewNames {
  return { read, input, write: input.size === 0 ? read : new Map([...read, ...input]) };
}

/** Optional in this view: not required, or required but filled in by the server when a user writes it. */
export function optionalIn(view: View, prop: PropertyNode): boolean {
  return !prop.required || (view === 'write' && serverDefaulted(prop));
}

/** Type-level facts the module header needs (which runtime types to import). */
export interface TypeUsage {
  kubernetesObject: boolean;
  objectMeta: boolean;
}

/** The type expression of a schema node, as written where the node is used. */
export function typeExpr(node: SchemaNode, types: TypeNames): string {
  const base = baseExpr(node, types);
  const hasNull = node.type === 'unknown' || ('enum' in node && node.enum?.includes(null));
  if (base === 'never') return node.nullable ? 'null' : base;
  return node.nullable && !hasNull ? `${base} | null` : base;
}

function baseExpr(node: SchemaNode, types: TypeNames): string {
  switch (node.type) {
    case 'object':
      return types.get(node) ?? `{ [key: string]: ${valueExpr(node, types)} }`;
    case 'array': {
      if (!node.items) return 'unknown[]';
      const item = typeExpr(node.items, types);
      // Items of a list under x-kubernetes-preserve-unknown-fields keep their unknown fields (the
      // server's pruning skips through the list): a closed object item type is opened.
      if (
        node.preserveUnknownFields &&
        node.items.type === 'object' &&
        indexSignature(node.items, [], types) === undefined
      )
        return `(${item} & { [key: string]: unknown })[]`;
      return isUnion(node.items) ? `(${item})[]` : `${item}[]`;
    }
    case 'int-or-string':
      return 'number | string';
    case 'unknown':
      return 'unknown';
    default:
      if (node.noValue) return 'never';
      if (node.enum && node.enum.length > 0) return [...new Set(node.enum.map((v) => JSON.stringify(v)))].join(' | ');
      return node.type === 'integer' ? 'number' : node.type;
  }
}

function isUnion(node: SchemaNode): boolean {
  if (node.type === 'unknown') return false;
  if (node.nullable || node.type === 'int-or-string') return true;
  return (
    (node.type === 'string' || node.type === 'integer' || node.type === 'number' || node.type === 'boolean') &&
    new Set(node.enum ?? []).size > 1
  );
}

function valueExpr(node: ObjectNode, types: TypeNames): string {
  const ap = node.additionalProperties;
  if (ap === undefined || ap === 'any') return 'unknown';
  return typeExpr(ap, types);
}

/** The members of an object node's interface (without braces), each with its JSDoc. */
/**
 * `impliedTypes`: types of members written by the caller (a resource's literal apiVersion and
 * kind, ObjectMeta), which an index signature must admit as well.
 */
export function pushMembers(
  out: string[],
  node: ObjectNode,
  types: TypeNames,
  skip?: ReadonlySet<string>,
  impliedTypes: string[] = [],
  view: View = 'read',
): void {
  const memberTypes: string[] = [...impliedTypes];
  for (const prop of node.properties) {
    if (skip?.has(prop.name)) continue;
    const optional = optionalIn(view, prop);
    memberTypes.push(pushProperty(out, prop, types, optional));
    if (optional) memberTypes.push('undefined');
  }
  const index = indexSignature(node, memberTypes, types);
  if (index) out.push(`  [key: string]: ${index};\n`);
}

function pushProperty(out: string[], prop: PropertyNode, types: TypeNames, optional: boolean): string {
  const type = typeExpr(prop.schema, types);
  pushJsDoc(out, '  ', prop.schema.description, prop.schema.doc);
  out.push(`  ${propertyKey(prop.name)}${optional ? '?' : ''}: ${type};\n`);
  return type;
}

/**
 * The index signature of an open object or a map with known properties. TypeScript requires
 * every property to fit the index type, so a typed map's index type also admits the
 * properties' own types. A typed `additionalProperties` wins over
 * `x-kubernetes-preserve-unknown-fields`: every key then has a schema (the API server validates
 * each value against it), so no key is unknown and nothing is left for the extension to keep.
 */
function indexSignature(node: ObjectNode, propertyTypes: string[], types: TypeNames): string | undefined {
  if (node.additionalProperties === 'any') return 'unknown';
  if (node.additionalProperties === undefined) return node.preserveUnknownFields ? 'unknown' : undefined;
  const value = typeExpr(node.additionalProperties, types);
  if (propertyTypes.length === 0) return value;
  return [...new Set([value, ...propertyTypes])].join(' | ');
}

/**
 * Appends the interface of every named object node below `node` (depth first, in property
 * order), each followed by its write-view `…Input` interface where that differs.
 */
export function pushNestedInterfaces(
  out: string[],
  node: ObjectNode,
  names: ViewNames,
  usage: TypeUsage,
  skip?: ReadonlySet<string>,
): void {
  for (const prop of node.properties) if (!skip?.has(prop.name)) pushNamedBelow(out, prop.schema, names, usage);
  const ap = node.additionalProperties;
  if (ap && ap !== 'any') pushNamedBelow(out, ap, names, usage);
}

function pushNamedBelow(out: string[], node: SchemaNode, names: ViewNames, usage: TypeUsage): void {
  if (node.type === 'array') {
    if (node.items) pushNamedBelow(out, node.items, names, usage);
    return;
  }
  if (node.type !== 'object') return;
  const name = names.read.get(node);
  if (name !== undefined) pushInterface(out, node, name, names.read, usage, 'read');
  const input = names.input.get(node);
  if (input !== undefined) pushInterface(out, node, input, names.write, usage, 'write', writeDoc(name ?? input));
  pushNestedInterfaces(out, node, names, usage, node.embeddedResource ? IMPLIED_MEMBERS : undefined);
}

/** The JSDoc of a write-view interface. */
export function writeDoc(readName: string): string {
  return `${readName} as a user writes it (create, apply, patch): the fields the API server defaults may be left out.`;
}

function pushInterface(
  out: string[],
  node: ObjectNode,
  name: string,
  types: TypeNames,
  usage: TypeUsage,
  view: View,
  doc?: string,
): void {
  out.push('\n');
  pushJsDoc(out, '', doc, undefined);
  if (node.embeddedResource) {
    // An embedded resource is a Kubernetes object: apiVersion and kind are validated as present.
    usage.kubernetesObject = true;
    usage.objectMeta = true;
    out.push(`export interface ${name} extends KubernetesObject {\n`);
    out.push(`  apiVersion: string;\n  kind: string;\n  ${metadataMember(node, view)}\n`);
    pushMembers(out, node, types, IMPLIED_MEMBERS, ['string', 'ObjectMeta', 'undefined'], view);
  } else {
    out.push(`export interface ${name} {\n`);
    pushMembers(out, node, types, undefined, [], view);
  }
  out.push('}\n');
}

/** `metadata` of a Kubernetes object: ObjectMeta, required where the schema requires it. */
export function metadataMember(node: ObjectNode, view: View): string {
  const prop = node.properties.find((p) => p.name === 'metadata');
  return `metadata${prop === undefined || optionalIn(view, prop) ? '?' : ''}: ObjectMeta;`;
}
