/**
 * Schema IR → TypeScript, one small transform per schema construct (as openapi-typescript
 * does). Writes into a shared string array that the module emitter joins once.
 */
import type { ObjectNode, PropertyNode, SchemaNode } from '../model/ir.js';
import { IMPLIED_MEMBERS } from '../model/naming.js';
import { propertyKey } from './ident.js';
import { pushJsDoc } from './jsdoc.js';

/** The interface name of each named object node of a module, from the naming pass (`NamedVersion.types`). */
export type TypeNames = ReadonlyMap<ObjectNode, string>;

/** Type-level facts the module header needs (which runtime types to import). */
export interface TypeUsage {
  kubernetesObject: boolean;
  objectMeta: boolean;
}

/** The type expression of a schema node, as written where the node is used. */
export function typeExpr(node: SchemaNode, types: TypeNames): string {
  const base = baseExpr(node, types);
  const hasNull = node.type === 'unknown' || ('enum' in node && node.enum?.includes(null));
  return node.nullable && !hasNull ? `${base} | null` : base;
}

function baseExpr(node: SchemaNode, types: TypeNames): string {
  switch (node.type) {
    case 'object':
      return types.get(node) ?? `{ [key: string]: ${valueExpr(node, types)} }`;
    case 'array': {
      if (!node.items) return 'unknown[]';
      const item = typeExpr(node.items, types);
      return isUnion(node.items) ? `(${item})[]` : `${item}[]`;
    }
    case 'int-or-string':
      return 'number | string';
    case 'unknown':
      return 'unknown';
    default:
      if (node.enum && node.enum.length > 0) return [...new Set(node.enum.map((v) => JSON.stringify(v)))].join(' | ');
      return node.type === 'integer' ? 'number' : node.type;
  }
}

function isUnion(node: SchemaNode): boolean {
  if (node.type === 'unknown') return false;
  if (node.nullable || node.type === 'int-or-string') return true;
  return (node.type === 'string' || node.type === 'integer' || node.type === 'number' || node.type === 'boolean') && new Set(node.enum ?? []).size > 1;
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
): void {
  const memberTypes: string[] = [...impliedTypes];
  for (const prop of node.properties) {
    if (skip?.has(prop.name)) continue;
    memberTypes.push(pushProperty(out, prop, types));
    if (!prop.required) memberTypes.push('undefined');
  }
  const index = indexSignature(node, memberTypes, types);
  if (index) out.push(`  [key: string]: ${index};\n`);
}

function pushProperty(out: string[], prop: PropertyNode, types: TypeNames): string {
  const type = typeExpr(prop.schema, types);
  pushJsDoc(out, '  ', prop.schema.description, prop.schema.doc);
  out.push(`  ${propertyKey(prop.name)}${prop.required ? '' : '?'}: ${type};\n`);
  return type;
}

/**
 * The index signature of an open object or a map with known properties. TypeScript requires
 * every property to fit the index type, so a typed map's index type also admits the
 * properties' own types.
 */
function indexSignature(node: ObjectNode, propertyTypes: string[], types: TypeNames): string | undefined {
  if (node.preserveUnknownFields || node.additionalProperties === 'any') return 'unknown';
  if (node.additionalProperties === undefined) return undefined;
  const value = typeExpr(node.additionalProperties, types);
  if (propertyTypes.length === 0) return value;
  return [...new Set([value, ...propertyTypes])].join(' | ');
}

/** Appends the interface of every named object node below `node` (depth first, in property order). */
export function pushNestedInterfaces(
  out: string[],
  node: ObjectNode,
  types: TypeNames,
  usage: TypeUsage,
  skip?: ReadonlySet<string>,
): void {
  for (const prop of node.properties) if (!skip?.has(prop.name)) pushNamedBelow(out, prop.schema, types, usage);
  const ap = node.additionalProperties;
  if (ap && ap !== 'any') pushNamedBelow(out, ap, types, usage);
}

function pushNamedBelow(out: string[], node: SchemaNode, types: TypeNames, usage: TypeUsage): void {
  if (node.type === 'array') {
    if (node.items) pushNamedBelow(out, node.items, types, usage);
    return;
  }
  if (node.type !== 'object') return;
  const name = types.get(node);
  if (name !== undefined) pushInterface(out, node, name, types, usage);
  pushNestedInterfaces(out, node, types, usage, node.embeddedResource ? IMPLIED_MEMBERS : undefined);
}

function pushInterface(out: string[], node: ObjectNode, name: string, types: TypeNames, usage: TypeUsage): void {
  out.push('\n');
  if (node.embeddedResource) {
    // An embedded resource is a Kubernetes object: apiVersion and kind are validated as present.
    usage.kubernetesObject = true;
    usage.objectMeta = true;
    out.push(`export interface ${name} extends KubernetesObject {\n`);
    out.push('  apiVersion: string;\n  kind: string;\n  metadata?: ObjectMeta;\n');
    pushMembers(out, node, types, IMPLIED_MEMBERS, ['string', 'ObjectMeta', 'undefined']);
  } else {
    out.push(`export interface ${name} {\n`);
    pushMembers(out, node, types);
  }
  out.push('}\n');
}
