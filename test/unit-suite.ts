/**
 * `npm run test:unit` in one process: imports every test file of the unit scope, so the modules
 * they share (yaml, ts-morph, the runtime) load once instead of once per file. The scope is
 * every test outside test/e2e, test/integration and test/cli; tests in it that need an API
 * server, the corpus or a TypeScript program skip themselves (helpers/test-scope.ts).
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const OUTSIDE = new Set(['e2e', 'integration', 'cli', 'helpers', 'fixtures', 'golden']);

function unitFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return dir === here && OUTSIDE.has(e.name) ? [] : unitFiles(path);
      return e.name.endsWith('.test.js') && !e.name.endsWith('-e2e.test.js') ? [path] : [];
    })
    .sort();
}

for (const file of unitFiles(here)) await import(`./${relative(here, file)}`);
