/**
 * The naming pass. Every resource gets a run-wide unique prefix (its kind when unique,
 * group-qualified otherwise; non-storage versions add their version), and every object
 * node of a version's schema a module-unique interface name: prefix + PascalCase of each
 * property on its path (kopium style), array items named after their array, map values `…Value`.
 */
import type { CrdModel, ObjectNode, SchemaNode, VersionModel } from './ir.js';
import { NameScope, RESERVED_NAMES, pascal } from './reserved.js';

/** What the run-wide prefix of a CRD depends on. CRD names are unique after duplicate removal. */
export type KindName = Pick<CrdModel, 'name' | 'kind' | 'group'>;

/** Scopes per version module, so later emitters (handlers) claim names that cannot clash. */
export type ModuleScopes = Map<VersionModel, NameScope>;

/** `prefixes` (from `kindPrefixes`) may be computed over a larger run than `crds`. */
export function nameModels(crds: CrdModel[], prefixes: Map<string, string> = kindPrefixes(crds)): ModuleScopes {
  const scopes: ModuleScopes = new Map();
  for (const crd of crds) {
    const prefix = prefixes.get(crd.name)!;
    for (const version of crd.versions) {
      if (!version.served) continue;
      const versionPrefix = version.storage ? prefix : prefix + pascal(version.name);
      const scope = new NameScope();
      const resource = scope.claim(versionPrefix);
      const descriptor = scope.claim(versionPrefix + 'Descriptor');
      version.names = { module: `${crd.group}/${version.name}/${crd.plural}`, prefix: versionPrefix, resource, descriptor };
      if (version.schema) {
        version.schema.typeName = resource;
        nameChildren(version.schema, resource, (base) => scope.claim(base), IMPLIED_MEMBERS);
      }
      scopes.set(version, scope);
    }
  }
  return scopes;
}

/** Only these object nodes render as an inline `{ [key: string]: T }` and so get no interface name. */
export function isPureMap(node: ObjectNode): boolean {
  return node.properties.length === 0 && node.additionalProperties !== undefined && !node.embeddedResource && !node.preserveUnknownFields;
}

/**
 * Members a Kubernetes object types itself: the resource interface (literal apiVersion/kind,
 * ObjectMeta) and an embedded resource. The schema's own nodes for them get no name and no member.
 */
export const IMPLIED_MEMBERS: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Breadth first, so a shallower path keeps the natural name when two paths PascalCase alike
 * (`spec.fooBar` is `…SpecFooBar`, `spec.foo.bar` becomes `…SpecFooBar2`).
 */
/** Names every object node below `root` breadth first, each name claimed through `claim` (module-unique). */
export function nameChildren(root: ObjectNode, rootName: string, claim: (base: string) => string, skip?: ReadonlySet<string>): void {
  const queue: { node: SchemaNode; base: string }[] = [];
  const enqueueChildren = (node: ObjectNode, name: string, omit?: ReadonlySet<string>) => {
    for (const prop of node.properties) if (!omit?.has(prop.name)) queue.push({ node: prop.schema, base: name + pascal(prop.name) });
    if (node.additionalProperties && node.additionalProperties !== 'any') queue.push({ node: node.additionalProperties, base: name + 'Value' });
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
      if (node.additionalProperties && node.additionalProperties !== 'any') queue.push({ node: node.additionalProperties, base: base + 'Value' });
      continue;
    }
    const name = claim(base);
    node.typeName = name;
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
    const unique = byKind.get(kind)!.length === 1 && !RESERVED_NAMES.has(kind);
    const candidates = unique ? [kind] : [identifierStart(pascal(crd.group.split('.')[0])) + kind, identifierStart(pascal(crd.group)) + kind];
    const free = candidates.find((c) => !taken.has(c) && !RESERVED_NAMES.has(c) && !(c !== kind && byKind.has(c)));
    out.set(crd.name, taken.claim(free ?? candidates[candidates.length - 1]));
  }
  return out;
}

/** A kind such as `3DModel` cannot start a type name. */
function identifierStart(name: string): string {
  return /^[0-9]/.test(name) ? 'Kind' + name : name;
}
