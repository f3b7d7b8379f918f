/**
 * Loading an example's TypeScript modules in a test as `kopfgen run` loads a `.ts` operator: through
 * tsx, with `kopfgen/runtime` resolving to the build (so the test skips without one).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

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
