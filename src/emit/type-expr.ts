/**
 * Schema IR → TypeScript, one small transform per schema construct (as openapi-typescript
 * does). Writes into a shared string array that the module emitter joins once.
 */
import type { ObjectNode, PropertyNode, SchemaNode } from '../model/ir.js';
import { IMPLIED_MEMBERS } from '../model/naming.js';
import { propertyKey } from './ident.js';
import { pushJsDoc } from './jsdoc.js';

/** Type-level facts the module header needs (which runtime types to import). */
export interface TypeUsage {
  kubernetesObject: boolean;
  objectMeta: boolean;
}

/** The type expression of a schema node, as written where the node is used. */
export function typeExpr(node: SchemaNode): string {
  const base = baseExpr(node);
  const hasNull = node.type === 'unknown' || ('enum' in node && node.enum?.includes(null));
  return node.nullable && !hasNull ? `${base} | null` : base;
}

function baseExpr(node: SchemaNode): string {
  switch (node.type) {
    case 'object':
      return node.typeName ?? `{ [key: string]: ${valueExpr(node)} }`;
    case 'array': {
      if (!node.items) return 'unknown[]';
      const item = typeExpr(node.items);
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

function valueExpr(node: ObjectNode): string {
  const ap = node.additionalProperties;
  if (ap === undefined || ap === 'any') return 'unknown';
  return typeExpr(ap);
}

/** The members of an object node's interface (without braces), each with its JSDoc. */
/**
 * `impliedTypes`: types of members written by the caller (a resource's literal apiVersion and
 * kind, ObjectMeta), which an index signature must admit as well.
 */
export function pushMembers(out: string[], node: ObjectNode, skip?: ReadonlySet<string>, impliedTypes: string[] = []): void {
  const types: string[] = [...impliedTypes];
  for (const prop of node.properties) {
    if (skip?.has(prop.name)) continue;
    types.push(pushProperty(out, prop));
    if (!prop.required) types.push('undefined');
  }
  const index = indexSignature(node, types);
  if (index) out.push(`  [key: string]: ${index};\n`);
}

function pushProperty(out: string[], prop: PropertyNode): string {
  const type = typeExpr(prop.schema);
  pushJsDoc(out, '  ', prop.schema.description, prop.schema.doc);
  out.push(`  ${propertyKey(prop.name)}${prop.required ? '' : '?'}: ${type};\n`);
  return type;
}

/**
 * The index signature of an open object or a map with known properties. TypeScript requires
 * every property to fit the index type, so a typed map's index type also admits the
 * properties' own types.
 */
function indexSignature(node: ObjectNode, propertyTypes: string[]): string | undefined {
  if (node.preserveUnknownFields || node.additionalProperties === 'any') return 'unknown';
  if (node.additionalProperties === undefined) return undefined;
  const value = typeExpr(node.additionalProperties);
  if (propertyTypes.length === 0) return value;
  return [...new Set([value, ...propertyTypes])].join(' | ');
}

/** Appends the interface of every named object node below `node` (depth first, in property order). */
export function pushNestedInterfaces(out: string[], node: ObjectNode, usage: TypeUsage, skip?: ReadonlySet<string>): void {
  for (const prop of node.properties) if (!skip?.has(prop.name)) pushNamedBelow(out, prop.schema, usage);
  if (node.additionalProperties && node.additionalProperties !== 'any') pushNamedBelow(out, node.additionalProperties, usage);
}

function pushNamedBelow(out: string[], node: SchemaNode, usage: TypeUsage): void {
  if (node.type === 'array') {
    if (node.items) pushNamedBelow(out, node.items, usage);
    return;
  }
  if (node.type !== 'object') return;
  if (node.typeName) pushInterface(out, node, usage);
  pushNestedInterfaces(out, node, usage, node.embeddedResource ? IMPLIED_MEMBERS : undefined);
}

function pushInterface(out: string[], node: ObjectNode, usage: TypeUsage): void {
  out.push('\n');
  if (node.embeddedResource) {
    // An embedded resource is a Kubernetes object: apiVersion and kind are validated as present.
    usage.kubernetesObject = true;
    usage.objectMeta = true;
    out.push(`export interface ${node.typeName} extends KubernetesObject {\n`);
    out.push('  apiVersion: string;\n  kind: string;\n  metadata?: ObjectMeta;\n');
    pushMembers(out, node, IMPLIED_MEMBERS, ['string', 'ObjectMeta', 'undefined']);
  } else {
    out.push(`export interface ${node.typeName} {\n`);
    pushMembers(out, node);
  }
  out.push('}\n');
}
