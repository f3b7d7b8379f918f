/**
 * The fixed text fragments of stub files, read from `templates/stub-*.ts`. Those files compile
 * with the project against placeholder declarations (`templates/stub-placeholders.ts`), so a
 * template that stops type-checking fails the build, not a user's project. The fragments are
 * the package's own assets (shipped in `templates/`), read once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface StubFill {
  kind: string;
  crd: string;
  source: string;
}

export interface HandlerFill {
  id: string;
  cause: string;
  /** The comment line naming the status fields and printer columns the handler feeds. */
  feeds: string;
  functionName: string;
  resource: string;
  status: string;
  definition: string;
  temporaryError: string;
  permanentError: string;
  /** `onCreate`, `onUpdate`, … */
  register: string;
  /** The returned expression, or undefined for a bare `return;`. */
  result?: string;
}

let cache: { head: string; stub: string } | undefined;

/** Walks up from this module (in `src/stubs` or `dist/src/stubs`) to the package's `templates/`. */
function templatesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'templates', 'stub-handler.ts'))) return join(dir, 'templates');
    const up = dirname(dir);
    if (up === dir) throw new Error('kopfgen: templates/stub-handler.ts not found next to the package');
    dir = up;
  }
}

function region(text: string, name: string): string {
  const start = text.indexOf(`// #region ${name}\n`);
  const end = text.indexOf('// #endregion', start);
  if (start < 0 || end < 0) throw new Error(`kopfgen: template region ${name} missing`);
  return text.slice(start + `// #region ${name}\n`.length, end).replace(/\r\n/g, '\n');
}

function fragments(): { head: string; stub: string } {
  if (!cache) {
    const dir = templatesDir();
    cache = {
      head: region(readFileSync(join(dir, 'stub-file.ts'), 'utf8'), 'head'),
      stub: region(readFileSync(join(dir, 'stub-handler.ts'), 'utf8'), 'stub'),
    };
  }
  return cache;
}

/** Replaces whole-word placeholders; the replacement text is inserted literally. */
function fill(text: string, values: Record<string, string>): string {
  const pattern = new RegExp(`\\b(${Object.keys(values).join('|')})\\b`, 'g');
  return text.replace(pattern, (m) => values[m]);
}

export function stubFileHead(f: StubFill): string {
  return fill(fragments().head, { KgKind: f.kind, KgCrd: f.crd, KgSource: f.source });
}

export function stubText(f: HandlerFill): string {
  const withResult = fragments().stub.replace('return kgResult;', f.result === undefined ? 'return;' : `return ${f.result};`);
  return fill(withResult, {
    kg_id: f.id,
    kg_cause: f.cause,
    kg_feeds: f.feeds,
    kgFunction: f.functionName,
    KgResource: f.resource,
    KgStatus: f.status,
    KgDefinition: f.definition,
    KgTemporaryError: f.temporaryError,
    KgPermanentError: f.permanentError,
    kgRegister: f.register,
  });
}
