/**
 * The fake client refuses what the API server refuses, and stores what it stores: for the fixture
 * CRDs (every schema construct the goldens cover, the story's CRD, the typed handlers' CRD), objects
 * sampled from each schema (valid) and three mutations of each (a wrong type, a missing required field,
 * a value outside an enum or a bound, an unknown field), created on envtest and in a `fakeClient`, both
 * with `dryRun`. The decisions must agree; where both accept, the
 * object as stored (pruned, defaulted) must be the same. Objects holding an empty string are left out:
 * kube-apiserver 1.20 built with Go ≥ 1.16 refuses them (kubernetes#99804), fixed servers accept them,
 * as the fake does. `enum.yaml` is left out: its `null` enum value is what 1.20 mishandles (kubernetes#104969);
 * typed.yaml's enums stand in for it. `structural-gaps.yaml` holds what the kit checked differently
 * before: `minProperties`/`maxProperties` and a list under preserve-unknown-fields, whose items the
 * server stores with their unknown fields. CEL rules are left out: 1.20 ignores them
 * (`test/testing/cel-rules.test.ts` and the conformance suites check them instead).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deepEqual, isPlainObject } from '../../src/runtime/json.js';
import { KubeError } from '../../src/runtime/kube/client.js';
import { ApiError } from '../../src/runtime/api/client-api.js';
import { defineResource } from '../../src/runtime/api/define.js';
import { fakeClient, random, sampleObject, type JsonSchema } from '../../src/testing/index.js';
import { schemaDataOf } from '../helpers/crd-schema-data.js';
import { START_TIMEOUT, skip, startCluster, stopCluster, TEST_TIMEOUT, type Cluster } from '../helpers/envtest.js';

const FILES = [
  'crds/myresource.yaml',
  'test/fixtures/handlers/typed.yaml',
  ...[
    'additional-properties',
    'embedded-resource',
    'int-or-string',
    'nullable',
    'preserve-typed-map',
    'preserve-unknown',
    'required',
    'root-required',
    'server-defaults',
    'structural-gaps',
    'versions',
  ].map((name) => `test/fixtures/crds/${name}.yaml`),
];
const SEEDS = 6;
/** Mutations tried per sampled object (each on its own copy). */
const MUTATIONS = 3;

/** The places one mutation can go, each a function that makes it on a copy of the object. */
function mutations(
  value: unknown,
  schema: JsonSchema,
  path: string[],
): { where: string; apply: (o: Record<string, unknown>) => void }[] {
  const out: { where: string; apply: (o: Record<string, unknown>) => void }[] = [];
  const set = (v: unknown) => (o: Record<string, unknown>) => {
    let at: Record<string, unknown> = o;
    for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
    at[path[path.length - 1]] = v;
  };
  if (path.length > 0 && schema.type && !schema['x-kubernetes-int-or-string'])
    out.push({
      where: `${path.join('.')}: wrong type`,
      apply: set(schema.type === 'string' ? 42 : schema.type === 'object' ? 'text' : 'text'),
    });
  if (schema.enum) out.push({ where: `${path.join('.')}: outside the enum`, apply: set('not-in-enum') });
  if (schema.maximum !== undefined)
    out.push({ where: `${path.join('.')}: above the maximum`, apply: set(schema.maximum + 1) });
  if (schema.minimum !== undefined)
    out.push({ where: `${path.join('.')}: below the minimum`, apply: set(schema.minimum - 1) });
  if (isPlainObject(value)) {
    for (const key of schema.required ?? [])
      if (value[key] !== undefined && schema.properties?.[key]?.default === undefined)
        out.push({
          where: `${[...path, key].join('.')}: required, missing`,
          apply: (o) => {
            let at: Record<string, unknown> = o;
            for (const k of path) at = at[k] as Record<string, unknown>;
            delete at[key];
          },
        });
    if (!schema['x-kubernetes-preserve-unknown-fields'] && schema.additionalProperties === undefined && path.length > 0)
      out.push({ where: `${path.join('.')}: an unknown field`, apply: (o) => set({ ...value, zzUnknown: 1 })(o) });
    for (const [key, child] of Object.entries(value)) {
      const sub =
        schema.properties?.[key] ??
        (isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
      if (sub && child !== null) out.push(...mutations(child, sub, [...path, key]));
    }
  }
  return out;
}

const hasEmptyString = (v: unknown): boolean =>
  v === '' ||
  (Array.isArray(v) ? v.some(hasEmptyString) : isPlainObject(v) ? Object.values(v).some(hasEmptyString) : false);

const withoutMeta = (o: unknown) => {
  const { metadata: _m, status: _s, ...rest } = isPlainObject(o) ? o : {};
  return rest;
};

let cluster: Cluster | undefined;

describe('the fake client admits as the API server does', { skip }, () => {
  before(
    async () => {
      cluster = startCluster();
      for (const file of FILES) cluster.kubectl('apply', '--validate=false', '-f', file);
      for (const file of FILES) cluster.kubectl('wait', '--for=condition=Established', '-f', file, '--timeout=60s');
    },
    { timeout: START_TIMEOUT },
  );
  after(() => stopCluster(cluster));

  it(
    'same decisions on valid and invalid objects of every fixture CRD; same stored objects',
    { timeout: TEST_TIMEOUT * 2 },
    async (t) => {
      const client = cluster?.client;
      if (!client) throw new Error('no cluster');
      const disagreements: string[] = [];
      let accepted = 0;
      let refused = 0;
      for (const file of FILES)
        for (const data of schemaDataOf(file)) {
          const version = data.storage;
          // The status subresource (a create then ignores status) as the cluster has the CRD.
          const crd = await client.request<{
            spec: { versions: { name: string; subresources?: { status?: object } }[] };
          }>('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${data.crd}`);
          const descriptor = defineResource({
            group: data.group,
            version,
            plural: data.plural,
            kind: data.kind,
            scope: data.scope,
            statusSubresource: crd.spec.versions.some(
              (v) => v.name === version && v.subresources?.status !== undefined,
            ),
            printerColumns: [],
          });
          const path = `/apis/${data.group}/${version}/${data.scope === 'Namespaced' ? 'namespaces/default/' : ''}${data.plural}`;
          for (let seed = 1; seed <= SEEDS; seed++) {
            const valid = sampleObject(data, version, seed);
            delete valid.metadata?.uid;
            const candidates = [{ where: 'as sampled', object: valid }];
            const options = mutations(valid, data.versions[version], []);
            const rnd = random(seed);
            for (let i = 0; i < Math.min(MUTATIONS, options.length); i++) {
              const pick = options[Math.floor(rnd() * options.length)];
              const copy = JSON.parse(JSON.stringify(valid)) as Record<string, unknown>;
              pick.apply(copy);
              candidates.push({ where: pick.where, object: copy });
            }
            for (const { where, object } of candidates) {
              if (hasEmptyString(object)) continue;
              let server: unknown;
              try {
                server = await client.request('POST', path, { body: object, query: { dryRun: 'All' } });
              } catch (error) {
                if (!(error instanceof KubeError) || error.status >= 500) throw error;
                server = undefined;
              }
              const fake = await fakeClient({ schemas: [data] })
                .create(descriptor, object as never, { dryRun: true })
                .then(
                  (stored: unknown) => ({ stored, refusal: undefined }),
                  (error: unknown) => {
                    if (error instanceof ApiError) return { stored: undefined, refusal: error.message };
                    throw error;
                  },
                );
              const label = `${data.crd} seed ${seed} (${where})`;
              if ((server !== undefined) !== (fake.stored !== undefined))
                disagreements.push(
                  `${label}: the server ${server ? 'accepts' : 'refuses'}, the fake ${fake.refusal ? `refuses: ${fake.refusal}` : 'accepts'}`,
                );
              else if (server !== undefined && !deepEqual(withoutMeta(server), withoutMeta(fake.stored)))
                disagreements.push(
                  `${label}: stored differently: server ${JSON.stringify(withoutMeta(server))}, fake ${JSON.stringify(withoutMeta(fake.stored))}`,
                );
              if (server !== undefined) accepted++;
              else refused++;
            }
          }
        }
      t.diagnostic(`${accepted} objects accepted and ${refused} refused by both`);
      assert.deepEqual(disagreements, []);
      assert.ok(accepted > 20 && refused > 20, `a real mix of objects (${accepted} accepted, ${refused} refused)`);
    },
  );
});
