/**
 * The handler section of a resource module: per handler, its branded status type, its
 * TemporaryError/PermanentError subclasses and its `defineHandler` constant.
 *
 * The brand (`readonly [handlerStatus]?: "<group>/<Kind>/<id>"`) is optional and never present
 * at run time; it only makes one handler's status type unassignable to another's, so passing
 * `cleanup`'s status to `myapp`'s error class is a compile error even when the shapes agree.
 */
import type { CrdModel, HandlerModel } from '../model/ir.js';
import type { NamedHandler, NamedVersion } from '../model/naming.js';
import { stringLiteral } from './ident.js';
import { pushJsDoc } from './jsdoc.js';
import { pushMembers, pushNestedInterfaces, typeExpr, viewNames, type TypeUsage, type ViewNames } from './type-expr.js';

export interface HandlerSection {
  /** Value imports needed from `kopfgen/runtime` (e.g. `TemporaryError`). */
  runtimeImports: string[];
  /** Type-only imports needed from `kopfgen/runtime`. */
  runtimeTypeImports: string[];
  text: string;
  /** Names `index.ts` re-exports. */
  exports: { name: string; typeOnly: boolean }[];
}

/**
 * A handler's status is what its callbacks return and its errors carry: written by the user, so
 * typed in the write view (`views`, defaulting to the version's own names).
 */
export function emitHandlerSection(
  crd: CrdModel,
  named: NamedVersion,
  views: ViewNames = viewNames(named.types, named.inputTypes),
): HandlerSection {
  const handlers = named.handlers;
  if (handlers.length === 0) return { runtimeImports: [], runtimeTypeImports: [], text: '', exports: [] };
  const out: string[] = [];
  const usage: TypeUsage = { kubernetesObject: false, objectMeta: false };
  const exports: HandlerSection['exports'] = [];
  for (const handler of handlers) {
    const { names } = handler;
    if (out.length > 0) out.push('\n');
    pushStatus(out, crd, views, handler, usage);
    pushErrors(out, handler);
    pushDefinition(out, crd, named, handler);
    exports.push(
      { name: names.status, typeOnly: true },
      { name: names.temporaryError, typeOnly: false },
      { name: names.permanentError, typeOnly: false },
      { name: names.definition, typeOnly: false },
    );
  }
  const runtimeTypeImports = [
    ...(usage.kubernetesObject ? ['KubernetesObject'] : []),
    ...(usage.objectMeta ? ['ObjectMeta'] : []),
  ];
  // Only object statuses carry the brand; an unused import would trip `noUnusedLocals` in users' builds.
  const branded = handlers.some((h) => h.handler.status.type === 'object');
  const runtimeImports = ['PermanentError', 'TemporaryError', 'defineHandler', ...(branded ? ['handlerStatus'] : [])];
  return { runtimeImports, runtimeTypeImports, text: out.join(''), exports };
}

function brandOf(crd: CrdModel, handler: HandlerModel): string {
  return `${crd.group}/${crd.kind}/${handler.id}`;
}

function columnsLine(handler: HandlerModel): string {
  if (handler.columns.length === 0) return 'No printer column shows it.';
  const list = handler.columns.map((c) => `\`${c.name}\` (\`${c.jsonPath}\`)`).join(', ');
  return `Printer column${handler.columns.length > 1 ? 's' : ''} fed: ${list}.`;
}

function pushStatus(out: string[], crd: CrdModel, views: ViewNames, entry: NamedHandler, usage: TypeUsage): void {
  const { handler, names, shape } = entry;
  const origin = handler.synthesized
    ? 'Synthesised from the printer columns (the CRD keeps status open); other keys are allowed.'
    : `Typed by the CRD schema at \`status.${handler.id}\`.`;
  pushJsDoc(
    out,
    '',
    `Status of handler \`${handler.id}\` of ${crd.kind}: what its callbacks return and what its errors carry, merged into \`status.${handler.id}\`.\n${columnsLine(handler)}\n${origin}`,
    undefined,
  );
  const brand = `  readonly [handlerStatus]?: ${stringLiteral(brandOf(crd, handler))};\n`;
  const status = handler.status;
  if (status.type !== 'object' || shape.kind === 'alias') {
    // A scalar or list cannot carry a brand: the alias is exact but not handler-specific.
    out.push(`export type ${names.status} = ${typeExpr(status, views.write)};\n`);
    return;
  }
  if (shape.kind === 'extends') {
    out.push(`export interface ${names.status} extends ${views.input.get(status) ?? shape.schemaType} {\n${brand}}\n`);
    return;
  }
  // Not reachable from the schema (no status object to insert into): this section emits it.
  out.push(`export interface ${names.status} {\n`);
  pushMembers(out, status, views.write, undefined, [], 'write');
  out.push(brand, '}\n');
  pushNestedInterfaces(out, status, views, usage);
}

function pushErrors(out: string[], { handler, names }: NamedHandler): void {
  out.push('\n');
  pushJsDoc(
    out,
    '',
    `Handler \`${handler.id}\` failed for now and is retried (after \`delay\` seconds, or its backoff); \`status\` is merged into \`status.${handler.id}\` like a return value.\n@example throw new ${names.temporaryError}("waiting for the database", { delay: 30, status: { ... } });`,
    undefined,
  );
  out.push(`export class ${names.temporaryError} extends TemporaryError<${names.status}> {}\n\n`);
  pushJsDoc(
    out,
    '',
    `Handler \`${handler.id}\` failed for good: not retried for this cause; \`status\` is still merged into \`status.${handler.id}\`.`,
    undefined,
  );
  out.push(`export class ${names.permanentError} extends PermanentError<${names.status}> {}\n`);
}

function pushDefinition(out: string[], crd: CrdModel, named: NamedVersion, { handler, names }: NamedHandler): void {
  out.push('\n');
  pushJsDoc(
    out,
    '',
    `Handler \`${handler.id}\` of ${crd.kind}: register callbacks with \`.onCreate(fn)\`, \`.onUpdate(fn)\`, \`.onResume(fn)\`, \`.onDelete(fn)\`, \`.onField("spec.x", fn)\`, \`.onTimer(fn, { interval })\` or \`.onDaemon(fn)\`. Each returns ${names.status} (merged into \`status.${handler.id}\`) or nothing. \`.onEvent(fn)\` sees every raw watch event.\n${columnsLine(handler)}`,
    undefined,
  );
  const input = named.version.schema ? named.inputTypes.get(named.version.schema) : undefined;
  const typeArgs = [named.names.resource, names.status, ...(input === undefined ? [] : [input])].join(', ');
  out.push(
    `export const ${names.definition} = defineHandler<${typeArgs}>(${named.names.descriptor}, ${stringLiteral(handler.id)});\n`,
  );
}
