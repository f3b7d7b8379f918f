/**
 * CRD validation rules (`x-kubernetes-validations`) evaluated as the API server evaluates them
 * (apiextensions-apiserver's `pkg/apiserver/schema/cel/validation.go`): every rule of a node whose
 * value is present and not null, `self` the value typed by the schema (`cel-values.ts`), `oldSelf` the
 * value it replaces on an update, where one corresponds (object fields and map keys by name, items of
 * a `x-kubernetes-list-type: map` list by their keys; nothing else correlates); a transition rule (one
 * naming `oldSelf`) skipped where there is none, unless `optionalOldSelf` makes `oldSelf` an optional;
 * a rule that is not true refused with its `messageExpression`'s text, else its `message`, else
 * `failed rule: <rule>`, at its `fieldPath`, as its `reason` words it. Each rule text is compiled once
 * (a module-wide cache), and a rule kopfgen cannot compile (a syntax error, a function no library
 * defines) is a thrown `CelRuleError` naming the rule and its field: never a silent pass. The cost
 * budget is not estimated: a rule the server would refuse as too expensive is evaluated here.
 */
import { Optional, type ParseResult } from '@marcbachmann/cel-js';
import { isPlainObject } from '../json.js';
import { celEnvironment, celSource } from './cel-library.js';
import { toCel } from './cel-values.js';
import type { JsonSchema, ValidationRule } from './schema-data.js';

/** One refusal, as the API server words a field error (`schema-admission.ts`'s `FieldError`). */
export interface RuleError {
  path: string;
  message: string;
}

/** A rule that cannot be compiled: the CRD carrying it is refused by the API server, so no test may pass it. */
export class CelRuleError extends Error {
  constructor(
    readonly rule: string,
    readonly field: string,
    detail: string,
  ) {
    super(`x-kubernetes-validations rule at ${field || '<root>'} cannot be compiled: ${detail}: ${rule}`);
    this.name = 'CelRuleError';
  }
}

interface Compiled {
  source: ValidationRule;
  program: ParseResult;
  message?: ParseResult;
  /** Names `oldSelf`: evaluated only where an old value corresponds (or as an optional). */
  transition: boolean;
  /** `fieldPath` as a suffix of the field's path (`.a['b']` → `.a[b]`). */
  suffix: string;
}

const cache = new Map<string, ParseResult | CelRuleError>();

function program(text: string, field: string): ParseResult {
  const known = cache.get(text);
  if (known instanceof CelRuleError) throw new CelRuleError(text, field, known.message);
  if (known) return known;
  const env = celEnvironment();
  let parsed: ParseResult;
  try {
    parsed = env.parse(celSource(text));
  } catch (e) {
    const error = new CelRuleError(text, field, firstLine(e));
    cache.set(text, error);
    throw error;
  }
  const checked = parsed.check();
  if (!checked.valid) {
    const error = new CelRuleError(text, field, firstLine(checked.error));
    cache.set(text, error);
    throw error;
  }
  cache.set(text, parsed);
  return parsed;
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
}

/** `oldSelf` as an identifier, outside string literals. */
function namesOldSelf(rule: string): boolean {
  return /\boldSelf\b/.test(rule.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, '""'));
}

function suffixOf(fieldPath: string | undefined): string {
  if (!fieldPath) return '';
  return fieldPath.replace(/\[\s*'((?:[^'\\]|\\.)*)'\s*\]/g, (_, key: string) => `[${key}]`);
}

const compiledBySchema = new WeakMap<JsonSchema, Compiled[]>();

/** A node's rules compiled (once per schema object, and each text once per process). */
export function compileRules(schema: JsonSchema, field: string): Compiled[] {
  const known = compiledBySchema.get(schema);
  if (known) return known;
  const rules = (schema['x-kubernetes-validations'] ?? []).map((source) => ({
    source,
    program: program(source.rule, field),
    message: source.messageExpression === undefined ? undefined : program(source.messageExpression, field),
    transition: namesOldSelf(source.rule),
    suffix: suffixOf(source.fieldPath),
  }));
  compiledBySchema.set(schema, rules);
  return rules;
}

const withRules = new WeakMap<JsonSchema, boolean>();

/** Whether any node of the schema carries rules (so a subtree without any is not walked); kept per schema object. */
export function hasRules(schema: JsonSchema): boolean {
  const known = withRules.get(schema);
  if (known !== undefined) return known;
  const found =
    (schema['x-kubernetes-validations']?.length ?? 0) > 0 ||
    (schema.items !== undefined && hasRules(schema.items)) ||
    (isPlainObject(schema.additionalProperties) && hasRules(schema.additionalProperties)) ||
    Object.values(schema.properties ?? {}).some(hasRules);
  withRules.set(schema, found);
  return found;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** How a field error shows the value: a scalar as JSON, an object or a list left out (`field.OmitValueType`). */
function shown(value: unknown, schema: JsonSchema): string {
  if (schema.type === 'object' || schema.type === 'array' || isPlainObject(value) || Array.isArray(value)) return '';
  return `${JSON.stringify(typeof value === 'bigint' ? Number(value) : value)}: `;
}

function refusal(rule: ValidationRule, value: unknown, schema: JsonSchema, detail: string): string {
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return `Forbidden: ${detail}`;
    case 'FieldValueRequired':
      return `Required value: ${detail}`;
    case 'FieldValueDuplicate':
      return `Duplicate value: ${shown(value, schema).replace(/: $/, '') || '"object"'}`;
    default:
      return `Invalid value: ${shown(value, schema)}${detail}`;
  }
}

/** The type the server names in an evaluation error (`sts.Type`). */
const typeOf = (schema: JsonSchema) => JSON.stringify(schema.type ?? '');

function evaluateRules(
  schema: JsonSchema,
  path: string,
  self: unknown,
  json: unknown,
  old: { value: unknown } | undefined,
  out: RuleError[],
): void {
  const rules = compileRules(schema, path);
  const where = path || '<nil>';
  for (const c of rules) {
    if (c.transition && old === undefined && !c.source.optionalOldSelf) continue;
    const context = {
      self,
      oldSelf: c.source.optionalOldSelf ? (old ? Optional.of(old.value) : Optional.none()) : old?.value,
    };
    let result: unknown;
    try {
      result = c.program(context);
    } catch (e) {
      out.push({
        path: where,
        message: `Invalid value: ${typeOf(schema)}: ${firstLine(e)} evaluating rule: ${c.source.rule.trim()}`,
      });
      continue;
    }
    if (result === true) continue;
    let detail = c.source.message?.trim() || `failed rule: ${c.source.rule.trim()}`;
    if (c.message) {
      try {
        const text: unknown = c.message(context);
        if (typeof text === 'string' && text.trim() !== '' && !text.includes('\n')) detail = text;
      } catch {
        // The server logs a failed messageExpression and falls back to the message (validation.go).
      }
    }
    const at = c.suffix
      ? path
        ? `${path}${c.suffix.startsWith('[') ? '' : '.'}${c.suffix.replace(/^\./, '')}`
        : c.suffix.replace(/^\./, '')
      : where;
    out.push({ path: at, message: refusal(c.source, json, schema, detail) });
  }
}

/** The old item a new one of a `map` list corresponds to, by its keys. */
function correlate(
  items: unknown[],
  schema: JsonSchema,
): (item: unknown) => { value: unknown; json: unknown } | undefined {
  const keys = schema['x-kubernetes-list-type'] === 'map' ? schema['x-kubernetes-list-map-keys'] : undefined;
  if (!keys) return () => undefined;
  const id = (item: unknown) =>
    isPlainObject(item)
      ? JSON.stringify(keys.map((k) => (typeof item[k] === 'bigint' ? String(item[k]) : item[k])))
      : '';
  const byKey = new Map(items.map((item) => [id(item), item]));
  return (item) => {
    const found = byKey.get(id(item));
    return found === undefined ? undefined : { value: found, json: found };
  };
}

/** Walks value and old value (both already CEL values) with the schema, evaluating every node's rules. */
function walk(
  schema: JsonSchema,
  path: string,
  value: unknown,
  old: { value: unknown } | undefined,
  out: RuleError[],
): void {
  if (value === null || value === undefined) return;
  if ((schema['x-kubernetes-validations']?.length ?? 0) > 0) evaluateRules(schema, path, value, value, old, out);
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!items) return;
    const oldItem = old && Array.isArray(old.value) ? correlate(old.value, schema) : () => undefined;
    value.forEach((item, i) => {
      if (hasRules(items)) walk(items, `${path}[${i}]`, item, oldItem(item), out);
    });
    return;
  }
  if (!isPlainObject(value)) return;
  const oldObject = old && isPlainObject(old.value) ? old.value : undefined;
  const additional = isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  for (const [key, child] of Object.entries(value)) {
    const sub = schema.properties?.[key] ?? additional;
    if (!sub || !hasRules(sub)) continue;
    const childPath = schema.properties?.[key] ? join(path, key) : `${path}[${key}]`;
    walk(sub, childPath, child, oldObject && key in oldObject ? { value: oldObject[key] } : undefined, out);
  }
}

/**
 * The rule refusals of an object under its version's schema (root rules see apiVersion, kind and
 * metadata's name and generateName, `model.WithTypeAndObjectMeta`). `old`: the stored object an update
 * replaces (absent on create).
 */
export function ruleErrors(
  schema: JsonSchema,
  object: Record<string, unknown>,
  old?: Record<string, unknown>,
): RuleError[] {
  if (!hasRules(schema)) return [];
  const out: RuleError[] = [];
  const self = toCel(rootView(object), schema);
  const oldSelf = old === undefined ? undefined : { value: toCel(rootView(old), schema) };
  walk(schema, '', self, oldSelf, out);
  return out;
}

function rootView(object: Record<string, unknown>): Record<string, unknown> {
  const metadata = isPlainObject(object.metadata) ? object.metadata : {};
  const view: Record<string, unknown> = {};
  for (const key of ['name', 'generateName']) if (typeof metadata[key] === 'string') view[key] = metadata[key];
  return { ...object, metadata: view };
}
