/**
 * An independent oracle: for each golden fixture, json-schema-to-typescript compiles the same
 * spec and status schemas (after a small pre-pass for the Kubernetes extensions it does not
 * know), and its types and kopfgen's must be mutually assignable under strict.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { parseAllDocuments } from 'yaml';
import { REPO, formatTs, generateFile, tempDir, typecheck, writeTree } from '../helpers/golden-support.js';

type Schema = Record<string, unknown> & {
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
};

/** Kubernetes' OpenAPI extensions, spelled the way json-schema-to-typescript understands. */
function prepass(s: Schema): Schema {
  const out: Schema = { ...s };
  delete out.default;
  // Parenthesised: json-schema-to-typescript pastes tsType into `T[]` as is.
  if (s['x-kubernetes-int-or-string']) return { tsType: '(number | string)' };
  if (s['x-kubernetes-preserve-unknown-fields'] && s.type === undefined) return { tsType: 'unknown' };
  if (s.properties) out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, prepass(v)]));
  if (s.items) out.items = prepass(s.items);
  if (s.additionalProperties && typeof s.additionalProperties === 'object')
    out.additionalProperties = prepass(s.additionalProperties);
  if (s['x-kubernetes-preserve-unknown-fields'] && out.additionalProperties === undefined)
    out.additionalProperties = true;
  if (s['x-kubernetes-embedded-resource']) {
    out.properties = {
      ...out.properties,
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { tsType: 'ObjectMeta' },
    };
    out.required = [...new Set([...((s.required as string[]) ?? []), 'apiVersion', 'kind'])];
    // A typed map beside apiVersion/kind/metadata must admit their types too (as kopfgen's index type does).
    const ap = out.additionalProperties;
    out.additionalProperties =
      ap && typeof ap === 'object' ? { anyOf: [ap, { type: 'string' }, { tsType: 'ObjectMeta' }] } : true;
  }
  if (s.nullable) {
    delete out.nullable;
    return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

const FIXTURES = readdirSync(join(REPO, 'test/fixtures/crds'))
  .filter((f) => f.endsWith('.yaml'))
  .sort();

test('kopfgen and json-schema-to-typescript agree on every fixture (mutually assignable)', async () => {
  const dir = tempDir('oracle');
  const roots: string[] = [];
  const checks: string[] = [
    'import type { ObjectMeta } from "kopfgen/runtime";',
    'type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;',
  ];
  let compared = 0;
  for (const fixture of FIXTURES) {
    const file = `test/fixtures/crds/${fixture}`;
    const result = generateFile(file);
    const sub = basename(fixture, '.yaml');
    roots.push(...writeTree(join(dir, sub), result.files));
    for (const doc of parseAllDocuments(readFileSync(join(REPO, file), 'utf8'))) {
      const crd = doc.toJS() as {
        kind: string;
        spec: {
          group: string;
          names: { plural: string };
          validation?: { openAPIV3Schema: Schema };
          versions?: { name: string; storage: boolean; schema?: { openAPIV3Schema: Schema } }[];
          version?: string;
        };
      };
      if (crd?.kind !== 'CustomResourceDefinition') continue;
      const version = crd.spec.versions?.find((v) => v.storage) ?? {
        name: crd.spec.version!,
        schema: crd.spec.validation,
      };
      const root = version.schema!.openAPIV3Schema;
      const modulePath = `./${sub}/${crd.spec.group}/${version.name}/${crd.spec.names.plural}.js`;
      const module = result.files.find(
        (f) => f.path === `${crd.spec.group}/${version.name}/${crd.spec.names.plural}.ts`,
      )!;
      const resource = /export interface (\w+) \{/.exec(module.content)![1];
      for (const part of ['spec', 'status'] as const) {
        const schema = root.properties?.[part];
        if (!schema) continue;
        const name = `J${compared}`;
        const ts = await compile(prepass(schema) as JSONSchema, name, {
          bannerComment: '',
          format: false,
          additionalProperties: false,
          ignoreMinAndMaxItems: true,
          unknownAny: true,
          strictIndexSignatures: false,
        });
        const oracle = join(dir, `${name}.ts`);
        writeFileSync(oracle, 'import type { ObjectMeta } from "kopfgen/runtime";\n' + ts);
        roots.push(oracle);
        const required = (root.required as string[] | undefined)?.includes(part) && part !== 'status';
        const ours = required
          ? `import("${modulePath}").${resource}["${part}"]`
          : `NonNullable<import("${modulePath}").${resource}["${part}"]>`;
        checks.push(
          `export const c${compared}: Mutual<${ours}, import("./${name}.js").${name}> = true; // ${file} ${part}`,
        );
        compared++;
      }
    }
  }
  const checkFile = join(dir, 'checks.ts');
  writeFileSync(checkFile, checks.join('\n') + '\n');
  const diagnostics = typecheck([...roots, checkFile]);
  assert.ok(compared >= 15, `compared ${compared} spec/status types`);
  assert.deepEqual(
    diagnostics.map((d) => (d.file === checkFile ? `${checks[d.line - 1]} :: ${d.message}` : formatTs(d))),
    [],
  );
});
