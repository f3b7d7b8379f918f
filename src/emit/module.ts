/**
 * One served version of one CRD → one module: the resource interface (literal apiVersion and
 * kind, metadata, spec, status), its `defineResource` descriptor, every named nested type, and
 * the handler section. Strings are pushed to one array and joined once.
 */
import type { GeneratedFile } from '../api.js';
import { emitHandlerSection, type HandlerSection } from './handler-section.js';
import type { CrdModel, ObjectNode, VersionModel } from '../model/ir.js';
import { IMPLIED_MEMBERS, type NamedVersion } from '../model/naming.js';
import { statusConditionFields, type StatusConditionFields } from '../model/status-conditions.js';
import { headerLine } from './header.js';
import { stringLiteral } from './ident.js';
import { pushJsDoc } from './jsdoc.js';
import {
  metadataMember,
  pushMembers,
  pushNestedInterfaces,
  viewNames,
  writeDoc,
  type TypeNames,
  type TypeUsage,
  type View,
  type ViewNames,
} from './type-expr.js';

export interface ModuleExport {
  name: string;
  typeOnly: boolean;
}

export interface EmittedModule {
  file: GeneratedFile;
  /** Names for `index.ts`: the resource, its descriptor, spec/status types and the handler exports. */
  exports: ModuleExport[];
}

export function emitModule(crd: CrdModel, named: NamedVersion): EmittedModule {
  const { version, names } = named;
  const usage: TypeUsage = { kubernetesObject: false, objectMeta: true };
  const body: string[] = [];
  const views = viewNames(named.types, named.inputTypes);
  const input = version.schema ? named.inputTypes.get(version.schema) : undefined;
  pushResource(body, crd, named, names.resource, views.read, 'read');
  if (input !== undefined) pushResource(body, crd, named, input, views.write, 'write');
  pushDescriptor(body, crd, named, input);
  if (version.schema) pushNestedInterfaces(body, version.schema, views, usage, IMPLIED_MEMBERS);
  const handlers = emitHandlerSection(crd, named, views);
  if (handlers.text) body.push('\n', handlers.text.endsWith('\n') ? handlers.text : handlers.text + '\n');
  const content = headerLine(crd.file) + imports(usage, handlers) + body.join('');
  return {
    file: { path: names.module + '.ts', content, role: 'generated' },
    exports: [
      { name: names.resource, typeOnly: true },
      ...(input === undefined ? [] : [{ name: input, typeOnly: true }]),
      { name: names.descriptor, typeOnly: false },
      ...topLevelTypeNames(version.schema, views).map((name) => ({ name, typeOnly: true })),
      ...handlers.exports,
    ],
  };
}

function imports(usage: TypeUsage, handlers: HandlerSection): string {
  const values = new Set(['defineResource', ...handlers.runtimeImports]);
  const types = new Set(handlers.runtimeTypeImports);
  if (usage.objectMeta) types.add('ObjectMeta');
  if (usage.kubernetesObject) types.add('KubernetesObject');
  for (const v of values) types.delete(v);
  let out = `import { ${[...values].sort().join(', ')} } from "kopfgen/runtime";\n`;
  if (types.size > 0) out += `import type { ${[...types].sort().join(', ')} } from "kopfgen/runtime";\n`;
  return out;
}

/**
 * The resource interface in one view: as read (`names.resource`), or as a user writes it
 * (`…Input`, only where a server default makes the two differ). Root-level `required` holds for
 * `metadata` and `spec` alike; `status` is always optional.
 */
function pushResource(
  out: string[],
  crd: CrdModel,
  { version, names }: NamedVersion,
  name: string,
  types: TypeNames,
  view: View,
): void {
  const apiVersion = `${crd.group}/${version.name}`;
  const deprecated = version.deprecated
    ? [`@deprecated ${version.deprecationWarning ?? `${apiVersion} ${crd.kind} is deprecated`}`]
    : [];
  out.push('\n');
  const description =
    view === 'write'
      ? writeDoc(names.resource)
      : (version.schema?.description ?? `${crd.kind} (${apiVersion}), from the CRD ${crd.name}.`);
  pushJsDoc(out, '', description, undefined, deprecated);
  out.push(`export interface ${name} {\n`);
  out.push(`  apiVersion: ${stringLiteral(apiVersion)};\n`);
  out.push(`  kind: ${stringLiteral(crd.kind)};\n`);
  const schema = version.schema;
  out.push(`  ${schema ? metadataMember(schema, view) : 'metadata?: ObjectMeta;'}\n`);
  if (schema)
    pushMembers(
      out,
      withOptionalStatus(schema),
      types,
      IMPLIED_MEMBERS,
      [stringLiteral(apiVersion), stringLiteral(crd.kind), 'ObjectMeta', 'undefined'],
      view,
    );
  else out.push('  [key: string]: unknown;\n');
  out.push('}\n');
}

/** Status is written by controllers, never by whoever creates the object: always optional. */
export function withOptionalStatus(schema: ObjectNode): ObjectNode {
  if (!schema.properties.some((p) => p.name === 'status' && p.required)) return schema;
  return { ...schema, properties: schema.properties.map((p) => (p.name === 'status' ? { ...p, required: false } : p)) };
}

/** `input`: the write view's name, when it differs (the runtime types a handler's `patch` by it). */
/**
 * Whether the runtime may keep its records in `status.kopfgen` (one `/status` write per handled
 * object): a status subresource, and a status schema in the CRD as written (not the copy holding
 * statuses synthesised from columns) that keeps unknown fields, so the API server does not prune them.
 */
function keepsStatusRecords(crd: CrdModel, version: VersionModel): boolean {
  if (!version.subresources.status) return false;
  const schema = crd.versions.find((v) => v.name === version.name)?.schema;
  if (!schema) return false;
  const status = schema.properties.find((p) => p.name === 'status')?.schema;
  if (status === undefined) return schema.preserveUnknownFields;
  return status.type === 'object' && status.preserveUnknownFields;
}

/** `conditions` and `observedGeneration` in the status schema as the CRD writes it (status-conditions.ts). */
function statusFieldsAsWritten(crd: CrdModel, version: VersionModel): StatusConditionFields {
  const written = crd.versions.find((v) => v.name === version.name) ?? version;
  return statusConditionFields(written);
}

function pushDescriptor(
  out: string[],
  crd: CrdModel,
  { version, names }: NamedVersion,
  input: string | undefined,
): void {
  out.push('\n');
  const deprecated = version.deprecated
    ? [`@deprecated ${version.deprecationWarning ?? 'this version is deprecated'}`]
    : [];
  pushJsDoc(out, '', `What the runtime watches for ${crd.kind} ${crd.group}/${version.name}.`, undefined, deprecated);
  out.push(
    `export const ${names.descriptor} = defineResource<${names.resource}${input === undefined ? '' : `, ${input}`}>({\n`,
  );
  out.push(`  group: ${stringLiteral(crd.group)},\n`);
  out.push(`  version: ${stringLiteral(version.name)},\n`);
  out.push(`  plural: ${stringLiteral(crd.plural)},\n`);
  out.push(`  kind: ${stringLiteral(crd.kind)},\n`);
  out.push(`  scope: ${stringLiteral(crd.scope)},\n`);
  out.push(`  statusSubresource: ${version.subresources.status},\n`);
  if (keepsStatusRecords(crd, version)) out.push('  statusRecords: true,\n');
  const fields = statusFieldsAsWritten(crd, version);
  if (fields.conditions) out.push('  statusConditions: true,\n');
  if (fields.observedGeneration) out.push('  statusObservedGeneration: true,\n');
  if (version.printerColumns.length === 0) out.push('  printerColumns: [],\n');
  else {
    out.push('  printerColumns: [\n');
    for (const c of version.printerColumns) {
      out.push(
        `    { name: ${stringLiteral(c.name)}, type: ${stringLiteral(c.type)}, jsonPath: ${stringLiteral(c.jsonPath)} },\n`,
      );
    }
    out.push('  ],\n');
  }
  out.push('});\n');
}

/** The named types directly under the root (spec, status, …) and their write views: what users import most. */
export function topLevelTypeNames(schema: ObjectNode | undefined, names: ViewNames): string[] {
  if (!schema) return [];
  const out: string[] = [];
  for (const p of schema.properties) {
    if (IMPLIED_MEMBERS.has(p.name) || p.schema.type !== 'object') continue;
    for (const name of [names.read.get(p.schema), names.input.get(p.schema)]) if (name !== undefined) out.push(name);
  }
  return out;
}
