/**
 * A CRD file's CRDs as schema data, the content of the schema data module the generator emits
 * (`schemaData` of each version's schema), for tests and benches of the test kit's admission.
 */
import { readFileSync } from 'node:fs';
import { schemaData } from '../../src/emit/conversion-module.js';
import { parseSource } from '../../src/load/parse-yaml.js';
import { buildCrd } from '../../src/model/build-crd.js';
import type { JsonSchema, SchemaData } from '../../src/testing/index.js';

export function schemaDataOf(file: string): SchemaData[] {
  const { crds } = parseSource({ file, text: readFileSync(file, 'utf8') });
  return crds.flatMap((document) => {
    const crd = buildCrd(document, []);
    const storage = crd?.versions.find((v) => v.storage);
    if (!crd || !storage) return [];
    const versions: Record<string, JsonSchema> = Object.fromEntries(
      crd.versions.map((v) => [v.name, v.schema ? schemaData(v.schema) : {}]),
    );
    return [
      {
        kopfgen: 1 as const,
        crd: crd.name,
        group: crd.group,
        kind: crd.kind,
        plural: crd.plural,
        scope: crd.scope,
        storage: storage.name,
        versions,
      },
    ];
  });
}

/** The one CRD of a file (throws when there is none). */
export function oneSchemaData(file: string): SchemaData {
  const [data] = schemaDataOf(file);
  if (!data) throw new Error(`${file}: no CRD`);
  return data;
}
