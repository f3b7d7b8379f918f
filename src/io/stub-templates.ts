/**
 * Reads the stub templates shipped in the package's `templates/` (once per process): the one
 * place the generator reads its own assets, so the pipeline below it stays text in, text out.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pyStubTemplates, stubTemplates, type StubTemplates } from '../stubs/templates.js';

let cache: StubTemplates | undefined;
let pyCache: StubTemplates | undefined;

/** Walks up from this module (in `src/io` or `dist/src/io`) to the package's `templates/`. */
function templatesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'templates', 'stub-handler.ts'))) return join(dir, 'templates');
    const up = dirname(dir);
    if (up === dir) throw new Error('kopfgen: templates/stub-handler.ts not found next to the package');
    dir = up;
  }
}

export function readStubTemplates(): StubTemplates {
  if (!cache) {
    const dir = templatesDir();
    const read = (name: string) => readFileSync(join(dir, name), 'utf8');
    cache = stubTemplates(read('stub-file.ts'), read('stub-handler.ts'));
  }
  return cache;
}

/** The kopf target's stub templates, `templates/kopf/stub_file.py` and `stub_handler.py` (once per process). */
export function readPyStubTemplates(): StubTemplates {
  if (!pyCache) {
    const dir = join(templatesDir(), 'kopf');
    const read = (name: string) => readFileSync(join(dir, name), 'utf8');
    pyCache = pyStubTemplates(read('stub_file.py'), read('stub_handler.py'));
  }
  return pyCache;
}
