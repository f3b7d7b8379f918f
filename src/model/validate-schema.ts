/**
 * The structural-schema rules of the API server that `build-schema.ts` does not already check
 * (it reports KG110 array without items, KG111 missing type, KG114 unknown type or non-mapping
 * schema). Mirrors apiextensions `ValidateCustomResourceDefinitionOpenAPISchema` and
 * `structuralschema.ValidateStructural`: unsupported JSON-Schema keywords, `properties` beside
 * `additionalProperties`, the x-kubernetes extensions' preconditions, the root and its
 * `metadata`, and value validation inside `allOf`/`anyOf`/`oneOf`/`not` (no types, defaults,
 * descriptions or extensions there, and no property or `items` that is not also specified
 * outside the junctor), and the kind of every keyword's value (KG114: what the server's decoder of
 * JSONSchemaProps takes). Reads the document tree; recursion is bounded by the loader's depth limit.
 */
import { pointerAppend, pointerJoin, type Diagnostic, type Severity } from '../diagnostics.js';
import type { DocMap, DocNode, DocSource } from '../load/doc-tree.js';
import { asMap, asSeq, diag, get, str } from './doc-read.js';

interface Walk {
  source: DocSource;
  severity: Severity;
  out: Diagnostic[];
}

/** JSON-Schema keywords the API server refuses ("… is not supported"). */
const UNSUPPORTED = ['$ref', 'id', 'definitions', 'dependencies', 'patternProperties', 'additionalItems'];
const JUNCTORS = ['allOf', 'anyOf', 'oneOf', 'not'];
/** What value validation inside a junctor must not set to stay structural. */
const FORBIDDEN_IN_JUNCTOR = [
  'type',
  'default',
  'title',
  'description',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
];

/** `severity`: error for v1 (the server rejects the CRD), warning for v1beta1 (it only flags it non-structural). */
export function validateSchema(
  source: DocSource,
  root: DocNode | undefined,
  pointer: string,
  severity: Severity,
): Diagnostic[] {
  const w: Walk = { source, severity, out: [] };
  const map = asMap(root);
  if (!map) return w.out; // KG114
  checkRoot(w, map, pointer);
  walk(w, map, pointer);
  return w.out;
}

/**
 * KG132 (unsupported keywords) and KG133 (properties beside additionalProperties) are OpenAPI
 * rules the server applies to every CRD, v1beta1 too; the others are structural rules, which
 * v1beta1 only reports as a non-structural condition.
 */
function report(w: Walk, code: string, message: string, node: DocNode | undefined, pointer: string): void {
  const severity = code === 'KG132' || code === 'KG133' ? 'error' : w.severity;
  w.out.push(diag(w.source, severity, code, message, node, pointer));
}

function checkRoot(w: Walk, root: DocMap, pointer: string): void {
  const type = str(get(root, 'type'));
  if (type !== undefined && type !== 'object')
    report(
      w,
      'KG135',
      `the root schema must be \`type: object\`, not \`${type}\``,
      get(root, 'type'),
      pointerAppend(pointer, 'type'),
    );
  for (const key of ['nullable', 'x-kubernetes-int-or-string', 'x-kubernetes-embedded-resource']) {
    const node = get(root, key);
    if (node?.kind === 'scalar' && node.value === true)
      report(
        w,
        'KG135',
        `\`${key}: true\` is not allowed at the root of the schema`,
        node,
        pointerAppend(pointer, key),
      );
  }
  const metadata = asMap(get(asMap(get(root, 'properties')), 'metadata'));
  if (!metadata) return;
  const at = pointerJoin(pointer, 'properties', 'metadata');
  const mtype = str(get(metadata, 'type'));
  if (mtype !== undefined && mtype !== 'object')
    report(
      w,
      'KG135',
      `metadata must be \`type: object\`, not \`${mtype}\``,
      get(metadata, 'type'),
      pointerAppend(at, 'type'),
    );
  for (const [name, entry] of asMap(get(metadata, 'properties'))?.entries ?? []) {
    if (name === 'name' || name === 'generateName') continue;
    report(
      w,
      'KG135',
      `metadata may only restrict \`name\` and \`generateName\`; \`${name}\` is defined by the API server (remove it)`,
      entry.value,
      pointerJoin(at, 'properties', name),
    );
  }
}

function walk(w: Walk, map: DocMap, pointer: string): void {
  checkKinds(w, map, pointer, true);
  for (const key of UNSUPPORTED) {
    if (map.entries.has(key))
      report(w, 'KG132', `\`${key}\` is not supported in a CRD schema`, get(map, key), pointerAppend(pointer, key));
  }
  const unique = get(map, 'uniqueItems');
  if (unique?.kind === 'scalar' && unique.value === true) {
    report(
      w,
      'KG132',
      '`uniqueItems: true` is not allowed (its cost is quadratic); use `x-kubernetes-list-type: set`',
      unique,
      pointerAppend(pointer, 'uniqueItems'),
    );
  }
  const properties = asMap(get(map, 'properties'));
  const additional = get(map, 'additionalProperties');
  const allowsAny = additional?.kind === 'scalar' && additional.value === true;
  if (additional !== undefined && !allowsAny && properties && properties.entries.size > 0) {
    report(
      w,
      'KG133',
      '`properties` and `additionalProperties` are mutually exclusive (a struct or a map, not both)',
      additional,
      pointerAppend(pointer, 'additionalProperties'),
    );
  }
  checkExtensions(w, map, pointer);
  for (const key of JUNCTORS) checkJunctor(w, map, key, pointer);
  for (const [name, entry] of properties?.entries ?? []) {
    const child = asMap(entry.value);
    if (child) walk(w, child, pointerJoin(pointer, 'properties', name));
  }
  const items = asMap(get(map, 'items'));
  if (items) walk(w, items, pointerAppend(pointer, 'items'));
  const ap = asMap(additional);
  if (ap) walk(w, ap, pointerAppend(pointer, 'additionalProperties'));
}

function checkExtensions(w: Walk, map: DocMap, pointer: string): void {
  const flag = (key: string): DocNode | undefined => get(map, key);
  const isTrue = (key: string): boolean => {
    const node = flag(key);
    return node?.kind === 'scalar' && node.value === true;
  };
  const preserve = flag('x-kubernetes-preserve-unknown-fields');
  if (preserve?.kind === 'scalar' && preserve.value === false) {
    report(
      w,
      'KG134',
      '`x-kubernetes-preserve-unknown-fields` must be true or absent',
      preserve,
      pointerAppend(pointer, 'x-kubernetes-preserve-unknown-fields'),
    );
  }
  const type = str(get(map, 'type'));
  if (isTrue('x-kubernetes-int-or-string') && type !== undefined) {
    report(
      w,
      'KG134',
      '`type` must be empty when `x-kubernetes-int-or-string` is true',
      get(map, 'type'),
      pointerAppend(pointer, 'type'),
    );
  }
  if (isTrue('x-kubernetes-embedded-resource')) {
    const at = pointerAppend(pointer, 'x-kubernetes-embedded-resource');
    if (type !== 'object')
      report(
        w,
        'KG134',
        '`x-kubernetes-embedded-resource` needs `type: object`',
        flag('x-kubernetes-embedded-resource'),
        at,
      );
    const props = asMap(get(map, 'properties'));
    if (!isTrue('x-kubernetes-preserve-unknown-fields') && (!props || props.entries.size === 0)) {
      report(
        w,
        'KG134',
        '`x-kubernetes-embedded-resource` needs `properties` or `x-kubernetes-preserve-unknown-fields: true`',
        flag('x-kubernetes-embedded-resource'),
        at,
      );
    }
  }
  const listTypeNode = flag('x-kubernetes-list-type');
  const listType = str(listTypeNode);
  const keysNode = flag('x-kubernetes-list-map-keys');
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType)) {
    report(
      w,
      'KG134',
      `\`x-kubernetes-list-type\` \`${listType}\` is not one of atomic, set, map`,
      listTypeNode,
      pointerAppend(pointer, 'x-kubernetes-list-type'),
    );
  }
  if (listType !== undefined && type !== undefined && type !== 'array') {
    report(
      w,
      'KG134',
      '`x-kubernetes-list-type` applies only to `type: array`',
      listTypeNode,
      pointerAppend(pointer, 'x-kubernetes-list-type'),
    );
  }
  const keys = asSeq(keysNode);
  if (keysNode !== undefined && listType !== 'map') {
    report(
      w,
      'KG134',
      '`x-kubernetes-list-map-keys` needs `x-kubernetes-list-type: map`',
      keysNode,
      pointerAppend(pointer, 'x-kubernetes-list-map-keys'),
    );
  }
  if (listType === 'map') {
    // Keys that are not a list at all are KG114 (their kind), not missing.
    if (keysNode === undefined || (keys && keys.items.length === 0)) {
      report(
        w,
        'KG134',
        '`x-kubernetes-list-type: map` needs a non-empty `x-kubernetes-list-map-keys`',
        listTypeNode,
        pointerAppend(pointer, 'x-kubernetes-list-type'),
      );
    }
    const items = asMap(get(map, 'items'));
    const itemProps = asMap(get(items, 'properties'));
    if (items && str(get(items, 'type')) !== 'object') {
      report(
        w,
        'KG134',
        '`x-kubernetes-list-type: map` needs `items` of `type: object`',
        listTypeNode,
        pointerAppend(pointer, 'x-kubernetes-list-type'),
      );
    }
    keys?.items.forEach((k, i) => {
      const key = str(k);
      if (key !== undefined && items && !itemProps?.entries.has(key)) {
        report(
          w,
          'KG134',
          `list map key \`${key}\` is not a property of the items`,
          k,
          pointerJoin(pointer, 'x-kubernetes-list-map-keys', i),
        );
      }
    });
  }
  const mapType = str(flag('x-kubernetes-map-type'));
  if (mapType !== undefined && mapType !== 'granular' && mapType !== 'atomic') {
    report(
      w,
      'KG134',
      `\`x-kubernetes-map-type\` \`${mapType}\` is not one of granular, atomic`,
      flag('x-kubernetes-map-type'),
      pointerAppend(pointer, 'x-kubernetes-map-type'),
    );
  }
}

/**
 * `allOf`/`anyOf`/`oneOf`/`not` carry value validation only. The one exception is the
 * int-or-string idiom, `anyOf: [{type: integer}, {type: string}]` (also inside `allOf`) beside
 * `x-kubernetes-int-or-string: true`.
 */
function checkJunctor(w: Walk, outer: DocMap, key: string, pointer: string): void {
  const node = get(outer, key);
  if (node === undefined) return;
  const at = pointerAppend(pointer, key);
  const intOrString = (() => {
    const f = get(outer, 'x-kubernetes-int-or-string');
    return f?.kind === 'scalar' && f.value === true;
  })();
  const branches: [DocNode | undefined, string][] =
    key === 'not' ? [[node, at]] : (asSeq(node)?.items ?? []).map((b, i) => [b, pointerJoin(at, i)]);
  for (const [branch, bp] of branches) {
    const map = asMap(branch);
    if (map) nested(w, map, bp, outer, intOrString && (key === 'anyOf' || key === 'allOf'));
  }
}

/** One value-validation schema inside a junctor, against the structural schema `outer` it applies to. */
function nested(w: Walk, map: DocMap, pointer: string, outer: DocMap | undefined, intOrString: boolean): void {
  checkKinds(w, map, pointer, false);
  for (const key of FORBIDDEN_IN_JUNCTOR) {
    if (!map.entries.has(key)) continue;
    const t = str(get(map, 'type'));
    if (key === 'type' && intOrString && (t === 'integer' || t === 'string')) continue;
    report(
      w,
      'KG136',
      `\`${key}\` must not be set inside allOf/anyOf/oneOf/not (a structural schema keeps them outside)`,
      get(map, key),
      pointerAppend(pointer, key),
    );
  }
  for (const key of UNSUPPORTED) {
    if (map.entries.has(key))
      report(w, 'KG132', `\`${key}\` is not supported in a CRD schema`, get(map, key), pointerAppend(pointer, key));
  }
  const outerProps = asMap(get(outer, 'properties'));
  for (const [name, entry] of asMap(get(map, 'properties'))?.entries ?? []) {
    const at = pointerJoin(pointer, 'properties', name);
    const outside = asMap(get(outerProps, name));
    if (!outside && !asMap(get(outer, 'additionalProperties')) && !preserves(outer)) {
      report(
        w,
        'KG136',
        `property \`${name}\` inside allOf/anyOf/oneOf/not must also be specified outside it`,
        entry.value,
        at,
      );
    }
    const child = asMap(entry.value);
    if (child) nested(w, child, at, outside ?? asMap(get(outer, 'additionalProperties')), false);
  }
  const items = asMap(get(map, 'items'));
  if (items) {
    const outside = asMap(get(outer, 'items'));
    if (!outside)
      report(
        w,
        'KG136',
        '`items` inside allOf/anyOf/oneOf/not must also be specified outside it',
        items,
        pointerAppend(pointer, 'items'),
      );
    nested(w, items, pointerAppend(pointer, 'items'), outside, false);
  }
  for (const key of JUNCTORS) {
    const node = get(map, key);
    if (node === undefined) continue;
    const at = pointerAppend(pointer, key);
    const branches: [DocNode | undefined, string][] =
      key === 'not' ? [[node, at]] : (asSeq(node)?.items ?? []).map((b, i) => [b, pointerJoin(at, i)]);
    for (const [branch, bp] of branches) {
      const m = asMap(branch);
      if (m) nested(w, m, bp, outer, intOrString && key === 'anyOf');
    }
  }
}

function preserves(map: DocMap | undefined): boolean {
  const f = get(map, 'x-kubernetes-preserve-unknown-fields');
  return f?.kind === 'scalar' && f.value === true;
}

/**
 * What each keyword's value must be: the Go type it decodes into (apiextensions/v1
 * `JSONSchemaProps`). The server's decoder refuses any other (a v1.20 kube-apiserver refused
 * `properties: [a, b]`, `required: a`, `description: 123`, `nullable: "yes"`, `minimum: "5"`,
 * `maxLength: 1.5`, …, in v1 and v1beta1 alike), so each is an error whatever the version.
 */
type Kind =
  | 'string'
  | 'boolean'
  | 'number'
  | 'integer'
  | 'strings'
  | 'list'
  | 'schema'
  | 'schemas'
  | 'schemaMap'
  | 'schemaOrBool'
  | 'externalDocs'
  | 'validations';

const KINDS: Record<string, Kind> = {
  type: 'string',
  description: 'string',
  format: 'string',
  title: 'string',
  pattern: 'string',
  $schema: 'string',
  'x-kubernetes-list-type': 'string',
  'x-kubernetes-map-type': 'string',
  nullable: 'boolean',
  exclusiveMinimum: 'boolean',
  exclusiveMaximum: 'boolean',
  uniqueItems: 'boolean',
  'x-kubernetes-preserve-unknown-fields': 'boolean',
  'x-kubernetes-embedded-resource': 'boolean',
  'x-kubernetes-int-or-string': 'boolean',
  minimum: 'number',
  maximum: 'number',
  multipleOf: 'number',
  maxLength: 'integer',
  minLength: 'integer',
  maxItems: 'integer',
  minItems: 'integer',
  maxProperties: 'integer',
  minProperties: 'integer',
  required: 'strings',
  'x-kubernetes-list-map-keys': 'strings',
  enum: 'list',
  items: 'schema',
  not: 'schema',
  properties: 'schemaMap',
  additionalProperties: 'schemaOrBool',
  allOf: 'schemas',
  anyOf: 'schemas',
  oneOf: 'schemas',
  externalDocs: 'externalDocs',
  'x-kubernetes-validations': 'validations',
};

const KIND_WORDS: Record<Kind, string> = {
  string: 'a string',
  boolean: 'a boolean (true or false)',
  number: 'a number',
  integer: 'an integer',
  strings: 'a list of strings',
  list: 'a list',
  schema: 'a schema (a mapping)',
  schemas: 'a list of schemas',
  schemaMap: 'a mapping of property names to schemas',
  schemaOrBool: 'a schema (a mapping) or a boolean',
  externalDocs: 'a mapping with `description` and `url`',
  validations: 'a list of rules (`- rule: …`)',
};

/** Words YAML 1.1 (kubectl's reader) takes for booleans where YAML 1.2 (kopfgen's) reads strings. */
const YAML11_BOOLEANS = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$/;

/**
 * KG114 for every keyword of `map` whose value is not of its kind, and (a warning) for enum values
 * of another type than the schema's. `built`: `build-schema.ts` reads this map, and itself reports
 * an `items` or a property value that is not a mapping, so those are not reported twice.
 */
function checkKinds(w: Walk, map: DocMap, pointer: string, built: boolean): void {
  for (const [key, entry] of map.entries) {
    const kind = KINDS[key];
    const value = entry.value;
    if (kind === undefined || value === undefined) continue;
    const at = pointerAppend(pointer, key);
    const wrong = (node: DocNode, where: string, want = KIND_WORDS[kind]): void =>
      kindError(w, node, where, `\`${key}\` must be ${want}`);
    switch (kind) {
      case 'strings':
        if (value.kind !== 'seq') wrong(value, at);
        else
          value.items.forEach(
            (item, i) => item && !isKind(item, 'string') && wrong(item, pointerJoin(at, i), 'a list of strings'),
          );
        break;
      case 'list':
        if (value.kind !== 'seq') wrong(value, at);
        else checkEnum(w, map, value.items, at);
        break;
      case 'schema':
        if (value.kind !== 'map' && !(built && key === 'items')) wrong(value, at);
        break;
      case 'schemas':
        if (value.kind !== 'seq') wrong(value, at);
        else
          value.items.forEach(
            (item, i) => item && item.kind !== 'map' && wrong(item, pointerJoin(at, i), 'a list of schemas (mappings)'),
          );
        break;
      case 'schemaMap':
        if (value.kind !== 'map') wrong(value, at);
        else if (!built)
          for (const [name, e] of value.entries)
            if (e.value && e.value.kind !== 'map')
              kindError(w, e.value, pointerJoin(at, name), `property \`${name}\` must be a schema (a mapping)`);
        break;
      case 'schemaOrBool':
        if (value.kind !== 'map' && !isKind(value, 'boolean')) wrong(value, at);
        break;
      case 'externalDocs':
        if (value.kind !== 'map') wrong(value, at);
        else
          for (const field of ['description', 'url']) {
            const v = value.get(field);
            if (v && !isKind(v, 'string'))
              kindError(w, v, pointerJoin(at, field), `\`${key}.${field}\` must be a string`);
          }
        break;
      case 'validations':
        if (value.kind !== 'seq') wrong(value, at);
        else value.items.forEach((rule, i) => rule && checkRule(w, rule, pointerJoin(at, i)));
        break;
      default:
        if (!isKind(value, kind)) wrong(value, at);
    }
  }
}

function isKind(node: DocNode, kind: 'string' | 'boolean' | 'number' | 'integer'): boolean {
  if (node.kind !== 'scalar') return false;
  const v = node.value;
  switch (kind) {
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'number':
      return typeof v === 'number' || typeof v === 'bigint';
    case 'integer':
      return typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v));
  }
}

/** One rule of `x-kubernetes-validations` (apiextensions/v1 `ValidationRule`): `rule` required, the rest strings. */
function checkRule(w: Walk, rule: DocNode, pointer: string): void {
  if (rule.kind !== 'map')
    return kindError(w, rule, pointer, 'a validation rule must be a mapping (`rule: …`, `message: …`)');
  const expr = rule.get('rule');
  if (expr === undefined || !isKind(expr, 'string'))
    kindError(
      w,
      expr ?? rule,
      expr ? pointerAppend(pointer, 'rule') : pointer,
      'a validation rule needs `rule`, a CEL expression (a string)',
    );
  for (const field of ['message', 'messageExpression', 'reason', 'fieldPath']) {
    const v = rule.get(field);
    if (v && !isKind(v, 'string'))
      kindError(w, v, pointerAppend(pointer, field), `\`${field}\` of a validation rule must be a string`);
  }
  const old = rule.get('optionalOldSelf');
  if (old && !isKind(old, 'boolean'))
    kindError(
      w,
      old,
      pointerAppend(pointer, 'optionalOldSelf'),
      '`optionalOldSelf` of a validation rule must be a boolean',
    );
}

function kindError(w: Walk, node: DocNode, pointer: string, message: string): void {
  const got = described(node);
  const yaml11 =
    node.kind === 'scalar' && !node.quoted && typeof node.value === 'string' && YAML11_BOOLEANS.test(node.value)
      ? ` (YAML 1.1 readers such as kubectl take an unquoted \`${node.value}\` for a boolean, YAML 1.2 for a string: write true or false)`
      : '';
  w.out.push(
    diag(w.source, 'error', 'KG114', `${message}, not ${got}${yaml11}; the API server refuses the CRD`, node, pointer),
  );
}

function described(node: DocNode): string {
  if (node.kind === 'map') return 'a mapping';
  if (node.kind === 'seq') return 'a list';
  const v = node.value;
  if (v === null) return 'null';
  if (typeof v === 'string') return `the string ${JSON.stringify(v)}`;
  if (typeof v === 'boolean') return `the boolean ${v}`;
  return `the number ${String(v)}`;
}

/**
 * Whether an enum value can be a value of a schema of `type`: the API server checks a value's type
 * before its enum, so a value of another type (`"x"` for an integer) admits no object; `null` is
 * left to `nullable`; without a type (int-or-string, preserve-unknown-fields) anything may fit.
 */
export function enumValueFits(type: string | undefined, value: unknown): boolean {
  switch (type) {
    case 'string':
      return value === null || typeof value === 'string';
    case 'boolean':
      return value === null || typeof value === 'boolean';
    case 'number':
      return value === null || typeof value === 'number' || typeof value === 'bigint';
    case 'integer':
      return value === null || typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value));
    default:
      return true;
  }
}

/** A warning at each enum value the schema's type can never hold; the type leaves it out. */
function checkEnum(w: Walk, map: DocMap, items: readonly (DocNode | undefined)[], pointer: string): void {
  const typeNode = get(map, 'type');
  const type = typeNode?.kind === 'scalar' && typeof typeNode.value === 'string' ? typeNode.value : undefined;
  items.forEach((item, i) => {
    if (item === undefined) return;
    const value = item.kind === 'scalar' ? item.value : item.kind;
    if (enumValueFits(type, value)) return;
    w.out.push(
      diag(
        w.source,
        'warning',
        'KG114',
        `enum value ${item.kind === 'scalar' ? JSON.stringify(typeof value === 'bigint' ? String(value) : value) : `(${described(item)})`} is not ${type === 'integer' ? 'an integer' : `a ${type ?? 'value'}`}: the API server accepts the CRD, but refuses every object that sets it, so the type leaves it out`,
        item,
        pointerJoin(pointer, i),
      ),
    );
  });
}
