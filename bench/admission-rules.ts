/**
 * Admission with CEL validation rules (`kopfgen/testing`'s `admitObject`): objects/s for a typical
 * CRD with rules, gateway-api's HTTPRoute v1 (89 rules, on the route, its rules, matches, filters and
 * backend references), its schema data parsed once; the first admission (every rule compiled) timed
 * apart; beside the same schema with its rules taken out (the structural admission alone). Target:
 * at least 10,000 objects/s with rules.
 */
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { admitObject, type JsonSchema, type SchemaData } from '../src/testing/index.js';
import { schemaDataOf } from '../test/helpers/crd-schema-data.js';

const dir = process.argv[2] ?? '../shared/crds';
const file = join(dir, 'gateway-api/gateway.networking.k8s.io_httproutes.yaml');
if (!existsSync(file)) {
  console.log(`skipped: ${file} is absent`);
  process.exit(0);
}
const [data] = schemaDataOf(file);
if (!data) throw new Error(`${file}: no CRD`);

function withoutRules(schema: JsonSchema): JsonSchema {
  const { 'x-kubernetes-validations': _rules, properties, items, additionalProperties, ...rest } = schema;
  const out: JsonSchema = { ...rest };
  if (properties) out.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, withoutRules(v)]));
  if (items) out.items = withoutRules(items);
  if (additionalProperties !== undefined)
    out.additionalProperties = additionalProperties === true ? true : withoutRules(additionalProperties);
  return out;
}
const bare: SchemaData = {
  ...data,
  versions: Object.fromEntries(Object.entries(data.versions).map(([v, s]) => [v, withoutRules(s)])),
};

function route(i: number): unknown {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: `web-${i}`, namespace: 'default', labels: { app: 'web' } },
    spec: {
      parentRefs: [{ name: 'gw', sectionName: 'http' }],
      hostnames: ['web.example.com'],
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: '/api' } }],
          filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'x-a', value: 'b' }] } }],
          backendRefs: [
            { name: 'api', port: 8080, weight: 90 },
            { name: 'api-canary', port: 8080, weight: 10 },
          ],
        },
        { backendRefs: [{ name: 'web', port: 80 }] },
      ],
    },
  };
}

const N = 20_000;
const objects = Array.from({ length: N }, (_, i) => route(i));

/** Objects per second of this thread's CPU time (the machine may be shared: wall time would count others' work) and of wall time. */
function rate(schema: SchemaData): { perSecond: number; perWallSecond: number; refused: number } {
  let refused = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (const o of objects) if (admitObject(schema, o, 'v1').errors.length > 0) refused++;
  const used = process.cpuUsage(cpu);
  const seconds = (used.user + used.system) / 1e6;
  return { perSecond: N / seconds, perWallSecond: N / ((performance.now() - started) / 1000), refused };
}

const t0 = performance.now();
const first = admitObject(data, objects[0], 'v1');
const compileMs = performance.now() - t0;
if (first.errors.length > 0) throw new Error(`the route is refused: ${JSON.stringify(first.errors)}`);
rate(bare); // warm both paths before measuring
const withRules = rate(data);
const structural = rate(bare);
console.log(`HTTPRoute v1 (gateway-api), ${N.toLocaleString('en')} objects, schema data parsed once`);
console.log(`  first admission (89 rules compiled)   ${compileMs.toFixed(1).padStart(9)} ms`);
console.log(
  `  with rules                            ${Math.round(withRules.perSecond).toLocaleString('en').padStart(9)} objects/s of CPU time (${Math.round(withRules.perWallSecond).toLocaleString('en')} of wall time; target ≥ 10,000; refused ${withRules.refused})`,
);
console.log(
  `  rules taken out (structural only)     ${Math.round(structural.perSecond).toLocaleString('en').padStart(9)} objects/s of CPU time`,
);
if (withRules.refused > 0) process.exit(1);
