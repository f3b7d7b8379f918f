/**
 * Objects made from a CRD version's structural schema (the schema data module `kopfgen generate`
 * emits for every CRD with handlers or a conversion webhook, `<plural>.schemas.ts`): deterministic for a seed,
 * valid for the schema (types, required, enums, bounds, lengths, item counts, nullability), varied in
 * which optional fields are present, so a property check over many seeds reaches most shapes. A
 * `pattern` is not generated for (a regular expression has no general inverse): such strings are
 * plain letters, which a test of conversions rarely minds.
 */
import type { KubernetesObject } from '../runtime/api/kube-types.js';
import type { JsonSchema, SchemaData } from '../runtime/admission/schema-data.js';

import { parseSchemaData } from '../runtime/admission/schema-data.js';
export { parseSchemaData };
export type { JsonSchema, SchemaData } from '../runtime/admission/schema-data.js';

/** mulberry32: a small seeded generator, so a failing seed can be run again. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

function between(rnd: () => number, low: number, high: number): number {
  return low + Math.floor(rnd() * (high - low + 1));
}

function text(rnd: () => number, schema: JsonSchema): string {
  switch (schema.format) {
    case 'date-time':
      return new Date(Date.UTC(2020, 0, 1) + between(rnd, 0, 1e6) * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    case 'date':
      return new Date(Date.UTC(2020, 0, 1) + between(rnd, 0, 2000) * 86_400_000).toISOString().slice(0, 10);
  }
  const min = schema.minLength ?? 1;
  const max = Math.max(min, Math.min(schema.maxLength ?? 12, min + 12));
  let out = '';
  for (let i = between(rnd, min, max); i > 0; i--) out += LETTERS[between(rnd, 0, LETTERS.length - 1)];
  return out;
}

function numberIn(rnd: () => number, schema: JsonSchema, integer: boolean): number {
  const low = (schema.minimum ?? -1000) + (schema.exclusiveMinimum ? 1 : 0);
  const high = (schema.maximum ?? 1000) - (schema.exclusiveMaximum ? 1 : 0);
  if (integer) return between(rnd, Math.ceil(low), Math.floor(high));
  return Math.round((low + rnd() * (high - low)) * 100) / 100;
}

/** A value of `schema`; `depth` bounds the recursion (deeper, only required fields). */
export function sampleValue(schema: JsonSchema, rnd: () => number, depth = 0): unknown {
  if (schema.nullable && rnd() < 0.1) return null;
  if (schema.enum && schema.enum.length > 0) return schema.enum[between(rnd, 0, schema.enum.length - 1)];
  if (schema['x-kubernetes-int-or-string']) return rnd() < 0.5 ? between(rnd, 0, 100) : text(rnd, {});
  switch (schema.type) {
    case 'string':
      return text(rnd, schema);
    case 'integer':
      return numberIn(rnd, schema, true);
    case 'number':
      return numberIn(rnd, schema, false);
    case 'boolean':
      return rnd() < 0.5;
    case 'array': {
      const min = schema.minItems ?? 0;
      const max = Math.max(min, Math.min(schema.maxItems ?? 3, depth > 4 ? min : min + 3));
      return Array.from({ length: between(rnd, min, max) }, () =>
        schema.items ? sampleValue(schema.items, rnd, depth + 1) : text(rnd, {}),
      );
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set(schema.required ?? []);
      for (const [key, child] of Object.entries(schema.properties ?? {})) {
        if (required.has(key) || (depth < 6 && rnd() < 0.5)) out[key] = sampleValue(child, rnd, depth + 1);
      }
      const values = schema.additionalProperties;
      if (values !== undefined && depth < 6)
        for (let i = between(rnd, 0, 2); i > 0; i--)
          out[text(rnd, { minLength: 3, maxLength: 8 })] =
            values === true ? text(rnd, {}) : sampleValue(values, rnd, depth + 1);
      return out;
    }
    default:
      // x-kubernetes-preserve-unknown-fields without a type: any JSON value.
      return rnd() < 0.5 ? text(rnd, {}) : { [text(rnd, { minLength: 3, maxLength: 6 })]: between(rnd, 0, 9) };
  }
}

/**
 * One object of `version` (of the schema data `text` or its parsed form), for `seed`: the schema's
 * fields, with `apiVersion`, `kind` and a metadata (name, namespace, uid) a server would send.
 */
export function sampleObject(data: SchemaData | string, version: string, seed: number): KubernetesObject {
  const schema = parseSchemaData(data);
  const root = schema.versions[version];
  if (!root)
    throw new Error(`${schema.crd} has no served version ${version} (${Object.keys(schema.versions).join(', ')})`);
  const rnd = random(seed);
  const { properties = {}, ...rest } = root;
  const { apiVersion: _a, kind: _k, metadata: _m, ...fields } = properties;
  const body = sampleValue({ ...rest, properties: fields }, rnd) as Record<string, unknown>;
  return {
    ...body,
    apiVersion: `${schema.group}/${version}`,
    kind: schema.kind,
    metadata: {
      name: `sample-${seed}`,
      ...(schema.scope === 'Namespaced' ? { namespace: 'default' } : {}),
      uid: `00000000-0000-4000-8000-${String(seed).padStart(12, '0').slice(-12)}`,
    },
  };
}
