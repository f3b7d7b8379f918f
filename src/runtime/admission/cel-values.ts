/**
 * An object's JSON as the CEL values a validation rule sees, typed by the schema as the API server
 * types them (apiserver's `pkg/cel/common/values.go` and `schemas.go`): `type: integer` is int
 * (`bigint`), `type: number` double, int-or-string an int or a string, `format: date-time`/`date` a
 * timestamp, an object with properties an object, `additionalProperties` a map, arrays lists; a value
 * under no type (preserve-unknown-fields) is converted by its JSON form (a whole number an int, as the
 * server's JSON decoder gives int64). And the few equality, ordering and printing rules the libraries
 * share with CEL (`cel-library.ts`).
 */
import { isPlainObject } from '../json.js';
import type { JsonSchema } from './schema-data.js';

/** The value, converted for CEL under its schema (undefined: untyped). */
export function toCel(value: unknown, schema: JsonSchema | undefined): unknown {
  if (value === null || value === undefined) return value;
  if (typeof value === 'number') {
    if (schema?.type === 'number') return value;
    return Number.isInteger(value) ? BigInt(value) : value;
  }
  if (typeof value === 'string') {
    if (schema?.type === 'string' && (schema.format === 'date-time' || schema.format === 'date')) {
      const t = Date.parse(value);
      return Number.isNaN(t) ? value : new Date(t);
    }
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => toCel(item, schema?.items));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    const additional = isPlainObject(schema?.additionalProperties) ? schema?.additionalProperties : undefined;
    for (const [key, child] of Object.entries(value)) out[key] = toCel(child, schema?.properties?.[key] ?? additional);
    return out;
  }
  return value;
}

/** A number of cel-js's (`bigint`, `number`, its `UnsignedInt` holding a `value`) as a plain number or bigint. */
function numeric(value: unknown): bigint | number | undefined {
  if (typeof value === 'bigint' || typeof value === 'number') return value;
  if (typeof value === 'object' && value !== null && value.constructor?.name === 'UnsignedInt') {
    const inner: unknown = Reflect.get(value, 'value');
    return typeof inner === 'bigint' ? inner : undefined;
  }
  return undefined;
}

/** CEL's heterogeneous equality: numbers compare by value across int, uint and double. */
export function celEqual(a: unknown, b: unknown): boolean {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined || y !== undefined)
    // `==` compares a bigint and a number by value (`===` would not).
    return x !== undefined && y !== undefined && x == y;
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => celEqual(v, b[i]));
  if (a instanceof Date || b instanceof Date)
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (isPlainObject(a) || isPlainObject(b)) {
    if (!isPlainObject(a) || !isPlainObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && celEqual(a[k], b[k]));
  }
  return a === b;
}

/** CEL's ordering of comparable values (numbers across types, strings by code point, bools, timestamps). */
export function celCompare(a: unknown, b: unknown): number {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  throw new TypeError('no such overload: values are not comparable');
}

/** A value as `%s` prints it (cel-go's `ext/formatting.go`). */
export function celString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null) return 'null';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
    return String(value);
  }
  const n = numeric(value);
  if (n !== undefined) return String(n);
  if (typeof value === 'boolean') return String(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (value instanceof Date) return value.toISOString().replace('.000Z', 'Z');
  if (Array.isArray(value)) return `[${value.map(quoted).join(', ')}]`;
  if (isPlainObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${quoted(k)}: ${quoted(value[k])}`)
      .join(', ')}}`;
  if (value instanceof Map)
    return `{${[...value]
      .map(([k, v]) => `${quoted(k)}: ${quoted(v)}`)
      .sort()
      .join(', ')}}`;
  return String(value);
}

/** Inside a list or map, strings print quoted. */
function quoted(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : celString(value);
}
