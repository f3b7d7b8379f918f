/**
 * The kopf target's handler stubs: one user-owned module per kind, `<plural>.py` in the stubs
 * directory (`<plural>_<group>.py` when two CRDs of the run share a plural), a stub per handler id
 * and cause, the causes decided as for the TypeScript stubs (stub-files.ts `stubCauses`). Each stub is an `async def` decorated with the
 * handler's registration helper, its kwargs annotated with the generated types and its return
 * type the handler's status, so pyright checks what the user writes into it.
 *
 * Stubs import the generated module by its absolute name (`generated.example_com.v1.myresources`):
 * kopf runs a handlers file as a top-level module, where a relative import has no package.
 */
import type { GenerateOptions, GeneratedFile, StubEntry } from '../api.js';
import type { CrdModel } from '../model/ir.js';
import type { NamedCrd, NamedHandler, NamedVersion } from '../model/naming.js';
import { docstringText } from '../emit-kopf/py-docs.js';
import { pyModulePath } from '../emit-kopf/py-module.js';
import { groupPackages, moduleSegment, pyName, snakeCase } from '../emit-kopf/py-names.js';
import { feedsLine, handlerBase, hasFreeTextPhase, stubCauses, stubVersion, type StubKey } from './stub-files.js';
import { pyStubText, stubFileHead, type StubTemplates } from './templates.js';

/** The package the stubs import the generated modules from when none is given. */
export const DEFAULT_GENERATED_PACKAGE = 'generated';

/**
 * Each CRD's stub module (by CRD name): `<plural>.py`, `<plural>_<group package>.py` when the run
 * has the plural twice; a name taken twice all the same (`a-b` and `a_b` spell alike) is numbered.
 */
export function pyStubPaths(crds: readonly StubKey[]): Map<string, string> {
  const plurals = new Map<string, number>();
  for (const crd of crds) plurals.set(crd.plural, (plurals.get(crd.plural) ?? 0) + 1);
  const packages = groupPackages(crds.map((c) => c.group));
  const taken = new Set<string>();
  const paths = new Map<string, string>();
  for (const crd of [...crds].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const plural = moduleSegment(crd.plural);
    const base = (plurals.get(crd.plural) ?? 0) > 1 ? `${plural}_${packages.get(crd.group) ?? ''}` : plural;
    let name = base;
    for (let i = 2; taken.has(name); i++) name = `${base}${i}`;
    taken.add(name);
    paths.set(crd.name, `${name}.py`);
  }
  return paths;
}

/** The stub module of one CRD at `path`, or undefined when no served version has handlers. */
export function emitPyStubFile(
  named: NamedCrd,
  path: string,
  groupPackage: string,
  options: GenerateOptions,
  templates: StubTemplates,
): GeneratedFile | undefined {
  const version = stubVersion(named);
  if (!version) return undefined;
  const base = options.generatedPackage ?? DEFAULT_GENERATED_PACKAGE;
  const module = `${base}.${pyModulePath(groupPackage, version.version.name, named.crd.plural).replace(/\.py$/, '').split('/').join('.')}`;
  return stubFile(templates, named.crd, version, path, module, options);
}

/** What the stubs annotate `spec` and `status` with: the generated TypedDict, or any mapping where the schema names none. */
function kwargTypes(version: NamedVersion): { spec: string; status: string; generated: string[]; typing: string[] } {
  const generated: string[] = [];
  const typing: string[] = [];
  const typeOf = (key: string): string => {
    const node = version.version.schema?.properties.find((p) => p.name === key)?.schema;
    const name = node?.type === 'object' ? version.types.get(node) : undefined;
    if (name !== undefined) {
      generated.push(pyName(name));
      return pyName(name);
    }
    typing.push('Mapping');
    return 'Mapping[str, Any]';
  };
  return { spec: typeOf('spec'), status: typeOf('status'), generated, typing };
}

function stubFile(
  t: StubTemplates,
  crd: CrdModel,
  version: NamedVersion,
  path: string,
  module: string,
  options: GenerateOptions,
): GeneratedFile {
  const kwargs = kwargTypes(version);
  const generated = new Set(kwargs.generated);
  const stubs: StubEntry[] = [];
  for (const handler of version.handlers) {
    generated.add(pyName(handler.names.definition)).add(pyName(handler.names.status));
    for (const cause of stubCauses(crd, handler, options))
      stubs.push(stubEntry(t, version, handler, cause, kwargs, module));
  }
  const definition = pyName(version.handlers[0]?.names.definition ?? version.names.resource);
  const head = stubFileHead(t, { kind: crd.kind, crd: crd.name, source: crd.file, definition }).replace(
    /[\r\n]+$/,
    '\n',
  );
  const imports = pyImportLines([
    ...['Any', 'Optional', ...kwargs.typing].map((name) => ({ module: 'typing', name })),
    { module: 'kopf', name: '' },
    ...[...generated].map((name) => ({ module, name })),
  ]);
  const content = head + imports + stubs.map((s) => '\n\n' + s.text).join('');
  return { path, content, role: 'stub', stubs };
}

/** One import: `from <module> import <name>`, or `import <module>` when `name` is empty. */
export interface PyImportSpec {
  module: string;
  name: string;
}

/**
 * Import statements in isort's order and layout: the standard library (`typing`), then third
 * party (`kopf`), then the generated package, blocks apart; names sorted; a statement that would
 * pass 99 characters is parenthesised, one name a line. Used for a new stub module's imports and
 * for the ones a merge adds, so both read alike.
 */
export function pyImportLines(specs: readonly PyImportSpec[]): string {
  const rank = (module: string) => (module === 'typing' ? 0 : module === 'kopf' ? 1 : 2);
  const modules = [...new Set(specs.map((s) => s.module))].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
  const blocks = new Map<number, string[]>();
  for (const module of modules) {
    const names = [...new Set(specs.filter((s) => s.module === module && s.name !== '').map((s) => s.name))].sort();
    const lines = blocks.get(rank(module)) ?? [];
    if (specs.some((s) => s.module === module && s.name === '')) lines.push(`import ${module}\n`);
    if (names.length > 0) {
      const flat = `from ${module} import ${names.join(', ')}\n`;
      lines.push(flat.length <= 100 ? flat : `from ${module} import (\n${names.map((n) => `    ${n},\n`).join('')})\n`);
    }
    blocks.set(rank(module), lines);
  }
  return [...blocks.values()].map((lines) => '\n' + lines.join('')).join('');
}

function stubEntry(
  t: StubTemplates,
  version: NamedVersion,
  entry: NamedHandler,
  cause: string,
  kwargs: { spec: string; status: string },
  module: string,
): StubEntry {
  const { handler, names } = entry;
  const name = `${snakeCase(handlerBase(version, entry))}_on_${cause}`;
  const text = pyStubText(t, {
    id: handler.id,
    cause,
    feeds: docstringText(feedsLine(handler)),
    functionName: name,
    definition: pyName(names.definition),
    register: `on_${cause}`,
    spec: kwargs.spec,
    resourceStatus: kwargs.status,
    status: pyName(names.status),
    temporaryError: pyName(names.temporaryError),
    permanentError: pyName(names.permanentError),
    module,
    result: hasFreeTextPhase(handler.status) ? '{"phase": "NotImplemented"}' : 'None',
  });
  return { name, handlerId: handler.id, cause, definition: pyName(names.definition), text };
}
