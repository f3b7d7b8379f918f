/**
 * Handler stub files: one user-owned file per kind, `<plural>.ts` in the stubs directory
 * (`<plural>.<group>.ts` when two CRDs in the run share a plural), with a stub per handler id
 * and cause. Called by the pipeline after modules are emitted, so `version.names` and
 * `handler.names` are set.
 *
 * Causes scaffolded: create, update and resume, the set kopf operators write for a handler
 * that keeps `status.<id>` current. Delete is left out on purpose: registering a delete
 * handler makes the runtime put a finalizer on every object, so it is a decision for the user
 * (`<Definition>.onDelete(fn)`), not a default.
 */
import type { GenerateOptions, GeneratedFile, StubEntry } from '../api.js';
import type { CrdModel, HandlerModel, SchemaNode, VersionModel } from '../model/ir.js';
import { stubFileHead, stubText } from './templates.js';

const STUB_CAUSES = ['create', 'update', 'resume'] as const;

export function emitStubFiles(crds: CrdModel[], options: GenerateOptions): GeneratedFile[] {
  if (options.stubs === false) return [];
  const base = (options.generatedImportBase ?? '../generated').replace(/\/+$/, '');
  const plurals = new Map<string, number>();
  for (const crd of crds) plurals.set(crd.plural, (plurals.get(crd.plural) ?? 0) + 1);
  const files: GeneratedFile[] = [];
  for (const crd of crds) {
    const version = stubVersion(crd);
    if (!version) continue;
    const path = plurals.get(crd.plural)! > 1 ? `${crd.plural}.${crd.group}.ts` : `${crd.plural}.ts`;
    files.push(stubFile(crd, version, path, `${base}/${version.names!.module}.js`));
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The version an operator watches: the storage version when served, else the first served one with handlers. */
function stubVersion(crd: CrdModel): VersionModel | undefined {
  const usable = crd.versions.filter((v) => v.served && v.names && v.handlers.length > 0 && v.handlers.every((h) => h.names));
  return usable.find((v) => v.storage) ?? usable[0];
}

function stubFile(crd: CrdModel, version: VersionModel, path: string, importPath: string): GeneratedFile {
  const resource = version.names!.resource;
  const stubs: StubEntry[] = [];
  const values = new Set<string>();
  const types = new Set<string>([resource]);
  for (const handler of version.handlers) {
    const names = handler.names!;
    values.add(names.definition).add(names.temporaryError).add(names.permanentError);
    types.add(names.status);
    for (const cause of STUB_CAUSES) stubs.push(stubEntry(version, handler, cause));
  }
  const head = stubFileHead({ kind: crd.kind, crd: crd.name, source: crd.file });
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

/** `myappOnCreate`, from the definition name without the module prefix (`MyResourceMyapp` → `myapp`). */
function stubName(version: VersionModel, handler: HandlerModel, cause: string): string {
  const definition = handler.names!.definition;
  const prefix = version.names!.prefix;
  const bare = definition.startsWith(prefix) && definition.length > prefix.length ? definition.slice(prefix.length) : definition;
  const camel = bare[0].toLowerCase() + bare.slice(1);
  return `${/^[0-9]/.test(camel) ? 'handler' + bare : camel}On${cause[0].toUpperCase()}${cause.slice(1)}`;
}

function stubEntry(version: VersionModel, handler: HandlerModel, cause: string): StubEntry {
  const names = handler.names!;
  const name = stubName(version, handler, cause);
  const text = stubText({
    id: handler.id,
    cause,
    feeds: feeds(handler),
    functionName: name,
    resource: version.names!.resource,
    status: names.status,
    definition: names.definition,
    temporaryError: names.temporaryError,
    permanentError: names.permanentError,
    register: `on${cause[0].toUpperCase()}${cause.slice(1)}`,
    result: honestResult(handler.status),
  });
  return { name, handlerId: handler.id, cause, text };
}

/** The comment line naming the status fields and the printer columns the handler feeds. */
function feeds(handler: HandlerModel): string {
  const fields = handler.status.type === 'object' ? handler.status.properties.map((p) => `\`${p.name}\``) : [];
  const what = fields.length > 0 ? `Status fields: ${fields.join(', ')}.` : `Status: ${handler.status.type === 'object' ? 'an open object' : handler.status.type}.`;
  const columns = handler.columns.map((c) => `\`${c.name}\` (\`${c.jsonPath}\`)`);
  const shown = columns.length > 0 ? ` Shown by the printer column${columns.length > 1 ? 's' : ''} ${columns.join(', ')}.` : ' No printer column shows it.';
  return (what + shown).replace(/\*\//g, '*\\/');
}

/**
 * What a stub honestly returns: it has done nothing yet, so a free-text `phase` says exactly
 * that; with no such field (or an enum whose every value would claim progress) it returns nothing.
 */
function honestResult(status: SchemaNode): string | undefined {
  if (status.type !== 'object') return undefined;
  const phase = status.properties.find((p) => p.name === 'phase')?.schema;
  if (phase?.type !== 'string' || (phase.enum && phase.enum.length > 0)) return undefined;
  return '{ phase: "NotImplemented" }';
}
