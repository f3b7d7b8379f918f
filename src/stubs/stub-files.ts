/**
 * Handler stub files: one user-owned file per kind, `<plural>.ts` in the stubs directory
 * (`<plural>.<group>.ts` when two CRDs in the run share a plural), with a stub per handler id
 * and cause. Reads only the naming pass's `NamedCrd`, so every name it imports exists.
 *
 * Causes scaffolded (`stubCauses`): those the configuration or `--handlers` names with the id
 * (`update_fn:update`); else create for an id only the configuration or `--handlers` declares (a
 * port of a kopf operator declares one id per decorated function, most for one cause: a stub for
 * each cause of each id would be work to delete), and create, update and resume for an id the CRD
 * names (a printer column or its `kopfgen.dev/handlers` annotation), the set kopf operators write
 * for a handler that keeps `status.<id>` current. Delete is never a default: registering a delete handler makes
 * the runtime put a finalizer on every object, so it is a decision for the user.
 */
import type { GenerateOptions, GeneratedFile, HandlerCause, StubEntry } from '../api.js';
import type { CrdModel, SchemaNode } from '../model/ir.js';
import { serverDefaulted } from '../model/write-view.js';
import type { NamedCrd, NamedHandler, NamedVersion } from '../model/naming.js';
import { stubFileHead, stubText, type StubTemplates } from './templates.js';

const COLUMN_CAUSES: readonly HandlerCause[] = ['create', 'update', 'resume'];
const DECLARED_CAUSES: readonly HandlerCause[] = ['create'];

/** The causes `handler`'s stubs are scaffolded for (see the file's comment). */
export function stubCauses(crd: CrdModel, handler: NamedHandler, options: GenerateOptions): readonly HandlerCause[] {
  const id = handler.handler.id;
  const named = options.handlerCauses?.[crd.kind]?.[id] ?? options.handlerCauses?.[`${crd.plural}.${crd.group}`]?.[id];
  if (named !== undefined) return named;
  return handler.handler.sources.every((s) => s === 'config') ? DECLARED_CAUSES : COLUMN_CAUSES;
}

/** What a stub file's path depends on; decided over the whole run, since plurals may collide across files. */
export type StubKey = Pick<CrdModel, 'name' | 'plural' | 'group'>;

/** Each CRD's stub file path (by CRD name): `<plural>.ts`, `<plural>.<group>.ts` when the run has the plural twice. */
export function stubPaths(crds: readonly StubKey[]): Map<string, string> {
  const plurals = new Map<string, number>();
  for (const crd of crds) plurals.set(crd.plural, (plurals.get(crd.plural) ?? 0) + 1);
  const paths = new Map<string, string>();
  for (const crd of crds) {
    const shared = (plurals.get(crd.plural) ?? 0) > 1;
    paths.set(crd.name, shared ? `${crd.plural}.${crd.group}.ts` : `${crd.plural}.ts`);
  }
  return paths;
}

/** The stub file of one CRD at `path`, or undefined when no served version has handlers. */
export function emitStubFile(
  named: NamedCrd,
  path: string,
  options: GenerateOptions,
  templates: StubTemplates,
): GeneratedFile | undefined {
  const version = stubVersion(named);
  if (!version) return undefined;
  const base = (options.generatedImportBase ?? '../generated').replace(/\/+$/, '');
  return stubFile(templates, named.crd, version, path, `${base}/${version.names.module}.js`, options);
}

/** The version an operator watches: the storage version when served, else the first served one with handlers. */
export function stubVersion(named: NamedCrd): NamedVersion | undefined {
  const usable = named.versions.filter((v) => v.handlers.length > 0);
  return usable.find((v) => v.version.storage) ?? usable[0];
}

function stubFile(
  t: StubTemplates,
  crd: CrdModel,
  version: NamedVersion,
  path: string,
  importPath: string,
  options: GenerateOptions,
): GeneratedFile {
  const resource = version.names.resource;
  const stubs: StubEntry[] = [];
  const values = new Set<string>();
  const types = new Set<string>([resource]);
  for (const handler of version.handlers) {
    const { names } = handler;
    values.add(names.definition).add(names.temporaryError).add(names.permanentError);
    types.add(names.status);
    for (const cause of stubCauses(crd, handler, options)) stubs.push(stubEntry(t, version, handler, cause));
  }
  const definition = version.handlers[0]?.names.definition ?? version.names.resource;
  const head = stubFileHead(t, { kind: crd.kind, crd: crd.name, source: crd.file, definition });
  const imports = importLines([
    { module: 'kopfgen/runtime', name: 'HandlerContext', typeOnly: true },
    ...[...values].sort().map((name) => ({ module: importPath, name, typeOnly: false })),
    ...[...types].sort().map((name) => ({ module: importPath, name, typeOnly: true })),
  ]);
  const content = head + imports + stubs.map((s) => '\n' + s.text).join('');
  return { path, content, role: 'stub', stubs };
}

export interface ImportSpec {
  module: string;
  name: string;
  typeOnly: boolean;
}

/**
 * Import declarations, one per module in order of first appearance: `import type { … }` when
 * every name is a type, else `import { A, type B }`. Used for a new stub file's imports and
 * for the ones a merge adds, so both read alike.
 */
export function importLines(specs: ImportSpec[]): string {
  const byModule = new Map<string, ImportSpec[]>();
  for (const s of specs) byModule.set(s.module, [...(byModule.get(s.module) ?? []), s]);
  let out = '';
  for (const [module, list] of byModule) {
    const allTypes = list.every((s) => s.typeOnly);
    const names = list.map((s) => (s.typeOnly && !allTypes ? `type ${s.name}` : s.name)).join(', ');
    out += `import ${allTypes ? 'type ' : ''}{ ${names} } from ${JSON.stringify(module)};\n`;
  }
  return out;
}

/**
 * The definition name without the module prefix (`MyResourceMyapp` → `Myapp`), unique in the
 * module as the definition is; `Handler3d` where it would start with a digit.
 */
export function handlerBase(version: NamedVersion, handler: NamedHandler): string {
  const definition = handler.names.definition;
  const prefix = version.names.prefix;
  const bare =
    definition.startsWith(prefix) && definition.length > prefix.length ? definition.slice(prefix.length) : definition;
  return /^[0-9]/.test(bare) ? 'Handler' + bare : bare;
}

/** `myappOnCreate`, from the definition name without the module prefix (`MyResourceMyapp` → `myapp`). */
function stubName(version: NamedVersion, handler: NamedHandler, cause: string): string {
  const base = handlerBase(version, handler);
  return `${base[0].toLowerCase() + base.slice(1)}On${cause[0].toUpperCase()}${cause.slice(1)}`;
}

function stubEntry(t: StubTemplates, version: NamedVersion, entry: NamedHandler, cause: string): StubEntry {
  const { handler, names } = entry;
  const name = stubName(version, entry, cause);
  const text = stubText(t, {
    id: handler.id,
    cause,
    feeds: feedsLine(handler).replace(/\*\//g, '*\\/'),
    functionName: name,
    resource: version.names.resource,
    status: names.status,
    definition: names.definition,
    temporaryError: names.temporaryError,
    permanentError: names.permanentError,
    register: `on${cause[0].toUpperCase()}${cause.slice(1)}`,
    result: honestResult(handler.status),
  });
  return { name, handlerId: handler.id, cause, definition: names.definition, text };
}

/** The comment line naming the status fields and the printer columns the handler feeds (unescaped). */
export function feedsLine(handler: NamedHandler['handler']): string {
  const fields = handler.status.type === 'object' ? handler.status.properties.map((p) => `\`${p.name}\``) : [];
  const what =
    fields.length > 0
      ? `Status fields: ${fields.join(', ')}.`
      : `Status: ${handler.status.type === 'object' ? 'an open object' : handler.status.type}.`;
  const columns = handler.columns.map((c) => `\`${c.name}\` (\`${c.jsonPath}\`)`);
  const shown =
    columns.length > 0
      ? ` Shown by the printer column${columns.length > 1 ? 's' : ''} ${columns.join(', ')}.`
      : ' No printer column shows it.';
  return what + shown;
}

/**
 * What a stub honestly returns: it has done nothing yet, so a free-text `phase` says exactly
 * that; with no such field (or an enum whose every value would claim progress) it returns nothing.
 */
function honestResult(status: SchemaNode): string | undefined {
  return hasFreeTextPhase(status) ? '{ phase: "NotImplemented" }' : undefined;
}

/**
 * Whether the status has a `phase` of free text (no enum), which a stub can honestly set to
 * `NotImplemented`, and no other field a writer must give (a `{ phase }` alone would not type-check).
 */
export function hasFreeTextPhase(status: SchemaNode): boolean {
  if (status.type !== 'object') return false;
  const phase = status.properties.find((p) => p.name === 'phase')?.schema;
  const othersRequired = status.properties.some((p) => p.name !== 'phase' && p.required && !serverDefaulted(p));
  return phase?.type === 'string' && !(phase.enum && phase.enum.length > 0) && !othersRequired;
}
