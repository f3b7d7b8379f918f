/**
 * What the API server does to a custom resource before it stores it, against the version's structural
 * schema (the schema data module, `<plural>.schemas.ts`), in its order (apiextensions-apiserver's
 * `customresource_handler.go`): unknown fields pruned (`structuralpruning.Prune`: not under
 * `x-kubernetes-preserve-unknown-fields`; an embedded resource keeps apiVersion, kind and metadata),
 * `null` dropped where the schema is not `nullable` and defaults filled in (`structuraldefaulting`), then
 * the value validated (kube-openapi's `validate`: type, `nullable`, `required`, `enum`, bounds,
 * lengths, item and property counts, `pattern`, the formats the server checks, int-or-string, integers
 * within int64), the metadata (`metadata-check.ts`), then, when nothing above refused a type, the CEL
 * validation rules (`cel-rules.ts`, given the stored object an update replaces for transition rules).
 * What it does not check: list-type uniqueness and admission webhooks; a test of those needs a server
 * (`startOperator`).
 */
import type { KubernetesObject } from '../api/kube-types.js';
import { clone, isPlainObject } from '../json.js';
import { hasRules, ruleErrors } from './cel-rules.js';
import { metadataErrors } from './metadata-check.js';
import { parseSchemaData, type JsonSchema, type SchemaData } from './schema-data.js';

/** One refusal, as the API server words a field error: `spec.replicas: Invalid value: -1: …`. */
export interface FieldError {
  /** The field's path, `spec.ports[0].port`. */
  path: string;
  message: string;
}

/** Formats kube-openapi checks on strings (the others, and unknown ones, pass as any string). */
const FORMATS: Record<string, RegExp> = {
  'date-time': /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  byte: /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
  uuid: /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/,
  ipv4: /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/,
};

const EMBEDDED_KEYS = ['apiVersion', 'kind', 'metadata'];

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/**
 * Prunes unknown fields, drops non-nullable nulls and fills defaults, in place of a copy; returns it.
 * `root`: the object's root, whose apiVersion, kind and metadata are the server's, never pruned.
 * `kept`: under an array with `x-kubernetes-preserve-unknown-fields`, whose items keep their unknown
 * fields (`structuralpruning`'s `skipPrune` goes through a list to its items' known properties).
 */
function pruneAndDefault(value: unknown, schema: JsonSchema, root: boolean, kept = false): unknown {
  const preserve = kept || schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (Array.isArray(value))
    return schema.items ? value.map((v) => pruneAndDefault(v, schema.items ?? {}, false, preserve)) : value;
  if (!isPlainObject(value)) return value;
  const properties = schema.properties ?? {};
  const keep = root || schema['x-kubernetes-embedded-resource'] === true ? EMBEDDED_KEYS : [];
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const sub =
      properties[key] ?? (isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
    if (child === null && sub && !sub.nullable) continue; // pruned before defaulting (structural defaulting)
    if (sub) out[key] = pruneAndDefault(child, sub, false);
    else if (preserve || schema.additionalProperties === true || keep.includes(key)) out[key] = child;
  }
  for (const [key, sub] of defaulted(schema)) {
    if (out[key] === undefined) out[key] = pruneAndDefault(clone(sub.default), sub, false);
  }
  return out;
}

const defaults = new WeakMap<JsonSchema, [string, JsonSchema][]>();

/** The properties of a node that have a default, listed once per schema object (most have none). */
function defaulted(schema: JsonSchema): [string, JsonSchema][] {
  let found = defaults.get(schema);
  if (!found) {
    found = Object.entries(schema.properties ?? {}).filter(([, sub]) => sub.default !== undefined);
    defaults.set(schema, found);
  }
  return found;
}

const patterns = new Map<string, RegExp>();

/** A `pattern`, compiled once per process. */
function pattern(source: string): RegExp {
  let re = patterns.get(source);
  if (!re) {
    re = new RegExp(source, 'u');
    patterns.set(source, re);
  }
  return re;
}

/**
 * An integer the server can hold: within int64. A larger whole number is decoded as a float64 by the
 * server's JSON decoder, so it is a `number`, not an `integer`.
 */
function isInt64(value: number): boolean {
  return Number.isInteger(value) && value >= -9223372036854775808 && value < 9223372036854775808;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return isInt64(value) ? 'integer' : 'number';
  return typeof value;
}

function fits(type: JsonSchema['type'], value: unknown): boolean {
  switch (type) {
    case undefined:
      return true;
    case 'integer':
      return typeof value === 'number' && isInt64(value);
    case 'number':
      return typeof value === 'number';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isPlainObject(value);
    default:
      return typeof value === type;
  }
}

/**
 * The type checks both walks (`check`, `shapeOf`) start with, worded as the API server words them:
 * false when nothing below the value is to be checked (null, int-or-string, a value of another type),
 * its error, if any, pushed.
 */
function walkOn(value: unknown, schema: JsonSchema, path: string, out: FieldError[]): boolean {
  if (value === null) {
    if (!schema.nullable)
      out.push({
        path,
        message: `Invalid value: "null": ${path} in body must be of type ${schema.type ?? 'object'}: "null"`,
      });
    return false;
  }
  if (schema['x-kubernetes-int-or-string']) {
    if (!(typeof value === 'string' || (typeof value === 'number' && isInt64(value))))
      out.push({
        path,
        message: `Invalid value: ${JSON.stringify(value)}: ${path} in body must be of type integer or string`,
      });
    return false;
  }
  if (!fits(schema.type, value)) {
    out.push({
      path,
      message: `Invalid value: "${typeName(value)}": ${path} in body must be of type ${schema.type}: "${typeName(value)}"`,
    });
    return false;
  }
  return true;
}

function check(value: unknown, schema: JsonSchema, path: string, out: FieldError[]): void {
  const invalid = (message: string) =>
    out.push({ path, message: `Invalid value: ${JSON.stringify(value)}: ${path} in body ${message}` });
  if (!walkOn(value, schema, path, out)) return;
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value)))
    out.push({
      path,
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`,
    });
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum))
      invalid(`should be greater than ${schema.exclusiveMinimum ? '' : 'or equal to '}${schema.minimum}`);
    if (schema.maximum !== undefined && (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum))
      invalid(`should be less than ${schema.exclusiveMaximum ? '' : 'or equal to '}${schema.maximum}`);
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength)
      invalid(`should be at least ${schema.minLength} chars long`);
    if (schema.maxLength !== undefined && length > schema.maxLength)
      invalid(`may not be longer than ${schema.maxLength}`);
    if (schema.pattern !== undefined && !pattern(schema.pattern).test(value))
      invalid(`should match '${schema.pattern}'`);
    const format = schema.format === undefined ? undefined : FORMATS[schema.format];
    if (format && !format.test(value)) invalid(`must be of type ${schema.format}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      invalid(`should have at least ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      invalid(`should have at most ${schema.maxItems} items`);
    if (schema.items) value.forEach((item, i) => check(item, schema.items ?? {}, `${path}[${i}]`, out));
  }
  if (isPlainObject(value) && schema['x-kubernetes-embedded-resource']) {
    // An embedded resource needs its apiVersion and kind (apiextensions' validateEmbeddedResource), not metadata.
    for (const key of ['apiVersion', 'kind'])
      if (typeof value[key] !== 'string' || value[key] === '')
        out.push({ path: join(path, key), message: 'Required value: must not be empty' });
  }
  if (isPlainObject(value)) {
    const count = Object.keys(value).length;
    if (schema.minProperties !== undefined && count < schema.minProperties)
      out.push({
        path,
        message: `Invalid value: ${count}: ${path} in body should have at least ${schema.minProperties} properties`,
      });
    if (schema.maxProperties !== undefined && count > schema.maxProperties)
      out.push({
        path,
        message: `Invalid value: ${count}: ${path} in body should have at most ${schema.maxProperties} properties`,
      });
    for (const key of schema.required ?? [])
      if (value[key] === undefined) out.push({ path: join(path, key), message: `Required value` });
    for (const [key, child] of Object.entries(value)) {
      const sub =
        schema.properties?.[key] ??
        (isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
      if (sub) check(child, sub, join(path, key), out);
    }
  }
}

/** The version's schema out of the schema data, or a thrown Error naming the versions it has. */
export function versionSchema(data: SchemaData | string, version: string): { data: SchemaData; schema: JsonSchema } {
  const parsed = parseSchemaData(data);
  const schema = parsed.versions[version];
  if (!schema) throw new Error(`${parsed.crd} has no version ${version} (${Object.keys(parsed.versions).join(', ')})`);
  return { data: parsed, schema };
}

/** What an admission is told beside the object. */
export interface AdmitOptions {
  /** On an update, the object as stored before it: transition rules (`oldSelf`) are evaluated against it. */
  old?: unknown;
}

/** A type error blocks the rules (apiextensions' `hasBlockingErr`): they would see values of the wrong type. */
function blocking(errors: FieldError[]): boolean {
  return errors.some((e) => / must be of type /.test(e.message) || e.message.startsWith('Unsupported value'));
}

/**
 * `object` as the API server would store it (pruned, nulls dropped, defaults filled in) and the field
 * errors it would refuse it with (none: it is accepted). `version`: default the storage version.
 * Throws a `CelRuleError` when a validation rule of the schema cannot be compiled.
 */
export function admitObject(
  data: SchemaData | string,
  object: unknown,
  version?: string,
  options: AdmitOptions = {},
): { object: KubernetesObject; errors: FieldError[] } {
  const parsed = parseSchemaData(data);
  const { schema } = versionSchema(parsed, version ?? parsed.storage);
  const errors: FieldError[] = [];
  if (!isPlainObject(object)) return { object: {}, errors: [{ path: '', message: 'must be an object' }] };
  const apiVersion = `${parsed.group}/${version ?? parsed.storage}`;
  if (object.apiVersion !== apiVersion) errors.push({ path: 'apiVersion', message: `must be ${apiVersion}` });
  if (object.kind !== parsed.kind) errors.push({ path: 'kind', message: `must be ${parsed.kind}` });
  errors.push(...metadataErrors(object.metadata));
  const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = schema.properties ?? {};
  // apiVersion, kind and metadata are the server's own (always there): the root's `required` of them holds.
  const required = (schema.required ?? []).filter((key) => !['apiVersion', 'kind', 'metadata'].includes(key));
  const body = { ...schema, properties: rest, required };
  const admitted = pruneAndDefault(object, body, true);
  const stored = isPlainObject(admitted) ? admitted : {};
  const { apiVersion: _av, kind: _kd, metadata: _md, ...fields } = stored;
  check(fields, { ...body, type: 'object' }, '', errors);
  // The one call into the rules: the seam an admission outside the kit (webhooks) shares.
  if (!hasRules(schema)) return { object: stored, errors };
  if (blocking(errors))
    errors.push({
      path: '<nil>',
      message:
        'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    });
  else errors.push(...ruleErrors(schema, stored, isPlainObject(options.old) ? options.old : undefined));
  return { object: stored, errors };
}

function shapeOf(value: unknown, schema: JsonSchema, path: string, out: FieldError[]): void {
  if (!walkOn(value, schema, path, out)) return;
  if (Array.isArray(value) && schema.items)
    value.forEach((item, i) => shapeOf(item, schema.items ?? {}, `${path}[${i}]`, out));
  if (isPlainObject(value)) {
    for (const key of schema.required ?? [])
      if (!Object.hasOwn(value, key) || value[key] === undefined)
        out.push({ path: join(path, key), message: 'Required value' });
    for (const [key, child] of Object.entries(value)) {
      const sub = Object.hasOwn(schema.properties ?? {}, key)
        ? schema.properties?.[key]
        : isPlainObject(schema.additionalProperties)
          ? schema.additionalProperties
          : undefined;
      if (sub) shapeOf(child, sub, join(path, key), out);
    }
  }
}

/**
 * What a typed callback's type promises of an object the API server has not validated yet (mutating
 * admission and conversion run before its validation, apiextensions-apiserver's order): every
 * `required` field present and every value of its schema's type (null where `nullable`), worded as
 * `check` words them. Bounds, enums, patterns and formats are not promised by the types (a mutation
 * may even be what fixes them) and stay the API server's validation after the callbacks. The root's
 * apiVersion, kind and metadata are the server's own.
 */
export function shapeErrors(object: unknown, schema: JsonSchema): FieldError[] {
  if (!isPlainObject(object)) return [{ path: '', message: 'must be an object' }];
  const { apiVersion: _a, kind: _k, metadata: _m, ...fields } = object;
  const { apiVersion: _pa, kind: _pk, metadata: _pm, ...properties } = schema.properties ?? {};
  const required = (schema.required ?? []).filter((key) => !['apiVersion', 'kind', 'metadata'].includes(key));
  const out: FieldError[] = [];
  shapeOf(fields, { ...schema, type: 'object', properties, required }, '', out);
  return out;
}
