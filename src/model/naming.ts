/**
 * The naming pass. Every resource gets a run-wide unique prefix (its kind when unique,
 * group-qualified otherwise; non-storage versions add their version), and every object
 * node of a version's schema a module-unique interface name: prefix + PascalCase of each
 * property on its path (kopium style), array items named after their array, map values `…Value`.
 * It runs before any emitter and returns every name (a `NamedCrd`); the IR is never written to,
 * so emitters and stubs only read names that exist.
 */
import type { HandledCrd } from './handler-pass.js';
import type { CrdModel, HandlerModel, ObjectNode, SchemaNode, VersionModel } from './ir.js';
import { NameScope, RESERVED_NAMES, pascal } from './reserved.js';
import { writeViewNodes } from './write-view.js';

/** What the run-wide prefix of a CRD depends on. CRD names are unique after duplicate removal. */
export type KindName = Pick<CrdModel, 'name' | 'kind' | 'group'>;

/** A served version's module and its top-level names. */
export interface VersionNames {
  /** Module path relative to the output directory, `/`-separated, no extension (`example.com/v1/myresources`). */
  module: string;
  /** Prefix of every type name in the module (`MyResource`, or e.g. `MyResourceV1beta1` for a non-storage version). */
  prefix: string;
  /** The resource interface (usually equal to the prefix). */
  resource: string;
  /** The `defineResource` constant. */
  descriptor: string;
}

/** The exported names of one handler in its module (stubs import them). */
export interface HandlerNames {
  status: string;
  temporaryError: string;
  permanentError: string;
  definition: string;
}

/**
 * How a handler's status type is written: an alias of a non-object type, an interface extending
 * the schema's own type at `status.<id>`, or an interface the handler section emits itself
 * (its nested types are named in `NamedVersion.types`).
 */
export type StatusShape = { kind: 'alias' } | { kind: 'extends'; schemaType: string } | { kind: 'own' };

export interface NamedHandler {
  handler: HandlerModel;
  names: HandlerNames;
  shape: StatusShape;
}

/** One served version with every name its module declares. */
export interface NamedVersion {
  version: VersionModel;
  names: VersionNames;
  /**
   * The interface name of every named object node of the module (schema and handler statuses).
   * A node without an entry is written inline: a pure map, or a member a Kubernetes object types itself.
   */
  types: ReadonlyMap<ObjectNode, string>;
  /**
   * The write-view (`…Input`) interface name of every named object node whose write view differs
   * from its read view (a server-defaulted property at or below it, see write-view.ts). Claimed
   * after every read name, so adding a default never renames a read type.
   */
  inputTypes: ReadonlyMap<ObjectNode, string>;
  handlers: NamedHandler[];
}

/** A CRD with its served versions named: what emitters and stubs read. */
export interface NamedCrd {
  crd: CrdModel;
  versions: NamedVersion[];
}

/**
 * Names one CRD's served versions as the handler pass returned them (`withoutHandlers` for types
 * alone), given its run-wide prefix (from `kindPrefixes`). Claims
 * happen in module order: resource, descriptor, schema types, then per handler its definition,
 * status, error classes and the nested types of a status the handler section emits itself;
 * then the write-view names.
 */
export function nameCrd(handled: HandledCrd, prefix: string): NamedCrd {
  const { crd } = handled;
  const versions: NamedVersion[] = [];
  for (const { version, handlers: resolved } of handled.versions) {
    if (!version.served) continue;
    const versionPrefix = version.storage ? prefix : prefix + pascal(version.name);
    const scope = new NameScope();
    const claim = (base: string) => scope.claim(base);
    const resource = scope.claim(versionPrefix);
    const descriptor = scope.claim(versionPrefix + 'Descriptor');
    const names = { module: `${crd.group}/${version.name}/${crd.plural}`, prefix: versionPrefix, resource, descriptor };
    const types = new Map<ObjectNode, string>();
    if (version.schema) {
      types.set(version.schema, resource);
      nameChildren(version.schema, resource, claim, types, IMPLIED_MEMBERS);
    }
    const handlers = resolved.map((handler) => nameHandler(handler, versionPrefix, claim, types));
    const inputTypes = nameInputs(version.schema, handlers, types, claim);
    versions.push({ version, names, types, inputTypes, handlers });
  }
  return { crd, versions };
}

/** `create_fn` → `CreateFn`, `my-app` → `MyApp`, `a.b` → `AB`; collisions get a numeric suffix. */
function nameHandler(
  handler: HandlerModel,
  prefix: string,
  claim: (base: string) => string,
  types: Map<ObjectNode, string>,
): NamedHandler {
  const base = claim(prefix + pascal(handler.id));
  const names = {
    definition: base,
    status: claim(base + 'Status'),
    temporaryError: claim(base + 'TemporaryError'),
    permanentError: claim(base + 'PermanentError'),
  };
  const status = handler.status;
  if (status.type !== 'object') return { handler, names, shape: { kind: 'alias' } };
  const schemaType = types.get(status);
  if (schemaType !== undefined) return { handler, names, shape: { kind: 'extends', schemaType } };
  // Not reachable from the schema (no status object to insert into): the handler section emits it.
  nameChildren(status, names.status, claim, types);
  return { handler, names, shape: { kind: 'own' } };
}

/** `<read name>Input` for every named node whose write view differs: the schema's, then each own-shape handler status's. */
function nameInputs(
  schema: ObjectNode | undefined,
  handlers: readonly NamedHandler[],
  types: ReadonlyMap<ObjectNode, string>,
  claim: (base: string) => string,
): Map<ObjectNode, string> {
  const differs = new Set<ObjectNode>();
  const add = (nodes: Set<ObjectNode>) => nodes.forEach((n) => differs.add(n));
  if (schema) add(writeViewNodes(schema, IMPLIED_MEMBERS, true));
  for (const { handler, shape } of handlers)
    if (shape.kind === 'own' && handler.status.type === 'object')
      add(writeViewNodes(handler.status, IMPLIED_MEMBERS, false));
  const inputs = new Map<ObjectNode, string>();
  if (differs.size === 0) return inputs;
  for (const [node, name] of types) if (differs.has(node)) inputs.set(node, claim(name + 'Input'));
  return inputs;
}

/** Only these object nodes render as an inline `{ [key: string]: T }` and so get no interface name. */
export function isPureMap(node: ObjectNode): boolean {
  return (
    node.properties.length === 0 &&
    node.additionalProperties !== undefined &&
    !node.embeddedResource &&
    !node.preserveUnknownFields
  );
}

/**
 * Members a Kubernetes object types itself: the resource interface (literal apiVersion/kind,
 * ObjectMeta) and an embedded resource. The schema's own nodes for them get no name and no member.
 */
export const IMPLIED_MEMBERS: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Names every object node below `root` into `names`, each claimed through `claim` (module-unique).
 * Breadth first, so a shallower path keeps the natural name when two paths PascalCase alike
 * (`spec.fooBar` is `…SpecFooBar`, `spec.foo.bar` becomes `…SpecFooBar2`).
 */
function nameChildren(
  root: ObjectNode,
  rootName: string,
  claim: (base: string) => string,
  names: Map<ObjectNode, string>,
  skip?: ReadonlySet<string>,
): void {
  const queue: { node: SchemaNode; base: string }[] = [];
  const enqueueChildren = (node: ObjectNode, name: string, omit?: ReadonlySet<string>) => {
    for (const prop of node.properties)
      if (!omit?.has(prop.name)) queue.push({ node: prop.schema, base: name + pascal(prop.name) });
    if (node.additionalProperties && node.additionalProperties !== 'any')
      queue.push({ node: node.additionalProperties, base: name + 'Value' });
  };
  enqueueChildren(root, rootName, skip);
  for (let i = 0; i < queue.length; i++) {
    let { node, base } = queue[i];
    // Array items are named after their array (nested arrays add `Item`).
    while (node.type === 'array' && node.items) {
      if (node.items.type === 'array') base += 'Item';
      node = node.items;
    }
    if (node.type !== 'object') continue;
    if (isPureMap(node)) {
      // The map itself is inline; its values are named after it.
      if (node.additionalProperties && node.additionalProperties !== 'any')
        queue.push({ node: node.additionalProperties, base: base + 'Value' });
      continue;
    }
    const name = claim(base);
    names.set(node, name);
    enqueueChildren(node, name, node.embeddedResource ? IMPLIED_MEMBERS : undefined);
  }
}

/**
 * Kind alone when it is unique in the run and not reserved; else qualified by the group's first
 * label (`cert-manager.io` → `CertManager`), then by the whole group, then numbered.
 */
export function kindPrefixes(crds: readonly KindName[]): Map<string, string> {
  const byKind = new Map<string, KindName[]>();
  for (const crd of crds) {
    const k = identifierStart(pascal(crd.kind));
    byKind.set(k, [...(byKind.get(k) ?? []), crd]);
  }
  const out = new Map<string, string>();
  const taken = new NameScope();
  const sorted = [...crds].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const crd of sorted) {
    const kind = identifierStart(pascal(crd.kind));
    const unique = byKind.get(kind)?.length === 1 && !RESERVED_NAMES.has(kind);
    const candidates = unique
      ? [kind]
      : [identifierStart(pascal(crd.group.split('.')[0])) + kind, identifierStart(pascal(crd.group)) + kind];
    const free = candidates.find((c) => !taken.has(c) && !RESERVED_NAMES.has(c) && !(c !== kind && byKind.has(c)));
    out.set(crd.name, taken.claim(free ?? candidates[candidates.length - 1]));
  }
  return out;
}

/** A kind such as `3DModel` cannot start a type name. */
function identifierStart(name: string): string {
  return /^[0-9]/.test(name) ? 'Kind' + name : name;
}
