/**
 * One served version of one CRD → one Python module, `<group>/<version>/<plural>.py` of the
 * generated package: the module constants kopf selects the resource by (GROUP, VERSION, PLURAL,
 * KIND), a TypedDict per named object node (the TypeScript target's names), the resource's
 * TypedDict and its `kopfgen.Resource` descriptor, and the handler section. Types are declared
 * before use (children first), since Python evaluates a class body where it stands.
 */
import type { CrdModel } from '../model/ir.js';
import { IMPLIED_MEMBERS, type NamedVersion } from '../model/naming.js';
import { optionalIn, viewNames, type ViewNames } from '../emit/type-expr.js';
import { topLevelTypeNames, withOptionalStatus, type EmittedModule } from '../emit/module.js';
import { pyHeaderLine } from '../emit/header.js';
import { pushDocstring } from './py-docs.js';
import { emitPyHandlerSection, handlerTypes } from './py-handler-section.js';
import { moduleSegment, pyName, pyString } from './py-names.js';
import {
  OBJECT_META,
  objectMembers,
  pushNestedTypedDicts,
  pushTypedDict,
  PyImports,
  writeDocLine,
  type PyMember,
} from './py-type-expr.js';

/** The module's path in the package: `<group package>/<version>/<plural>.py`. */
export function pyModulePath(groupPackage: string, version: string, plural: string): string {
  return `${groupPackage}/${moduleSegment(version)}/${moduleSegment(plural)}.py`;
}

export function emitPyModule(crd: CrdModel, named: NamedVersion, groupPackage: string): EmittedModule {
  const { version, names } = named;
  const imports = new PyImports();
  const views = viewNames(named.types, named.inputTypes);
  const body: string[] = [];
  const schema = version.schema;
  if (schema) pushNestedTypedDicts(body, schema, views, imports, IMPLIED_MEMBERS);
  const input = schema ? named.inputTypes.get(schema) : undefined;
  pushResource(body, crd, named, pyName(names.resource), views, imports, 'read');
  if (input !== undefined) pushResource(body, crd, named, pyName(input), views, imports, 'write');
  const types = handlerTypes(named, views, imports);
  const descriptor = pyName(names.descriptor);
  body.push(
    `\n\n${descriptor} = kopfgen.Resource[${types.body}, ${types.spec}, ${types.status}](GROUP, VERSION, PLURAL, KIND)\n`,
  );
  pushDocstring(body, '', [`What kopf selects for ${crd.kind} ${crd.group}/${version.name}.`]);
  const handlers = emitPyHandlerSection(crd, named, views, types, imports);
  body.push(handlers.text);
  const head = [
    pyHeaderLine(crd.file),
    `"""${crd.kind} (${crd.group}/${version.name}) from the CRD ${crd.name}: its types${named.handlers.length > 0 ? ", its handlers' statuses, errors and registration helpers" : ''}."""\n`,
    importLines(imports),
    '\nfrom ... import kopfgen\n',
    `\nGROUP = ${pyString(crd.group)}\nVERSION = ${pyString(version.name)}\nPLURAL = ${pyString(crd.plural)}\nKIND = ${pyString(crd.kind)}\n`,
  ];
  return {
    file: {
      path: pyModulePath(groupPackage, version.name, crd.plural),
      content: head.join('') + body.join(''),
      role: 'generated',
    },
    exports: [
      pyName(names.resource),
      ...(input === undefined ? [] : [pyName(input)]),
      descriptor,
      ...topLevelTypeNames(schema, views).map(pyName),
      ...handlers.exports,
    ].map((name) => ({ name, typeOnly: false })),
  };
}

/** `typing`, then `typing_extensions` (a third-party module: its own block, as isort orders them). */
function importLines(imports: PyImports): string {
  const blocks: string[] = [];
  if (imports.typing.size > 0) blocks.push(`from typing import ${[...imports.typing].sort().join(', ')}\n`);
  if (imports.extensions.size > 0)
    blocks.push(`from typing_extensions import ${[...imports.extensions].sort().join(', ')}\n`);
  return blocks.map((b) => '\n' + b).join('');
}

/**
 * The resource TypedDict in one view: literal apiVersion and kind, ObjectMeta, the schema's
 * members; status is always optional (controllers write it, not whoever creates the object).
 */
function pushResource(
  out: string[],
  crd: CrdModel,
  { version, names }: NamedVersion,
  name: string,
  views: ViewNames,
  imports: PyImports,
  view: 'read' | 'write',
): void {
  const apiVersion = `${crd.group}/${version.name}`;
  const literal = imports.use('Literal');
  const schema = version.schema;
  const metadata = schema?.properties.find((p) => p.name === 'metadata');
  const members: PyMember[] = [
    { key: 'apiVersion', type: `${literal}[${pyString(apiVersion)}]`, required: true, doc: [] },
    { key: 'kind', type: `${literal}[${pyString(crd.kind)}]`, required: true, doc: [] },
    {
      key: 'metadata',
      type: OBJECT_META,
      required: metadata !== undefined && !optionalIn(view, metadata),
      doc: [],
    },
  ];
  if (schema) {
    const types = view === 'read' ? views.read : views.write;
    members.push(...objectMembers(withOptionalStatus(schema), types, imports, view, IMPLIED_MEMBERS));
  }
  const deprecated = version.deprecated
    ? [`Deprecated: ${version.deprecationWarning ?? `${apiVersion} ${crd.kind} is deprecated`}`]
    : [];
  const description =
    view === 'write'
      ? writeDocLine(pyName(names.resource))
      : (schema?.description ?? `${crd.kind} (${apiVersion}), from the CRD ${crd.name}.`);
  pushTypedDict(out, name, members, imports, [...description.trim().split('\n'), ...deprecated]);
}
