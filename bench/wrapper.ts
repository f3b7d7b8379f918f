/**
 * The yardstick of issue 12: what a user could wrap in a dozen lines instead of kopfgen. Every
 * CRD is loaded with js-yaml and each version's openAPIV3Schema is fed to openapi-typescript
 * (as a component schema of a minimal OpenAPI document), producing TypeScript text. Nothing is
 * written, which only flatters the wrapper.
 */
import { readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import openapiTS, { astToString, type SchemaObject } from 'openapi-typescript';

interface Crd {
  kind?: string;
  metadata?: { name?: string };
  spec?: { names?: { kind?: string }; versions?: { name: string; schema?: { openAPIV3Schema?: SchemaObject } }[] };
}

const ANY: SchemaObject = { type: 'object' };

/** The wrapper's inputs: every YAML file below `dir`, without reading them. */
export function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return yamlFiles(path);
      return /\.ya?ml$/.test(name) ? [path] : [];
    })
    .sort();
}

/** The wrapper's TypeScript text for each CRD in `files`, named by the CRD. */
export async function* wrapperModules(files: readonly string[]): AsyncGenerator<{ name: string; text: string }> {
  for (const file of files) {
    for (const doc of loadAll(await readFile(file, 'utf8')) as (Crd | null)[]) {
      if (doc?.kind !== 'CustomResourceDefinition') continue;
      const versions = doc.spec?.versions ?? [];
      const schemas = Object.fromEntries(
        versions.map((v) => [`${doc.spec?.names?.kind}_${v.name}`, v.schema?.openAPIV3Schema ?? ANY]),
      );
      const info = { title: doc.metadata?.name ?? file, version: '1' };
      const ast = await openapiTS({ openapi: '3.0.3', info, paths: {}, components: { schemas } });
      yield { name: info.title, text: astToString(ast) };
    }
  }
}

/** TypeScript text for every CRD version in `files`; returns its total length. */
export async function wrapper(files: readonly string[]): Promise<number> {
  let chars = 0;
  for await (const module of wrapperModules(files)) chars += module.text.length;
  return chars;
}
