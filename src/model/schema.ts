/**
 * OpenAPI v3 schema (as YAML nodes) → schema IR. Walks the YAML nodes directly, one pass over
 * each map's keys, so no intermediate JS object tree is built. Structural-schema violations
 * (an array without `items`, a property without `type`) are reported, with position and pointer.
 */
import { isMap, isScalar, isSeq, type Document, type Node, type YAMLMap } from 'yaml';
import type { Diagnostic } from '../diagnostics.js';
import { deref, num, plain, str, type ParsedSource } from '../load/source.js';
import type { DocTags, ObjectNode, PropertyNode, ScalarNode, SchemaNode } from './ir.js';

/** `pointerJoin` for one segment, without the regular expressions when nothing needs escaping. */
function pointerJoin(base: string, segment: string): string {
  if (segment.indexOf('~') === -1 && segment.indexOf('/') === -1) return base + '/' + segment;
  return base + '/' + segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export interface SchemaContext {
  source: ParsedSource;
  doc: Document.Parsed;
  diagnostics: Diagnostic[];
  /** Severity of structural-schema violations: errors for v1 (the API server rejects them), warnings for v1beta1. */
  structural: 'error' | 'warning';
}

/** Raw keywords of one schema map, gathered in a single pass over its pairs. */
interface Keywords {
  type?: string;
  description?: string;
  nullable: boolean;
  properties?: YAMLMap;
  required?: Node;
  items?: Node;
  additionalProperties?: Node;
  enum?: Node;
  preserve: boolean;
  intOrString: boolean;
  embedded: boolean;
  listType?: string;
  listMapKeys?: Node;
  doc: DocTags;
}

export function buildSchema(ctx: SchemaContext, node: Node | undefined, pointer: string): SchemaNode {
  const map = deref(node, ctx.doc);
  const pos = ctx.source.nodePos(map);
  if (!isMap(map)) {
    ctx.diagnostics.push(ctx.source.diag('error', 'KG114', 'a schema must be a mapping', map, pointer));
    return { type: 'unknown', pointer, pos, nullable: false, doc: {} };
  }
  const kw = readKeywords(ctx, map, pointer);
  const base = { pointer, pos, description: kw.description, nullable: kw.nullable, doc: kw.doc };
  if (kw.intOrString) return { ...base, type: 'int-or-string' };
  switch (kw.type) {
    case 'object':
      return buildObject(ctx, kw, base);
    case 'array': {
      if (kw.items === undefined) {
        ctx.diagnostics.push(ctx.source.diag(ctx.structural, 'KG110', 'non-structural schema: array without `items`', map, pointer));
      }
      const items = kw.items === undefined ? undefined : buildSchema(ctx, kw.items, pointerJoin(pointer, 'items'));
      const listType = kw.listType === 'atomic' || kw.listType === 'set' || kw.listType === 'map' ? kw.listType : undefined;
      const keys = isSeq(kw.listMapKeys) ? kw.listMapKeys.items.map((k) => str(k as Node)).filter((k): k is string => !!k) : undefined;
      return { ...base, type: 'array', items, listType, listMapKeys: keys };
    }
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean': {
      const scalar: ScalarNode = { ...base, type: kw.type };
      if (kw.enum) scalar.enum = readEnum(ctx, kw.enum, pointer);
      return scalar;
    }
    case undefined:
      if (kw.preserve) return kw.properties ? buildObject(ctx, kw, base) : { ...base, type: 'unknown' };
      if (kw.properties || kw.additionalProperties) return buildObject(ctx, kw, base, pointer, map);
      ctx.diagnostics.push(ctx.source.diag(ctx.structural, 'KG111', 'non-structural schema: no `type` (and neither x-kubernetes-int-or-string nor x-kubernetes-preserve-unknown-fields)', map, pointer));
      return { ...base, type: 'unknown' };
    default:
      ctx.diagnostics.push(ctx.source.diag('error', 'KG114', `unknown schema type \`${kw.type}\``, map, pointer));
      return { ...base, type: 'unknown' };
  }
}

type Base = Pick<ObjectNode, 'pointer' | 'pos' | 'description' | 'nullable' | 'doc'>;

function buildObject(ctx: SchemaContext, kw: Keywords, base: Base, untypedAt?: string, map?: YAMLMap): ObjectNode {
  if (untypedAt !== undefined) {
    ctx.diagnostics.push(ctx.source.diag(ctx.structural, 'KG111', 'non-structural schema: an object schema needs `type: object`', map, untypedAt));
  }
  const required = new Set<string>();
  if (isSeq(kw.required)) for (const r of kw.required.items) if (isScalar(r)) required.add(String(r.value));
  const properties: PropertyNode[] = [];
  if (kw.properties) {
    const propsPointer = pointerJoin(base.pointer, 'properties');
    for (const pair of kw.properties.items) {
      const name = isScalar(pair.key) ? String(pair.key.value) : '';
      const schema = buildSchema(ctx, pair.value as Node, pointerJoin(propsPointer, name));
      properties.push({ name, required: required.has(name), schema });
    }
    properties.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  const node: ObjectNode = { ...base, type: 'object', properties, preserveUnknownFields: kw.preserve, embeddedResource: kw.embedded };
  const ap = deref(kw.additionalProperties, ctx.doc);
  if (isScalar(ap)) {
    if (ap.value === true) node.additionalProperties = 'any';
  } else if (ap) {
    node.additionalProperties = buildSchema(ctx, ap, pointerJoin(base.pointer, 'additionalProperties'));
  }
  return node;
}

function readKeywords(ctx: SchemaContext, map: YAMLMap, pointer: string): Keywords {
  const kw: Keywords = { nullable: false, preserve: false, intOrString: false, embedded: false, doc: {} };
  const doc = kw.doc;
  for (const pair of map.items) {
    const key = isScalar(pair.key) ? pair.key.value : undefined;
    const value = deref(pair.value, ctx.doc);
    switch (key) {
      case 'type': kw.type = str(value); break;
      case 'description': kw.description = str(value); break;
      case 'nullable': kw.nullable = isTrue(value); break;
      case 'properties': if (isMap(value)) kw.properties = value; break;
      case 'required': kw.required = value; break;
      case 'items': kw.items = value; break;
      case 'additionalProperties': kw.additionalProperties = value; break;
      case 'enum': kw.enum = value; break;
      case 'x-kubernetes-preserve-unknown-fields': kw.preserve = isTrue(value); break;
      case 'x-kubernetes-int-or-string': kw.intOrString = isTrue(value); break;
      case 'x-kubernetes-embedded-resource': kw.embedded = isTrue(value); break;
      case 'x-kubernetes-list-type': kw.listType = str(value); break;
      case 'x-kubernetes-list-map-keys': kw.listMapKeys = value; break;
      case 'format': doc.format = str(value); break;
      case 'default': doc.default = plain(value, ctx.doc); break;
      case 'example': doc.example = plain(value, ctx.doc); break;
      case 'minimum': doc.minimum = num(value); break;
      case 'maximum': doc.maximum = num(value); break;
      case 'exclusiveMinimum': doc.exclusiveMinimum = isTrue(value); break;
      case 'exclusiveMaximum': doc.exclusiveMaximum = isTrue(value); break;
      case 'minLength': doc.minLength = num(value); break;
      case 'maxLength': doc.maxLength = num(value); break;
      case 'minItems': doc.minItems = num(value); break;
      case 'maxItems': doc.maxItems = num(value); break;
      case 'pattern': doc.pattern = str(value); break;
      case 'x-kubernetes-validations': doc.validations = readValidations(ctx, value, pointer); break;
      default: break;
    }
  }
  return kw;
}

function isTrue(node: Node | undefined): boolean {
  return isScalar(node) && node.value === true;
}

function readEnum(ctx: SchemaContext, node: Node, pointer: string): ScalarNode['enum'] {
  if (!isSeq(node)) {
    ctx.diagnostics.push(ctx.source.diag('error', 'KG114', '`enum` must be a list', node, pointerJoin(pointer, 'enum')));
    return undefined;
  }
  const values: NonNullable<ScalarNode['enum']> = [];
  for (const item of node.items) {
    const v = isScalar(item) ? item.value : undefined;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) values.push(v);
  }
  return values;
}

function readValidations(ctx: SchemaContext, node: Node | undefined, pointer: string): DocTags['validations'] {
  const raw = plain(node, ctx.doc);
  if (!Array.isArray(raw)) {
    ctx.diagnostics.push(ctx.source.diag('warning', 'KG114', '`x-kubernetes-validations` must be a list', node, pointerJoin(pointer, 'x-kubernetes-validations')));
    return undefined;
  }
  return raw
    .filter((r): r is { rule: string; message?: string } => typeof r === 'object' && r !== null && typeof r.rule === 'string')
    .map((r) => (typeof r.message === 'string' ? { rule: r.rule, message: r.message } : { rule: r.rule }));
}
