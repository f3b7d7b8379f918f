/**
 * The conversion stub file of a multi-version CRD, `<plural>.conversion.ts` beside its handler stubs:
 * per spoke version a `toHub` and a `fromHub` function typed by the generated signatures, and the
 * registration of the pair (`<Kind>Conversion.register("v1alpha1", { toHub, fromHub })`). The functions
 * are declarations with a declared return type (`ConversionResult<Target>`), not arrows typed by an
 * alias: TypeScript checks a `return`ed object literal against a declared return type for unknown keys
 * (which the API server would prune), but not an arrow's body against its contextual type. Like the
 * handler stubs, the file is the user's: a version added to the CRD appends its functions and
 * registration; a spoke registered anywhere in the stubs directory is never added again (the scan
 * keys a registration as `<Kind>Conversion.<version>`). A stub throws until written, so the API
 * server reports the conversion as not implemented rather than storing a wrong object.
 */
import type { GeneratedFile, StubEntry } from '../api.js';
import { writeName, type NamedConversion, type NamedSpoke } from '../model/conversion-naming.js';
import type { CrdModel } from '../model/ir.js';
import { importLines } from './stub-files.js';

/** `widgets.ts` → `widgets.conversion.ts`: beside the kind's handler stubs. */
export function conversionStubPath(handlerStubPath: string): string {
  return handlerStubPath.replace(/\.ts$/, '.conversion.ts');
}

/** The key the scan gives a spoke's registration (`WidgetConversion.v1alpha1`). */
export function conversionKey(definition: string, version: string): string {
  return `${definition}.${version}`;
}

function spokeStub(crd: CrdModel, conversion: NamedConversion, spoke: NamedSpoke): StubEntry {
  const hub = conversion.hub.version.name;
  const version = spoke.version.version.name;
  const text =
    `/** ${crd.kind} ${version} → ${hub}: every required field of ${hub} is demanded; metadata, apiVersion and kind are kept. */\n` +
    `export function ${spoke.toHubFunction}(from: ${spoke.version.names.resource}): ConversionResult<${writeName(conversion.hub)}> {\n` +
    `  throw new Error(\`conversion of \${from.metadata?.name} from ${version} to ${hub} is not implemented yet\`);\n` +
    `}\n\n` +
    `/** ${crd.kind} ${hub} → ${version}. */\n` +
    `export function ${spoke.fromHubFunction}(hub: ${conversion.hub.names.resource}): ConversionResult<${writeName(spoke.version)}> {\n` +
    `  throw new Error(\`conversion of \${hub.metadata?.name} from ${hub} to ${version} is not implemented yet\`);\n` +
    `}\n\n` +
    `${conversion.definition}.register(${JSON.stringify(version)}, { toHub: ${spoke.toHubFunction}, fromHub: ${spoke.fromHubFunction} });\n`;
  return {
    name: spoke.toHubFunction,
    handlerId: `conversion ${version}`,
    cause: 'convert',
    definition: conversionKey(conversion.definition, version),
    text,
  };
}

/**
 * The stub file at `path`; `base` is the generated directory as the stubs directory imports it
 * (`../generated`).
 */
export function emitConversionStubFile(
  crd: CrdModel,
  conversion: NamedConversion,
  path: string,
  base: string,
): GeneratedFile {
  const importPath = `${base}/${conversion.module}.js`;
  const versionImports = [conversion.hub, ...conversion.spokes.map((s) => s.version)].flatMap((v) =>
    [...new Set([v.names.resource, writeName(v)])].map((name) => ({
      module: `${base}/${v.names.module}.js`,
      name,
      typeOnly: true,
    })),
  );
  const head =
    `/**\n` +
    ` * Conversion between the versions of ${crd.kind} (${crd.name}), hub and spoke: ${conversion.hub.version.name}, the\n` +
    ` * storage version, is the hub; each other version converts to it and back. The operator serves these at\n` +
    ` * /convert/${crd.name} (kopfgen run); check them with roundTrip() from kopfgen/testing.\n` +
    ` *\n` +
    ` * This file is yours: kopfgen adds the functions of a version the CRD gains and never rewrites yours.\n` +
    ` */\n`;
  const stubs = conversion.spokes.map((spoke) => spokeStub(crd, conversion, spoke));
  const imports = importLines([
    { module: 'kopfgen/runtime', name: 'ConversionResult', typeOnly: true },
    { module: importPath, name: conversion.definition, typeOnly: false },
    ...versionImports,
  ]);
  return { path, content: head + imports + stubs.map((s) => '\n' + s.text).join(''), role: 'stub', stubs };
}
