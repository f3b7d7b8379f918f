/**
 * The fixed text fragments of stub files, cut from `templates/stub-*.ts`. Those files compile
 * with the project against placeholder declarations (`templates/stub-placeholders.ts`), so a
 * template that stops type-checking fails the build, not a user's project. Reading them is the
 * I/O edge's job (`src/io/stub-templates.ts`); here they arrive as text.
 */

import type { StubTemplates } from '../api.js';

/** Declared with the options that carry them (`GenerateOptions.stubs`). */
export type { StubTemplates };

export interface StubFill {
  kind: string;
  crd: string;
  source: string;
  /** The first handler's `defineHandler` constant, named in the head's examples of the other handler kinds. */
  definition: string;
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

function region(text: string, name: string): string {
  const start = text.indexOf(`// #region ${name}\n`);
  const end = text.indexOf('// #endregion', start);
  if (start < 0 || end < 0) throw new Error(`kopfgen: template region ${name} missing`);
  return text.slice(start + `// #region ${name}\n`.length, end).replace(/\r\n/g, '\n');
}

/** The fragments from the texts of `templates/stub-file.ts` and `templates/stub-handler.ts`. */
export function stubTemplates(fileTemplate: string, handlerTemplate: string): StubTemplates {
  return { head: region(fileTemplate, 'head'), stub: region(handlerTemplate, 'stub') };
}

/** Replaces whole-word placeholders; the replacement text is inserted literally. */
function fill(text: string, values: Record<string, string>): string {
  const pattern = new RegExp(`\\b(${Object.keys(values).join('|')})\\b`, 'g');
  return text.replace(pattern, (m) => values[m]);
}

export function stubFileHead(t: StubTemplates, f: StubFill): string {
  return fill(t.head, { KgKind: f.kind, KgCrd: f.crd, KgSource: f.source, KgDefinition: f.definition });
}

export function stubText(t: StubTemplates, f: HandlerFill): string {
  const withResult = t.stub.replace('return kgResult;', f.result === undefined ? 'return;' : `return ${f.result};`);
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
