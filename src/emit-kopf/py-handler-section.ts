/**
 * The handler section of a Python resource module: per handler its status TypedDict, its
 * TemporaryError/PermanentError subclasses (whose keyword `status` has that type) and its
 * registration helper, a `kopfgen.Handler` whose `on_create()` & co. wrap `kopf.on.create(…,
 * id=…)` and merge a raised error's `status` into `status.<id>` (the package's `kopfgen.py`).
 *
 * Python has no brand: TypedDicts are structural, so one handler's status is another's when
 * their keys and types agree. A status of different keys is an error, as in TypeScript.
 */
import type { CrdModel, HandlerModel } from '../model/ir.js';
import type { NamedHandler, NamedVersion } from '../model/naming.js';
import type { ViewNames } from '../emit/type-expr.js';
import { pushDocstring } from './py-docs.js';
import { pyName, pyString } from './py-names.js';
import {
  isMapLike,
  objectMembers,
  pushAlias,
  pushNestedTypedDicts,
  pushTypedDict,
  pyTypeExpr,
  type PyImports,
} from './py-type-expr.js';

/** What a handler's kwargs and registration are typed by: the resource, its spec and status, the handler's status. */
export interface HandlerTypes {
  body: string;
  spec: string;
  status: string;
}

/**
 * The types kopf's `body`, `spec` and `status` kwargs have for this version. kopf passes `spec`
 * and `status` as mappings even when the object has none, so they are never Optional; a version
 * whose schema lacks one gets `Dict[str, Any]`.
 */
export function handlerTypes(named: NamedVersion, views: ViewNames, imports: PyImports): HandlerTypes {
  const schema = named.version.schema;
  const member = (key: string): string => {
    const prop = schema?.properties.find((p) => p.name === key);
    if (prop === undefined) return `${imports.use('Dict')}[str, ${imports.use('Any')}]`;
    const node = { ...prop.schema, nullable: false };
    const name = prop.schema.type === 'object' ? views.read.get(prop.schema) : undefined;
    return name !== undefined ? pyName(name) : pyTypeExpr(node, views.read, imports);
  };
  return { body: pyName(named.names.resource), spec: member('spec'), status: member('status') };
}

export interface PyHandlerSection {
  text: string;
  /** Names `__init__.py` re-exports. */
  exports: string[];
}

export function emitPyHandlerSection(
  crd: CrdModel,
  named: NamedVersion,
  views: ViewNames,
  types: HandlerTypes,
  imports: PyImports,
): PyHandlerSection {
  const out: string[] = [];
  const exports: string[] = [];
  for (const handler of named.handlers) {
    const names = {
      status: pyName(handler.names.status),
      temporaryError: pyName(handler.names.temporaryError),
      permanentError: pyName(handler.names.permanentError),
      definition: pyName(handler.names.definition),
    };
    pushStatus(out, crd, views, handler, names.status, imports);
    pushErrors(out, handler.handler, names);
    pushDefinition(out, crd, named, handler.handler, names, types);
    exports.push(names.status, names.temporaryError, names.permanentError, names.definition);
  }
  return { text: out.join(''), exports };
}

function columnsLine(handler: HandlerModel): string {
  if (handler.columns.length === 0) return 'No printer column shows it.';
  const list = handler.columns.map((c) => `\`${c.name}\` (\`${c.jsonPath}\`)`).join(', ');
  return `Printer column${handler.columns.length > 1 ? 's' : ''} fed: ${list}.`;
}

function pushStatus(
  out: string[],
  crd: CrdModel,
  views: ViewNames,
  entry: NamedHandler,
  name: string,
  imports: PyImports,
): void {
  const { handler, shape } = entry;
  const doc = [
    `Status of handler \`${handler.id}\` of ${crd.kind}: what its functions return and what its errors carry, merged into \`status.${handler.id}\`.`,
    columnsLine(handler),
    handler.synthesized
      ? 'Synthesised from the printer columns (the CRD keeps status open): other keys are not typed.'
      : `Typed by the CRD schema at \`status.${handler.id}\`.`,
  ];
  const status = handler.status;
  if (status.type !== 'object' || shape.kind === 'alias') {
    // A scalar or list status: an alias, exact but not handler-specific.
    return pushAlias(out, name, pyTypeExpr(status, views.write, imports), imports, doc);
  }
  if (shape.kind === 'extends' && isMapLike(status)) {
    // The schema's type is an alias of a map: a TypedDict cannot extend it, so the status is that alias too.
    return pushAlias(out, name, pyName(views.input.get(status) ?? shape.schemaType), imports, doc);
  }
  if (shape.kind === 'extends') {
    const base = pyName(views.input.get(status) ?? shape.schemaType);
    out.push(`\n\nclass ${name}(${base}):\n`);
    pushDocstring(out, '    ', doc);
    return;
  }
  // Not reachable from the schema (no status object to insert into): this section declares it.
  pushNestedTypedDicts(out, status, views, imports);
  if (isMapLike(status)) return pushAlias(out, name, pyTypeExpr(status, views.write, imports), imports, doc);
  pushTypedDict(out, name, objectMembers(status, views.write, imports, 'write'), imports, doc);
}

function pushErrors(
  out: string[],
  handler: HandlerModel,
  names: { status: string; temporaryError: string; permanentError: string },
): void {
  out.push(`\n\nclass ${names.temporaryError}(kopfgen.TemporaryError[${names.status}]):\n`);
  pushDocstring(out, '    ', [
    `Handler \`${handler.id}\` failed for now: kopf retries it after \`delay\` seconds (default 60); \`status\` is merged into \`status.${handler.id}\` like a return value.`,
    `Example: raise ${names.temporaryError}("waiting for the database", delay=30, status={...})`,
  ]);
  out.push(`\n\nclass ${names.permanentError}(kopfgen.PermanentError[${names.status}]):\n`);
  pushDocstring(out, '    ', [
    `Handler \`${handler.id}\` failed for good: kopf does not retry it for this cause; \`status\` is still merged into \`status.${handler.id}\`.`,
  ]);
}

function pushDefinition(
  out: string[],
  crd: CrdModel,
  named: NamedVersion,
  handler: HandlerModel,
  names: { status: string; temporaryError: string; permanentError: string; definition: string },
  types: HandlerTypes,
): void {
  const args = [types.body, types.spec, types.status, names.status].join(', ');
  out.push(
    `\n\n${names.definition} = kopfgen.Handler[${args}](\n    ${pyName(named.names.descriptor)}, ${pyString(handler.id)}\n)\n`,
  );
  pushDocstring(out, '', [
    `Handler \`${handler.id}\` of ${crd.kind}: decorate a function with \`@${names.definition}.on_create()\`, \`.on_update()\`, \`.on_resume()\`, \`.on_delete()\`, \`.on_field(field="spec.x")\`, \`.timer(interval=60)\` or \`.daemon()\` (kopf's decorators, with \`id="${handler.id}"\`).`,
    `It returns ${names.status} (merged into \`status.${handler.id}\`) or None; the \`status\` of a ${names.temporaryError} or ${names.permanentError} it raises is merged there too.`,
    columnsLine(handler),
  ]);
}
