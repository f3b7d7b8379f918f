/**
 * The handler section of a resource module: per handler, its branded status type, its
 * TemporaryError/PermanentError subclasses and its `defineHandler` constant.
 *
 * The brand (`readonly [handlerStatus]?: "<group>/<Kind>/<id>"`) is optional and never present
 * at run time; it only makes one handler's status type unassignable to another's, so passing
 * `cleanup`'s status to `myapp`'s error class is a compile error even when the shapes agree.
 */
import type { CrdModel, HandlerModel, VersionModel } from '../model/ir.js';
import { nameChildren } from '../model/naming.js';
import { pascal } from '../model/reserved.js';
import { stringLiteral } from './ident.js';
import { pushJsDoc } from './jsdoc.js';
import { pushMembers, pushNestedInterfaces, typeExpr, type TypeUsage } from './type-expr.js';

export interface HandlerSectionInput {
  crd: CrdModel;
  version: VersionModel;
  /** The module's type prefix (e.g. `MyResource`, or `MyResourceV1beta1` for a non-storage version). */
  prefix: string;
  /** Name of the resource interface and of the descriptor constant in this module. */
  resourceType: string;
  descriptor: string;
  /** Claims a module-unique exported name: returns `base`, or `base` with a numeric suffix if taken. */
  uniqueName(base: string): string;
}

export interface HandlerSection {
  /** Value imports needed from `kopfgen/runtime` (e.g. `TemporaryError`). */
  runtimeImports: string[];
  /** Type-only imports needed from `kopfgen/runtime`. */
  runtimeTypeImports: string[];
  text: string;
  /** Names `index.ts` re-exports. */
  exports: { name: string; typeOnly: boolean }[];
}

export function emitHandlerSection(input: HandlerSectionInput): HandlerSection {
  const handlers = input.version.handlers;
  if (handlers.length === 0) return { runtimeImports: [], runtimeTypeImports: [], text: '', exports: [] };
  const out: string[] = [];
  const usage: TypeUsage = { kubernetesObject: false, objectMeta: false };
  const exports: HandlerSection['exports'] = [];
  for (const handler of handlers) {
    const names = claimNames(input, handler);
    handler.names = names;
    if (out.length > 0) out.push('\n');
    pushStatus(out, input, handler, usage);
    pushErrors(out, handler);
    pushDefinition(out, input, handler);
    exports.push(
      { name: names.status, typeOnly: true },
      { name: names.temporaryError, typeOnly: false },
      { name: names.permanentError, typeOnly: false },
      { name: names.definition, typeOnly: false },
    );
  }
  const runtimeTypeImports = [...(usage.kubernetesObject ? ['KubernetesObject'] : []), ...(usage.objectMeta ? ['ObjectMeta'] : [])];
  // Only object statuses carry the brand; an unused import would trip `noUnusedLocals` in users' builds.
  const branded = handlers.some((h) => h.status.type === 'object');
  const runtimeImports = ['PermanentError', 'TemporaryError', 'defineHandler', ...(branded ? ['handlerStatus'] : [])];
  return { runtimeImports, runtimeTypeImports, text: out.join(''), exports };
}

/** `create_fn` → `CreateFn`, `my-app` → `MyApp`, `a.b` → `AB`; collisions get a numeric suffix. */
function claimNames(input: HandlerSectionInput, handler: HandlerModel): NonNullable<HandlerModel['names']> {
  const base = input.uniqueName(input.prefix + pascal(handler.id));
  return {
    definition: base,
    status: input.uniqueName(base + 'Status'),
    temporaryError: input.uniqueName(base + 'TemporaryError'),
    permanentError: input.uniqueName(base + 'PermanentError'),
  };
}

function brandOf(crd: CrdModel, handler: HandlerModel): string {
  return `${crd.group}/${crd.kind}/${handler.id}`;
}

function columnsLine(handler: HandlerModel): string {
  if (handler.columns.length === 0) return 'No printer column shows it.';
  const list = handler.columns.map((c) => `\`${c.name}\` (\`${c.jsonPath}\`)`).join(', ');
  return `Printer column${handler.columns.length > 1 ? 's' : ''} fed: ${list}.`;
}

function pushStatus(out: string[], input: HandlerSectionInput, handler: HandlerModel, usage: TypeUsage): void {
  const names = handler.names!;
  const origin = handler.synthesized ? 'Synthesised from the printer columns (the CRD keeps status open); other keys are allowed.' : `Typed by the CRD schema at \`status.${handler.id}\`.`;
  pushJsDoc(out, '', `Status of handler \`${handler.id}\` of ${input.crd.kind}: what its callbacks return and what its errors carry, merged into \`status.${handler.id}\`.\n${columnsLine(handler)}\n${origin}`, undefined);
  const brand = `  readonly [handlerStatus]?: ${stringLiteral(brandOf(input.crd, handler))};\n`;
  const status = handler.status;
  if (status.type !== 'object') {
    // A scalar or list cannot carry a brand: the alias is exact but not handler-specific.
    out.push(`export type ${names.status} = ${typeExpr(status)};\n`);
    return;
  }
  if (status.typeName) {
    out.push(`export interface ${names.status} extends ${status.typeName} {\n${brand}}\n`);
    return;
  }
  // Not reachable from the schema (no status object to insert into): this section names and emits it.
  nameChildren(status, names.status, input.uniqueName);
  out.push(`export interface ${names.status} {\n`);
  pushMembers(out, status);
  out.push(brand, '}\n');
  pushNestedInterfaces(out, status, usage);
}

function pushErrors(out: string[], handler: HandlerModel): void {
  const names = handler.names!;
  out.push('\n');
  pushJsDoc(out, '', `Handler \`${handler.id}\` failed for now and is retried (after \`delay\` seconds, or its backoff); \`status\` is merged into \`status.${handler.id}\` like a return value.\n@example throw new ${names.temporaryError}("waiting for the database", { delay: 30, status: { ... } });`, undefined);
  out.push(`export class ${names.temporaryError} extends TemporaryError<${names.status}> {}\n\n`);
  pushJsDoc(out, '', `Handler \`${handler.id}\` failed for good: not retried for this cause; \`status\` is still merged into \`status.${handler.id}\`.`, undefined);
  out.push(`export class ${names.permanentError} extends PermanentError<${names.status}> {}\n`);
}

function pushDefinition(out: string[], input: HandlerSectionInput, handler: HandlerModel): void {
  const names = handler.names!;
  out.push('\n');
  pushJsDoc(
    out,
    '',
    `Handler \`${handler.id}\` of ${input.crd.kind}: register callbacks with \`.onCreate(fn)\`, \`.onUpdate(fn)\`, \`.onResume(fn)\`, \`.onDelete(fn)\` or \`.onField("spec.x", fn)\`. Each returns ${names.status} (merged into \`status.${handler.id}\`) or nothing.\n${columnsLine(handler)}`,
    undefined,
  );
  out.push(`export const ${names.definition} = defineHandler<${input.resourceType}, ${names.status}>(${input.descriptor}, ${stringLiteral(handler.id)});\n`);
}
