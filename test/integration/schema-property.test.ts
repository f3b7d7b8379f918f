/**
 * Property test of the generated types against the schema they come from: random structural
 * schemas (seeded, so every run is the same: objects, arrays, maps, enums, int-or-string,
 * nullable, required, defaults, preserve-unknown with and without a typed map) are generated as
 * CRDs; for each, a random valid object must type-check against the write view (`PInput`, or `P`
 * where no default makes them differ) and, with the server's defaults filled in, against the read
 * view `P`; and one forbidden mutation of it (a wrong type, an unknown key where none is kept, a
 * missing required field without default, a value outside an enum, a defaulted field missing
 * from an object as read) must fail with the expected TypeScript code on its own line. All cases
 * are checked in one TypeScript program.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { generate } from '../../src/generate.js';
import { tempDir, typecheck, writeTree } from '../helpers/golden-support.js';

type Rnd = (n: number) => number;

/** mulberry32: small, seeded, and its low bits are as random as its high ones. */
function random(seed: number): Rnd {
  let state = seed >>> 0;
  return (n) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) % n;
  };
}

/** A schema as the CRD writes it (JSON is YAML). */
type Schema = { [key: string]: unknown };
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Property names, some not identifiers, one (`input`) that collides with a write-view name. */
const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'a-b', 'x.y', 'input', 'value', 'mode', 'items2', 'Zeta', 'port'];

function schemaOf(rnd: Rnd, depth: number): Schema {
  const pick = rnd(depth <= 0 ? 5 : 10);
  const nullable = rnd(6) === 0 ? { nullable: true } : {};
  switch (pick) {
    case 0:
      return { type: 'string', ...nullable };
    case 1:
      return { type: ['integer', 'number', 'boolean'][rnd(3)], ...nullable };
    case 2:
      return rnd(2) === 0
        ? { type: 'string', enum: ['red', 'green', 'blue'].slice(0, 1 + rnd(3)), ...nullable }
        : { type: 'integer', enum: [1, 2, 3].slice(0, 1 + rnd(3)) };
    case 3:
      return { 'x-kubernetes-int-or-string': true, ...nullable };
    case 4:
      return rnd(2) === 0
        ? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }
        : { 'x-kubernetes-preserve-unknown-fields': true };
    case 5:
    case 6:
      return { type: 'array', items: schemaOf(rnd, depth - 1), ...nullable };
    case 7: {
      const map: Schema = { type: 'object', additionalProperties: schemaOf(rnd, depth - 1), ...nullable };
      if (rnd(2) === 0) map['x-kubernetes-preserve-unknown-fields'] = true;
      return map;
    }
    default:
      return objectOf(rnd, depth - 1, nullable);
  }
}

function objectOf(rnd: Rnd, depth: number, extra: Schema = {}): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  const names = NAMES.filter(() => rnd(3) === 0);
  if (names.length === 0) names.push(NAMES[rnd(NAMES.length)]);
  for (const name of names) {
    const schema = schemaOf(rnd, depth);
    if (rnd(3) === 0) {
      const value = defaultFor(rnd, schema);
      if (value !== undefined) schema.default = value;
    }
    properties[name] = schema;
    if (rnd(2) === 0) required.push(name);
  }
  const object: Schema = { type: 'object', properties, ...extra };
  if (required.length > 0) object.required = required;
  if (rnd(5) === 0) object['x-kubernetes-preserve-unknown-fields'] = true;
  return object;
}

/** A default the schema accepts (scalars, enums, empty lists and maps), or none. */
function defaultFor(rnd: Rnd, s: Schema): Json | undefined {
  if (Array.isArray(s.enum)) return s.enum[rnd(s.enum.length)] as Json;
  if (s['x-kubernetes-int-or-string']) return rnd(2) === 0 ? 1 : '25%';
  if (s.type === 'string') return 'def';
  if (s.type === 'integer' || s.type === 'number') return 7;
  if (s.type === 'boolean') return true;
  if (s.type === 'array') return [];
  if (s.type === 'object' && s.properties === undefined && s.additionalProperties !== undefined) return {};
  return undefined;
}

/** A spot in an instance where a forbidden mutation may go, and the TypeScript code it must raise. */
interface Site {
  kind: 'wrong type' | 'outside enum' | 'unknown key' | 'missing required' | 'missing default';
  apply: () => void;
}

/** A valid value of `s` as a user writes it (defaulted required fields sometimes left out), collecting mutation sites. */
function valueOf(rnd: Rnd, s: Schema, sites: Site[], set: (v: Json) => void): Json {
  if (s.nullable && rnd(8) === 0) return null;
  if (Array.isArray(s.enum)) {
    sites.push({ kind: 'outside enum', apply: () => set(s.type === 'string' ? 'purple' : 9) });
    return s.enum[rnd(s.enum.length)] as Json;
  }
  if (s['x-kubernetes-int-or-string']) {
    sites.push({ kind: 'wrong type', apply: () => set(true) });
    return rnd(2) === 0 ? 3 : '50%';
  }
  switch (s.type) {
    case 'string':
      sites.push({ kind: 'wrong type', apply: () => set(5) });
      return 'text';
    case 'integer':
    case 'number':
      sites.push({ kind: 'wrong type', apply: () => set('five') });
      return 5;
    case 'boolean':
      sites.push({ kind: 'wrong type', apply: () => set('yes') });
      return false;
    case 'array': {
      const items: Json[] = [];
      const n = rnd(3);
      for (let i = 0; i < n; i++) items.push(valueOf(rnd, s.items as Schema, sites, (v) => (items[i] = v)));
      return items;
    }
    case undefined:
      if (!s.properties) return rnd(2) === 0 ? { any: [1, 'x'] } : 'anything';
  }
  return objectValue(rnd, s, sites);
}

function objectValue(rnd: Rnd, s: Schema, sites: Site[]): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required as string[] | undefined) ?? []);
  for (const [name, p] of Object.entries(props)) {
    const mandatory = required.has(name) && p.default === undefined;
    if (!mandatory && rnd(3) === 0) continue;
    out[name] = valueOf(rnd, p, sites, (v) => (out[name] = v));
    if (mandatory) sites.push({ kind: 'missing required', apply: () => delete out[name] });
  }
  const ap = s.additionalProperties as Schema | undefined;
  if (ap) {
    for (const key of ['k1', 'k-2'].slice(0, rnd(3))) out[key] = valueOf(rnd, ap, sites, (v) => (out[key] = v));
  } else if (s['x-kubernetes-preserve-unknown-fields']) {
    if (rnd(2) === 0) out.extra = { kept: true };
  } else {
    sites.push({ kind: 'unknown key', apply: () => (out.zzUnknown = 1) });
  }
  return out;
}

/** The object as read: the server fills every absent defaulted field of every object present. */
function withDefaults(s: Schema, v: Json, sites: Site[]): Json {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((item) => withDefaults(s.items as Schema, item, sites));
  const out: { [key: string]: Json } = {};
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required as string[] | undefined) ?? []);
  for (const [key, value] of Object.entries(v)) {
    const p = props[key] ?? (s.additionalProperties as Schema | undefined);
    out[key] = p ? withDefaults(p, value, sites) : value;
  }
  for (const [name, p] of Object.entries(props)) {
    if (out[name] === undefined && p.default !== undefined) out[name] = p.default as Json;
    if (required.has(name) && p.default !== undefined)
      sites.push({ kind: 'missing default', apply: () => delete out[name] });
  }
  return out;
}

/** Each mutation's error: a wrong value is TS2322, an unknown key TS2353, a missing property TS2741. */
const CODE: Record<Site['kind'], number> = {
  'wrong type': 2322,
  'outside enum': 2322,
  'unknown key': 2353,
  'missing required': 2741,
  'missing default': 2741,
};

const literal = (v: Json): string => JSON.stringify(v);

test('property: random valid objects type-check in both views, and one forbidden mutation of each fails', (t) => {
  const rnd = random(20261203);
  const dir = tempDir('property');
  const roots: string[] = [];
  const lines: string[] = [];
  const expected: string[] = [];
  const kinds = new Map<string, number>();
  let inputs = 0;
  for (let i = 0; i < 80; i++) {
    const spec = objectOf(rnd, 3);
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `ps.c${i}.kopfgen.dev` },
      spec: {
        group: `c${i}.kopfgen.dev`,
        scope: 'Namespaced',
        names: { kind: 'P', plural: 'ps' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', required: ['spec'], properties: { spec } } },
          },
        ],
      },
    };
    const result = generate([{ file: `case${i}.yaml`, text: JSON.stringify(crd) }], { stubs: false });
    assert.deepEqual(
      result.diagnostics.filter((d) => d.severity !== 'note'),
      [],
      `case ${i}: ${JSON.stringify(spec)}`,
    );
    roots.push(...writeTree(join(dir, `c${i}`), result.files));
    const module = `./c${i}/c${i}.kopfgen.dev/v1/ps.js`;
    const hasInput = result.files.some((f) => f.content.includes('export interface PInput {'));
    if (hasInput) inputs++;
    const writeType = `import("${module}").${hasInput ? 'PInput' : 'P'}`;
    const readType = `import("${module}").P`;
    const head = { apiVersion: `c${i}.kopfgen.dev/v1`, kind: 'P' };

    const writeSites: Site[] = [];
    const written = objectValue(rnd, spec, writeSites);
    const readSites: Site[] = [];
    const read = withDefaults(spec, written, readSites);
    lines.push(`export const w${i}: ${writeType} = ${literal({ ...head, spec: written })};`);
    lines.push(`export const r${i}: ${readType} = ${literal({ ...head, spec: read })};`);

    // One forbidden mutation: on the object as written (write view), or a defaulted field left out of one as read.
    // The kind first, then a site of that kind, so rare kinds get their share.
    const useRead = readSites.length > 0 && rnd(5) === 0;
    const candidates = useRead ? readSites : writeSites;
    const available = [...new Set(candidates.map((c) => c.kind))];
    if (available.length === 0) continue;
    const kind = available[rnd(available.length)];
    const sites = candidates.filter((c) => c.kind === kind);
    const site = sites[rnd(sites.length)];
    site.apply();
    kinds.set(site.kind, (kinds.get(site.kind) ?? 0) + 1);
    lines.push(
      `export const m${i}: ${useRead ? readType : writeType} = ${literal({ ...head, spec: useRead ? read : written })}; // ${site.kind}`,
    );
    expected.push(`usage.ts:${lines.length} TS${CODE[site.kind]}`);
  }
  const usage = join(dir, 'usage.ts');
  writeFileSync(usage, lines.join('\n') + '\n');
  const diagnostics = typecheck([...roots, usage]);
  const actual = diagnostics.map((d) => `${d.file === usage ? 'usage.ts' : d.file}:${d.line} TS${d.code}`);
  const detail = diagnostics
    .map((d) => `${d.line}: ${d.message.split('\n')[0]} :: ${lines[d.line - 1]?.slice(0, 300)}`)
    .join('\n');
  assert.deepEqual(actual.sort(), expected.sort(), detail);
  // The generator must actually produce each kind of case, or the test proves little.
  for (const kind of Object.keys(CODE))
    assert.ok((kinds.get(kind) ?? 0) > 0, `no "${kind}" mutation among ${JSON.stringify([...kinds])}`);
  assert.ok(inputs >= 10, `${inputs} cases have a write view of their own`);
  t.diagnostic(
    `${lines.length} objects, ${inputs} cases with a write view; mutations: ${JSON.stringify(Object.fromEntries(kinds))}`,
  );
});
