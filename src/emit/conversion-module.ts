/**
 * A multi-version CRD's conversion output, and the schema data of every CRD the operator owns, from the
 * conversion pass's names (model/conversion-naming.ts):
 *
 * - `<group>/<plural>.conversion.ts`: per spoke version the signatures to and from the hub (the
 *   storage version), `ConversionFn<From, To>` with the source's read view and the target's write
 *   view, so the compiler demands every required field of the target; the interface of every spoke's
 *   functions; and the `defineConversion` constant the user's conversion file registers them with.
 * - `<group>/<plural>.schemas.ts`: every served version's structural schema as one JSON string (see
 *   `schemaData`), which `kopfgen/testing` (object builders, the fake client, the round trip) parses at run time: a string costs
 *   the type-checker nothing (a literal object type of a whole schema would), and nothing imports it
 *   but the code that needs it (not `index.ts`), so an operator never loads it.
 */
import type { GeneratedFile } from '../api.js';
import { writeName, type NamedConversion, type NamedSchemaData } from '../model/conversion-naming.js';
import type { CrdModel, SchemaNode } from '../model/ir.js';
import type { NamedVersion } from '../model/naming.js';
import { headerLine } from './header.js';
import { propertyKey, stringLiteral } from './ident.js';
import { pushJsDoc } from './jsdoc.js';
import type { EmittedModule } from './module.js';

/** `./v1/widgets.js` from `example.com/widgets.conversion.ts`. */
function relativeImport(version: NamedVersion): string {
  return `./${version.names.module.slice(version.names.module.indexOf('/') + 1)}.js`;
}

export function emitConversionModule(crd: CrdModel, conversion: NamedConversion): EmittedModule {
  const { hub, spokes } = conversion;
  const out: string[] = [headerLine(crd.file)];
  out.push('import { defineConversion } from "kopfgen/runtime";\n');
  out.push('import type { ConversionFn } from "kopfgen/runtime";\n');
  for (const version of [hub, ...spokes.map((s) => s.version)]) {
    const types = [...new Set([version.names.resource, writeName(version)])];
    out.push(
      `import { ${version.names.descriptor}, ${types.map((t) => `type ${t}`).join(', ')} } from ${stringLiteral(relativeImport(version))};\n`,
    );
  }
  const hubName = `${crd.group}/${hub.version.name}`;
  for (const spoke of spokes) {
    const spokeName = `${crd.group}/${spoke.version.version.name}`;
    out.push('\n');
    pushJsDoc(
      out,
      '',
      `${crd.kind} ${spokeName} → ${hubName} (the storage version, the hub). Return the ${hub.version.name} object: every required field of ${hub.version.name} is demanded; \`apiVersion\`, \`kind\` and \`metadata\` are kept by the runtime (return \`metadata.labels\`/\`annotations\` to change those).`,
      undefined,
    );
    out.push(`export type ${spoke.toHub} = ConversionFn<${spoke.version.names.resource}, ${writeName(hub)}>;\n\n`);
    pushJsDoc(out, '', `${crd.kind} ${hubName} (the hub) → ${spokeName}.`, undefined);
    out.push(`export type ${spoke.fromHub} = ConversionFn<${hub.names.resource}, ${writeName(spoke.version)}>;\n`);
  }
  out.push('\n');
  pushJsDoc(out, '', `The conversion functions of ${crd.kind}, one pair per spoke version.`, undefined);
  out.push(`export interface ${conversion.conversions} {\n`);
  for (const spoke of spokes)
    out.push(`  ${propertyKey(spoke.version.version.name)}: { toHub: ${spoke.toHub}; fromHub: ${spoke.fromHub} };\n`);
  out.push('}\n\n');
  pushJsDoc(
    out,
    '',
    `The conversion of ${crd.name}: register each spoke's functions with \`.register("<version>", { toHub, fromHub })\`; the operator serves them at \`/convert/${crd.name}\`.`,
    undefined,
  );
  const spokeDescriptors = spokes
    .map((s) => `${propertyKey(s.version.version.name)}: ${s.version.names.descriptor}`)
    .join(', ');
  out.push(
    `export const ${conversion.definition} = defineConversion<${conversion.conversions}>(${hub.names.descriptor}, { ${spokeDescriptors} });\n`,
  );
  return {
    file: { path: `${conversion.module}.ts`, content: out.join(''), role: 'generated' },
    exports: [
      ...spokes.flatMap((s) => [
        { name: s.toHub, typeOnly: true },
        { name: s.fromHub, typeOnly: true },
      ]),
      { name: conversion.conversions, typeOnly: true },
      { name: conversion.definition, typeOnly: false },
    ],
  };
}

/**
 * A schema node as JSON Schema again (the CRD's structural subset): types, properties, `required`,
 * items, maps, enums, nullability, the `x-kubernetes-*` shapes, and the value constraints that decide
 * which objects are valid (bounds, lengths, item and property counts, pattern, format, default, the
 * CEL validation rules). Descriptions and examples are
 * left out: the data is for generating and checking objects, not for reading.
 */
export function schemaData(node: SchemaNode): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const d = node.doc;
  switch (node.type) {
    case 'object':
      out.type = 'object';
      if (node.properties.length > 0) {
        out.properties = Object.fromEntries(node.properties.map((p) => [p.name, schemaData(p.schema)]));
        const required = node.properties.filter((p) => p.required).map((p) => p.name);
        if (required.length > 0) out.required = required;
      }
      if (node.additionalProperties !== undefined)
        out.additionalProperties = node.additionalProperties === 'any' ? true : schemaData(node.additionalProperties);
      if (node.preserveUnknownFields) out['x-kubernetes-preserve-unknown-fields'] = true;
      if (node.embeddedResource) out['x-kubernetes-embedded-resource'] = true;
      break;
    case 'array':
      out.type = 'array';
      if (node.items) out.items = schemaData(node.items);
      if (node.listType) out['x-kubernetes-list-type'] = node.listType;
      if (node.listMapKeys) out['x-kubernetes-list-map-keys'] = node.listMapKeys;
      if (node.preserveUnknownFields) out['x-kubernetes-preserve-unknown-fields'] = true;
      break;
    case 'int-or-string':
      out['x-kubernetes-int-or-string'] = true;
      break;
    case 'unknown':
      out['x-kubernetes-preserve-unknown-fields'] = true;
      break;
    default:
      out.type = node.type;
      if (node.enum) out.enum = node.enum;
  }
  if (node.nullable) out.nullable = true;
  for (const key of [
    'format',
    'default',
    'minimum',
    'maximum',
    'minLength',
    'maxLength',
    'minItems',
    'maxItems',
    'minProperties',
    'maxProperties',
    'pattern',
  ] as const)
    if (d[key] !== undefined) out[key] = d[key];
  if (d.exclusiveMinimum) out.exclusiveMinimum = true;
  if (d.exclusiveMaximum) out.exclusiveMaximum = true;
  if (d.validations && d.validations.length > 0) out['x-kubernetes-validations'] = d.validations;
  return out;
}

/** The schema data module: `{"kopfgen":1, crd, group, kind, plural, scope, storage, versions: {name: schema}}` as one string. */
export function emitSchemaModule(crd: CrdModel, names: NamedSchemaData): GeneratedFile {
  const versions = names.versions;
  const data = {
    kopfgen: 1,
    crd: crd.name,
    group: crd.group,
    kind: crd.kind,
    plural: crd.plural,
    scope: crd.scope,
    storage: names.storage.version.name,
    versions: Object.fromEntries(
      versions.map((v) => [v.version.name, v.version.schema ? schemaData(v.version.schema) : {}]),
    ),
  };
  const out: string[] = [headerLine(crd.file)];
  out.push('import { objectBuilder } from "kopfgen/testing";\n');
  for (const { version } of names.builders)
    out.push(`import { ${version.names.descriptor} } from ${stringLiteral(relativeImport(version))};\n`);
  out.push('\n');
  pushJsDoc(
    out,
    '',
    `The structural schema of every served version of ${crd.name}, as JSON text: parse it where it is needed (\`objectBuilder\`, \`fakeClient\`, \`roundTrip\` and \`sampleObject\` of \`kopfgen/testing\` take it as it is). Format: kopfgen's docs/topics/conversion.md, "Schema data".`,
    undefined,
  );
  out.push(`export const ${names.schemaText}: string = ${stringLiteral(JSON.stringify(data))};\n`);
  for (const { version, name } of names.builders) {
    out.push('\n');
    pushJsDoc(
      out,
      '',
      `The smallest valid ${crd.kind} (${crd.group}/${version.version.name}): every required field at the least value its schema allows, the server's defaults filled in; what you pass (a deep partial of ${version.names.resource}) is merged over it. For tests (\`kopfgen/testing\`).`,
      undefined,
    );
    out.push(`export const ${name} = objectBuilder(${version.names.descriptor}, ${names.schemaText});\n`);
  }
  return { path: `${names.module}.ts`, content: out.join(''), role: 'generated' };
}
