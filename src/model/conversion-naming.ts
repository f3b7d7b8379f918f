/**
 * The conversion pass: after naming, it decides whether a CRD gets conversion output and names
 * everything that output declares (the naming pass's rule: no later stage assigns a name). Hub and
 * spoke, as controller-runtime and kubebuilder have it: the storage version is the hub, every other
 * served version a spoke converting to it and back.
 *
 * A CRD gets conversion output when it serves more than one version, its storage version among
 * them, and it is the operator's own: it has handlers, or it declares `spec.conversion.strategy:
 * Webhook`. A CRD used only for its types (another project's, no handlers) gets none, as it gets no
 * handler stubs.
 */
import type { NamedCrd, NamedVersion } from './naming.js';
import { NameScope } from './reserved.js';

export interface NamedSpoke {
  version: NamedVersion;
  /** `<Spoke>ToHub` / `<Spoke>FromHub`: the signature types. */
  toHub: string;
  fromHub: string;
  /** The stub functions' names (`<spoke>ToHub`, camel case). */
  toHubFunction: string;
  fromHubFunction: string;
}

export interface NamedConversion {
  hub: NamedVersion;
  spokes: NamedSpoke[];
  /** `<group>/<plural>.conversion` (no extension): the signatures and the definition. */
  module: string;
  /** The interface of every spoke's functions. */
  conversions: string;
  /** The `defineConversion` constant. */
  definition: string;
}

/** The write view's name of a version's resource (its read name where the views agree). */
export function writeName(version: NamedVersion): string {
  const schema = version.version.schema;
  return (schema && version.inputTypes.get(schema)) ?? version.names.resource;
}

const camel = (name: string) => name[0].toLowerCase() + name.slice(1);

/**
 * The schema data of an operator's own CRD (it has handlers, or a conversion webhook): every version's
 * structural schema as data, `<group>/<plural>.schemas.ts`, which `kopfgen/testing` builds objects from
 * and validates them against. A CRD used only for its types gets none.
 */
export interface NamedSchemaData {
  /** `<group>/<plural>.schemas` (no extension). */
  module: string;
  /** The schema text constant, `<Prefix>SchemaText`. */
  schemaText: string;
  /** The storage version, and every version the data holds. */
  storage: NamedVersion;
  versions: NamedVersion[];
  /** Each version's object builder (`build<Prefix>`, kopfgen/testing's `objectBuilder` bound to its descriptor and the schema text). */
  builders: { version: NamedVersion; name: string }[];
}

/** The names the conversion module claims, so the schema text's name is the same with or without one. */
function conversionScope(named: NamedCrd): NameScope {
  // The module imports the versions' resource, write-view and descriptor names: ours must not shadow them.
  const scope = new NameScope();
  for (const v of named.versions) {
    scope.claim(v.names.resource);
    scope.claim(v.names.descriptor);
    for (const input of v.inputTypes.values()) scope.claim(input);
  }
  return scope;
}

function isOwn(named: NamedCrd): boolean {
  return named.versions.some((v) => v.handlers.length > 0) || named.crd.conversionStrategy === 'Webhook';
}

export function nameSchemaData(named: NamedCrd): NamedSchemaData | undefined {
  const storage = named.versions.find((v) => v.version.storage);
  if (!storage || !isOwn(named)) return undefined;
  const scope = conversionScope(named);
  const prefix = storage.names.prefix;
  scope.claim(`${prefix}Conversions`);
  scope.claim(`${prefix}Conversion`);
  const schemaText = scope.claim(`${prefix}SchemaText`);
  const versions = [storage, ...named.versions.filter((v) => v !== storage)];
  return {
    module: `${named.crd.group}/${named.crd.plural}.schemas`,
    schemaText,
    storage,
    versions,
    builders: versions.map((version) => ({ version, name: scope.claim(`build${version.names.prefix}`) })),
  };
}

export function nameConversion(named: NamedCrd): NamedConversion | undefined {
  const { crd } = named;
  const hub = named.versions.find((v) => v.version.storage);
  const spokes = named.versions.filter((v) => !v.version.storage);
  if (!hub || spokes.length === 0) return undefined;
  if (!isOwn(named)) return undefined;
  const scope = conversionScope(named);
  const prefix = hub.names.prefix;
  return {
    hub,
    spokes: spokes.map((version) => {
      const toHub = scope.claim(`${version.names.prefix}ToHub`);
      const fromHub = scope.claim(`${version.names.prefix}FromHub`);
      return { version, toHub, fromHub, toHubFunction: camel(toHub), fromHubFunction: camel(fromHub) };
    }),
    module: `${crd.group}/${crd.plural}.conversion`,
    conversions: scope.claim(`${prefix}Conversions`),
    definition: scope.claim(`${prefix}Conversion`),
  };
}
