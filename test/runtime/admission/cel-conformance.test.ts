/**
 * CEL's own conformance suites (cel-spec's `tests/simple/testdata`, as `@bufbuild/cel-spec` ships
 * them) run on the test kit's CEL environment: `@marcbachmann/cel-js` with the API server's libraries
 * (`cel-library.ts`, whose strings extension `string_ext` covers). Each expression is evaluated with
 * its bindings; the result must equal the expected value, or evaluation must fail where an error is
 * expected. The pass count of each suite is printed and must not drop below the count measured when
 * the suite was added (a regression fails; an improvement raises the floor). Suites left out, with why:
 * - proto2, proto3, proto2_ext, enums, wrappers, dynamic, namespace: protobuf messages, enums,
 *   wrapper types and containers; a CRD's `self` holds none of them.
 * - type_deductions: the checker's deduced types, not values.
 * - math_ext, encoders_ext, block_ext: cel-go extensions the API server does not enable for CRD rules.
 * - macros2: two-variable comprehensions (`all(i, v, …)`), which cel-js does not parse.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tests as conformance } from '@bufbuild/cel-spec/testdata/conformance.js';
import { Environment } from '@marcbachmann/cel-js';
import { withKubernetesLibraries } from '../../../src/runtime/admission/cel-library.js';
import { isPlainObject } from '../../../src/runtime/json.js';

/** Passing tests per suite when measured (cel-js 8.0.0 and the kit's libraries): the floor. */
const FLOOR: Record<string, number> = {
  basic: 35,
  bindings_ext: 5,
  comparisons: 308,
  conversions: 67,
  fields: 41,
  fp_math: 30,
  integer_math: 52,
  lists: 34,
  logic: 25,
  macros: 42,
  optionals: 22,
  parse: 167,
  plumbing: 5,
  string: 51,
  string_ext: 191,
  timestamps: 50,
};

const RUN = [
  'basic',
  'bindings_ext',
  'comparisons',
  'conversions',
  'fields',
  'fp_math',
  'integer_math',
  'lists',
  'logic',
  'macros',
  'optionals',
  'parse',
  'plumbing',
  'string',
  'string_ext',
  'timestamps',
];

type Json = unknown;
interface Suite {
  name: string;
  suites?: Suite[];
  tests?: { original: Record<string, Json> }[];
}

/** A `cel.expr.Value` (proto JSON) as text to compare. */
function expected(v: Json): string | undefined {
  if (!isPlainObject(v)) return undefined;
  if ('int64Value' in v) return `i:${String(v.int64Value)}`;
  if ('uint64Value' in v) return `u:${String(v.uint64Value)}`;
  if ('doubleValue' in v) return `d:${Number(v.doubleValue)}`;
  if ('stringValue' in v) return `s:${JSON.stringify(v.stringValue)}`;
  if ('boolValue' in v) return `b:${String(v.boolValue)}`;
  if ('nullValue' in v) return 'null';
  if ('bytesValue' in v) return `y:${Buffer.from(String(v.bytesValue), 'base64').toString('hex')}`;
  if ('listValue' in v) {
    const list = isPlainObject(v.listValue) && Array.isArray(v.listValue.values) ? v.listValue.values : [];
    return `[${list.map(expected).join(',')}]`;
  }
  if ('mapValue' in v) {
    const entries = isPlainObject(v.mapValue) && Array.isArray(v.mapValue.entries) ? v.mapValue.entries : [];
    return `{${entries
      .map((e) => (isPlainObject(e) ? `${expected(e.key)}:${expected(e.value)}` : ''))
      .sort()
      .join(',')}}`;
  }
  return `?${JSON.stringify(v)}`;
}

/** A cel-js result as the same text. */
function actual(x: unknown): string {
  if (typeof x === 'bigint') return `i:${x}`;
  if (typeof x === 'number') return `d:${x}`;
  if (typeof x === 'string') return `s:${JSON.stringify(x)}`;
  if (typeof x === 'boolean') return `b:${x}`;
  if (x === null) return 'null';
  if (x instanceof Uint8Array) return `y:${Buffer.from(x).toString('hex')}`;
  if (Array.isArray(x)) return `[${x.map(actual).join(',')}]`;
  if (x instanceof Map)
    return `{${[...x]
      .map(([k, v]) => `${actual(k)}:${actual(v)}`)
      .sort()
      .join(',')}}`;
  if (isPlainObject(x))
    return `{${Object.entries(x)
      .map(([k, v]) => `${actual(k)}:${actual(v)}`)
      .sort()
      .join(',')}}`;
  if (typeof x === 'object' && x.constructor.name === 'UnsignedInt') return `u:${String(Reflect.get(x, 'value'))}`;
  return `x:${String(x)}`;
}

/** A binding's value as cel-js takes it. */
function binding(v: Json): unknown {
  if (!isPlainObject(v)) return undefined;
  if ('int64Value' in v) return BigInt(String(v.int64Value));
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('nullValue' in v) return null;
  if ('bytesValue' in v) return new Uint8Array(Buffer.from(String(v.bytesValue), 'base64'));
  if ('listValue' in v && isPlainObject(v.listValue) && Array.isArray(v.listValue.values))
    return v.listValue.values.map(binding);
  if ('mapValue' in v && isPlainObject(v.mapValue) && Array.isArray(v.mapValue.entries))
    return new Map(
      v.mapValue.entries.flatMap((e): [unknown, unknown][] =>
        isPlainObject(e) ? [[binding(e.key), binding(e.value)]] : [],
      ),
    );
  return undefined;
}

function each(suite: Suite, visit: (t: Record<string, Json>) => void): void {
  for (const t of suite.tests ?? []) visit(t.original);
  for (const s of suite.suites ?? []) each(s, visit);
}

const base = withKubernetesLibraries(
  new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false, unlistedVariablesAreDyn: true }),
);

for (const suite of (conformance as Suite).suites ?? []) {
  if (!RUN.includes(suite.name)) continue;
  test(`CEL conformance: ${suite.name}`, (t) => {
    let pass = 0;
    let total = 0;
    each(suite, (c) => {
      const value = isPlainObject(c.typedResult) ? c.typedResult.result : c.value;
      const want = c.evalError || c.anyEvalErrors ? 'error' : value === undefined ? 'b:true' : expected(value);
      if (want === undefined || c.disableMacros || c.container) return;
      total++;
      const context: Record<string, unknown> = {};
      if (isPlainObject(c.bindings))
        for (const [k, b] of Object.entries(c.bindings)) context[k] = isPlainObject(b) ? binding(b.value) : undefined;
      let got: string;
      try {
        got = actual(base.evaluate(String(c.expr), context));
      } catch {
        got = 'error';
      }
      if (got === want || (want === 'd:NaN' && got === 'd:NaN')) pass++;
    });
    t.diagnostic(`${suite.name}: ${pass} of ${total} pass`);
    assert.ok(
      pass >= (FLOOR[suite.name] ?? 0),
      `${suite.name}: ${pass} of ${total} pass, fewer than ${FLOOR[suite.name]}`,
    );
  });
}
