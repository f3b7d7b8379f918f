/**
 * The round-trip property of a conversion (kubebuilder's advice for hub and spoke: a spoke converted
 * to the hub and back must come out as it went in, or the API server loses data on every read and
 * write in that version): for objects sampled from each spoke's schema, `from → hub → from` equals
 * the input. Conversions run exactly as the webhook server runs them (conversion-review.ts:
 * metadata kept, apiVersion and kind set), so what passes here is what the cluster sees.
 */
import type { ConversionDefinition } from '../runtime/api/conversion.js';
import type { RegisteredConversion, SpokeFunctions } from '../runtime/api/registry.js';
import { createLogger } from '../runtime/effects/log.js';
import { deepEqual, isPlainObject } from '../runtime/json.js';
import { convertObject } from '../runtime/webhooks/conversion-review.js';
import { parseSchemaData, sampleObject, type SchemaData } from './sample-objects.js';

export interface RoundTripFailure {
  version: string;
  seed: number;
  /** The first path where the object that came back differs (`spec.size`), or the error. */
  where: string;
  input: unknown;
  hub?: unknown;
  back?: unknown;
}

export interface RoundTripOptions {
  /** Objects per spoke version (default 100). */
  count?: number;
  /** The first seed (default 1); object i uses seed + i. */
  seed?: number;
}

/** The first path at which `a` and `b` differ, or undefined when they are equal. */
export function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (deepEqual(a, b)) return undefined;
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference(a[key], b[key], path ? `${path}.${key}` : key);
      if (d !== undefined) return d;
    }
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d !== undefined) return d;
    }
  }
  return path || '(the whole object)';
}

/**
 * Checks `from → hub → from` for `count` sampled objects of every spoke; returns the failures (none:
 * the property holds for those objects). `functions` are the spokes' functions as registered
 * (`{ v1alpha1: { toHub, fromHub } }`), `schemas` the generated `<Kind>SchemaText`.
 */
export function roundTrip<Spokes>(
  conversion: ConversionDefinition<Spokes>,
  functions: Spokes,
  schemas: string | SchemaData,
  options: RoundTripOptions = {},
): RoundTripFailure[] {
  const data = parseSchemaData(schemas);
  const spokes = new Map<string, SpokeFunctions>();
  for (const version of conversion.spokes)
    spokes.set(version, Reflect.get(Object(functions), version) as SpokeFunctions);
  const registered: RegisteredConversion = {
    group: conversion.group,
    plural: data.plural,
    kind: conversion.kind,
    hub: conversion.hub,
    spokes,
  };
  const context = { desiredAPIVersion: '', logger: createLogger({ level: 'error' }) };
  const failures: RoundTripFailure[] = [];
  const count = options.count ?? 100;
  const first = options.seed ?? 1;
  for (const version of conversion.spokes) {
    for (let seed = first; seed < first + count; seed++) {
      const input = sampleObject(data, version, seed);
      let hub: unknown;
      try {
        hub = convertObject(registered, input, conversion.hub, {
          ...context,
          desiredAPIVersion: `${conversion.group}/${conversion.hub}`,
        });
        const back = convertObject(registered, hub, version, { ...context, desiredAPIVersion: input.apiVersion ?? '' });
        const where = firstDifference(input, back);
        if (where !== undefined) failures.push({ version, seed, where, input, hub, back });
      } catch (error) {
        failures.push({ version, seed, where: error instanceof Error ? error.message : String(error), input, hub });
      }
    }
  }
  return failures;
}

/** `roundTrip`, throwing an Error that names the first failure (for a test's assertion). */
export function assertRoundTrip<Spokes>(
  conversion: ConversionDefinition<Spokes>,
  functions: Spokes,
  schemas: string | SchemaData,
  options: RoundTripOptions = {},
): void {
  const failures = roundTrip(conversion, functions, schemas, options);
  if (failures.length === 0) return;
  const f = failures[0];
  throw new Error(
    `${conversion.crd}: ${failures.length} object(s) did not survive ${f.version} → ${conversion.hub} → ${f.version}; ` +
      `first: seed ${f.seed}, at ${f.where}\ninput: ${JSON.stringify(f.input)}\nhub:   ${JSON.stringify(f.hub)}\nback:  ${JSON.stringify(f.back)}`,
  );
}
