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

/** The text between `<open> <name>` and `<close>` lines: `// #region`/`// #endregion` in TypeScript, `# region`/`# endregion` in Python. */
function region(text: string, name: string, open = '// #region', close = '// #endregion'): string {
  const normal = text.replace(/\r\n/g, '\n');
  const start = normal.indexOf(`${open} ${name}\n`);
  const end = normal.indexOf(close, start);
  if (start < 0 || end < 0) throw new Error(`kopfgen: template region ${name} missing`);
  return normal.slice(start + `${open} ${name}\n`.length, end);
}

/** The fragments from the texts of `templates/stub-file.ts` and `templates/stub-handler.ts`. */
export function stubTemplates(fileTemplate: string, handlerTemplate: string): StubTemplates {
  return { head: region(fileTemplate, 'head'), stub: region(handlerTemplate, 'stub') };
}

/** The kopf target's fragments, from `templates/kopf/stub_file.py` and `templates/kopf/stub_handler.py`. */
export function pyStubTemplates(fileTemplate: string, handlerTemplate: string): StubTemplates {
  return {
    head: region(fileTemplate, 'head', '# region', '# endregion'),
    stub: region(handlerTemplate, 'stub', '# region', '# endregion'),
  };
}

/** Replaces whole-word placeholders; the replacement text is inserted literally. */
function fill(text: string, values: Record<string, string>): string {
  const pattern = new RegExp(`\\b(${Object.keys(values).join('|')})\\b`, 'g');
  return text.replace(pattern, (m) => values[m]);
}

export function stubFileHead(t: StubTemplates, f: StubFill): string {
  return fill(t.head, { KgKind: f.kind, KgCrd: f.crd, KgSource: f.source, KgDefinition: f.definition });
}

/** What a Python stub is filled with: the handler's names as Python spells them. */
export interface PyHandlerFill {
  id: string;
  cause: string;
  feeds: string;
  functionName: string;
  definition: string;
  /** `on_create`, `on_update`, … */
  register: string;
  spec: string;
  resourceStatus: string;
  status: string;
  temporaryError: string;
  permanentError: string;
  /** The module the names come from, as imported (`generated.example_com.v1.myresources`). */
  module: string;
  /** The returned expression (`None` when the stub has nothing honest to say). */
  result: string;
}

export function pyStubText(t: StubTemplates, f: PyHandlerFill): string {
  return fill(t.stub.replace('return kg_result', `return ${f.result}`), {
    kg_id: f.id,
    kg_cause: f.cause,
    kg_feeds: f.feeds,
    kg_function: f.functionName,
    KgDefinition: f.definition,
    kg_register: f.register,
    KgSpec: f.spec,
    KgResourceStatus: f.resourceStatus,
    KgStatus: f.status,
    KgTemporaryError: f.temporaryError,
    KgPermanentError: f.permanentError,
    kg_module: f.module,
  });
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
