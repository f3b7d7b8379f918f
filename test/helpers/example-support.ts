/**
 * The examples in tests: their generated code and stub files checked against what `kopfgen generate`
 * computes today, and their TypeScript modules loaded as `kopfgen run` loads a `.ts` operator: through
 * tsx, with `kopfgen/runtime` resolving to the build (so the test skips without one).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generate } from '../../src/generate.js';
import { mergeStubFile } from '../../src/io/stub-merge.js';
import { readStubTemplates } from '../../src/io/stub-templates.js';

/** Why a test that loads an example cannot run (no build), or false. */
export const needsBuild: string | false = existsSync(resolve(process.cwd(), 'dist/src/runtime/index.js'))
  ? false
  : 'needs the build (kopfgen/runtime resolves to dist)';

/** Runs `body` with tsx's loader registered; `load(path)` imports a `.ts` file by path. */
export async function withTsx<T>(body: (load: (path: string) => Promise<unknown>) => Promise<T>): Promise<T> {
  const { register } = await import('tsx/esm/api');
  const unregister = register();
  try {
    return await body((path) => import(pathToFileURL(path).href));
  } finally {
    await unregister();
  }
}

/**
 * What `kopfgen generate <crd> --out <dir>/generated --stubs <dir>/handlers` computes for the example in
 * `dir`, checked against its files: the generated ones byte for byte, each stub file a merge fixed point
 * (the user's file keeps everything, nothing is appended). Returns the stub files' paths.
 */
export function assertExampleCurrent(dir: string, crd: string): string[] {
  const result = generate([{ file: crd, text: readFileSync(crd, 'utf8') }], {
    stubs: { dir: `${dir}/handlers`, templates: readStubTemplates() },
    generatedImportBase: '../generated',
  });
  // Nothing but, where the example's CRD keeps no conditions in its status, the note saying how to (KG209).
  assert.deepEqual(
    result.diagnostics.filter((d) => !(d.severity === 'note' && d.code === 'KG209')),
    [],
  );
  for (const file of result.files) {
    if (file.role === 'generated') {
      assert.equal(readFileSync(join(dir, 'generated', file.path), 'utf8'), file.content, file.path);
      continue;
    }
    const mine = readFileSync(join(dir, 'handlers', file.path), 'utf8');
    const merged = mergeStubFile(mine, file);
    assert.deepEqual(merged.added, [], file.path);
    assert.equal(merged.text, mine);
  }
  return result.files.filter((f) => f.role === 'stub').map((f) => f.path);
}
