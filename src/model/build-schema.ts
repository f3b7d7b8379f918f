/**
 * OpenAPI v3 schema (as document-tree nodes) → schema IR. Walks the nodes directly, one pass over
 * each map's keys, so no intermediate JS object tree is built. Structural-schema violations
 * (an array without `items`, a property without `type`) are reported, with position and pointer.
 */
import { pointerAppend, type Diagnostic } from '../diagnostics.js';
import type { DocMap, DocNode, DocSource } from '../load/doc-tree.js';
import { diag, isTrue, num, plain, str } from './doc-read.js';
import { enumValueFits } from './validate-schema.js';
import type { ArrayNode, DocTags, ObjectNode, PropertyNode, ScalarNode, SchemaNode } from './ir.js';

export interface SchemaContext {
  source: DocSource;
  diagnostics: Diagnostic[];
  /** Severity of structural-schema violations: errors for v1 (the API server rejects them), warnings for v1beta1. */
  structural: 'error' | 'warning';
}

/** Raw keywords of one schema map, gathered in a single pass over its pairs. */
interface Keywords {
  type?: string;
  description?: string;
  nullable: boolean;
  properties?: DocMap;
  required?: DocNode;
  items?: DocNode;
  additionalProperties?: DocNode;
  enum?: DocNode;
  preserve: boolean;
  intOrString: boolean;
  embedded: boolean;
  listType?: string;
  listMapKeys?: DocNode;
  doc: DocTags;
}

/** Most schema nodes carry no documentation tags: they share this one (never mutated). */
const NO_DOC: DocTags = Object.freeze({});

export function buildSchema(ctx: SchemaContext, node: DocNode | undefined, pointer: string): SchemaNode {
  const map = node;
  const pos = map ? map.pos : ctx.source.pos(0);
  if (map?.kind !== 'map') {
    ctx.diagnostics.push(diag(ctx.source, 'error', 'KG114', 'a schema must be a mapping', map, pointer));
    return { type: 'unknown', pointer, pos, nullable: false, doc: NO_DOC };
  }
  const kw = readKeywords(map);
  const { description, nullable, doc } = kw;
  if (kw.intOrString) return { type: 'int-or-string', pointer, pos, description, nullable, doc };
  switch (kw.type) {
    case 'object':
      return buildObject(ctx, kw, pointer, pos);
    case 'array': {
      if (kw.items === undefined) {
        ctx.diagnostics.push(
          diag(ctx.source, ctx.structural, 'KG110', 'non-structural schema: array without `items`', map, pointer),
        );
      }
      const items = kw.items === undefined ? undefined : buildSchema(ctx, kw.items, pointerAppend(pointer, 'items'));
      const listType =
        kw.listType === 'atomic' || kw.listType === 'set' || kw.listType === 'map' ? kw.listType : undefined;
      const keys =
        kw.listMapKeys?.kind === 'seq'
          ? kw.listMapKeys.items.map((k) => str(k)).filter((k): k is string => !!k)
          : undefined;
      const array: ArrayNode = {
        type: 'array',
        pointer,
        pos,
        description,
        nullable,
        doc,
        items,
        listType,
        listMapKeys: keys,
      };
      if (kw.preserve) array.preserveUnknownFields = true;
      return array;
    }
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean': {
      const scalar: ScalarNode = { type: kw.type, pointer, pos, description, nullable, doc };
      if (kw.enum) Object.assign(scalar, readEnum(kw.type, kw.enum));
      return scalar;
    }
    case undefined:
      if (kw.preserve)
        return kw.properties
          ? buildObject(ctx, kw, pointer, pos)
          : { type: 'unknown', pointer, pos, description, nullable, doc };
      if (kw.properties || kw.additionalProperties) {
        ctx.diagnostics.push(
          diag(
            ctx.source,
            ctx.structural,
            'KG111',
            'non-structural schema: an object schema needs `type: object`',
            map,
            pointer,
          ),
        );
        return buildObject(ctx, kw, pointer, pos);
      }
      ctx.diagnostics.push(
        diag(
          ctx.source,
          ctx.structural,
          'KG111',
          'non-structural schema: no `type` (and neither x-kubernetes-int-or-string nor x-kubernetes-preserve-unknown-fields)',
          map,
          pointer,
        ),
      );
      return { type: 'unknown', pointer, pos, description, nullable, doc };
    default:
      ctx.diagnostics.push(diag(ctx.source, 'error', 'KG114', `unknown schema type \`${kw.type}\``, map, pointer));
      return { type: 'unknown', pointer, pos, description, nullable, doc };
  }
}

function buildObject(ctx: SchemaContext, kw: Keywords, pointer: string, pos: ObjectNode['pos']): ObjectNode {
  const required = new Set<string>();
  if (kw.required?.kind === 'seq')
    for (const r of kw.required.items) if (r?.kind === 'scalar') required.add(String(r.value));
  const properties: PropertyNode[] = [];
  if (kw.properties) {
    const propsPointer = pointerAppend(pointer, 'properties');
    for (const [name, entry] of kw.properties.entries) {
      const schema = buildSchema(ctx, entry.value, pointerAppend(propsPointer, name));
      properties.push({ name, required: required.has(name), schema });
    }
    properties.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  const node: ObjectNode = {
    type: 'object',
    pointer,
    pos,
    description: kw.description,
    nullable: kw.nullable,
    doc: kw.doc,
    properties,
    preserveUnknownFields: kw.preserve,
    embeddedResource: kw.embedded,
  };
  const ap = kw.additionalProperties;
  if (ap?.kind === 'scalar') {
    if (ap.value === true) node.additionalProperties = 'any';
  } else if (ap) {
    node.additionalProperties = buildSchema(ctx, ap, pointerAppend(pointer, 'additionalProperties'));
  }
  return node;
}

function readKeywords(map: DocMap): Keywords {
  const kw: Keywords = { nullable: false, preserve: false, intOrString: false, embedded: false, doc: NO_DOC };
  let tags: DocTags | undefined; // allocated on the first documentation keyword
  for (const [key, entry] of map.entries) {
    const value = entry.value;
    switch (key) {
      case 'type':
        kw.type = str(value);
        break;
      case 'description':
        kw.description = str(value);
        break;
      case 'nullable':
        kw.nullable = isTrue(value);
        break;
      case 'properties':
        if (value?.kind === 'map') kw.properties = value;
        break;
      case 'required':
        kw.required = value;
        break;
      case 'items':
        kw.items = value;
        break;
      case 'additionalProperties':
        kw.additionalProperties = value;
        break;
      case 'enum':
        kw.enum = value;
        break;
      case 'x-kubernetes-preserve-unknown-fields':
        kw.preserve = isTrue(value);
        break;
      case 'x-kubernetes-int-or-string':
        kw.intOrString = isTrue(value);
        break;
      case 'x-kubernetes-embedded-resource':
        kw.embedded = isTrue(value);
        break;
      case 'x-kubernetes-list-type':
        kw.listType = str(value);
        break;
      case 'x-kubernetes-list-map-keys':
        kw.listMapKeys = value;
        break;
      case 'format':
        (tags ??= {}).format = str(value);
        break;
      case 'default':
        (tags ??= {}).default = plain(value);
        break;
      case 'example':
        (tags ??= {}).example = plain(value);
        break;
      case 'minimum':
        (tags ??= {}).minimum = num(value);
        break;
      case 'maximum':
        (tags ??= {}).maximum = num(value);
        break;
      case 'exclusiveMinimum':
        (tags ??= {}).exclusiveMinimum = isTrue(value);
        break;
      case 'exclusiveMaximum':
        (tags ??= {}).exclusiveMaximum = isTrue(value);
        break;
      case 'minLength':
        (tags ??= {}).minLength = num(value);
        break;
      case 'maxLength':
        (tags ??= {}).maxLength = num(value);
        break;
      case 'minItems':
        (tags ??= {}).minItems = num(value);
        break;
      case 'maxItems':
        (tags ??= {}).maxItems = num(value);
        break;
      case 'pattern':
        (tags ??= {}).pattern = str(value);
        break;
      case 'minProperties':
        (tags ??= {}).minProperties = num(value);
        break;
      case 'maxProperties':
        (tags ??= {}).maxProperties = num(value);
        break;
      case 'x-kubernetes-validations':
        (tags ??= {}).validations = readValidations(value);
        break;
      default:
        break;
    }
  }
  if (tags) kw.doc = tags;
  return kw;
}

/**
 * The enum's values the type can hold (the others admit no object: `validate-schema.ts` warns of
 * each); `noValue` when there were values and none fits. A value that is not a list is
 * `validate-schema.ts`'s error.
 */
function readEnum(type: ScalarNode['type'], node: DocNode): Pick<ScalarNode, 'enum' | 'noValue'> {
  if (node.kind !== 'seq') return {};
  const values: NonNullable<ScalarNode['enum']> = [];
  for (const item of node.items) {
    const v = item?.kind === 'scalar' ? item.value : undefined;
    if (
      (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) &&
      enumValueFits(type, v)
    )
      values.push(v);
  }
  return values.length === 0 && node.items.length > 0 ? { enum: values, noValue: true } : { enum: values };
}

/**
 * The rules, for JSDoc and the schema data (every field the API server reads of one); one that is not
 * a list, or a rule without `rule`, is `validate-schema.ts`'s error.
 */
function readValidations(node: DocNode | undefined): DocTags['validations'] {
  const raw = plain(node);
  if (!Array.isArray(raw)) return undefined;
  const out: NonNullable<DocTags['validations']> = [];
  for (const r of raw) {
    if (typeof r !== 'object' || r === null || typeof r.rule !== 'string') continue;
    const rule: NonNullable<DocTags['validations']>[number] = { rule: r.rule };
    for (const key of ['message', 'messageExpression', 'reason', 'fieldPath'] as const)
      if (typeof r[key] === 'string') rule[key] = r[key];
    if (r.optionalOldSelf === true) rule.optionalOldSelf = true;
    out.push(rule);
  }
  return out;
}
