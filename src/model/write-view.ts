/**
 * The write view of a schema: what a user may omit when creating, applying or patching an
 * object, as opposed to what an object read from the API server always holds.
 *
 * The API server applies structural-schema defaults before it validates (apiextensions
 * defaulting: on the request, and again when reading from etcd), so a property that is both
 * `required` and has a `default` is always present when read, yet a user may leave it out when
 * writing. Only object nodes with such a property somewhere below them need a second (`…Input`)
 * type; every other node is the same in both views, so the write view costs nothing where no
 * default is required.
 */
import type { ObjectNode, PropertyNode, SchemaNode } from './ir.js';

/** Required, but the API server fills the schema's default in before validating: optional when writing. */
export function serverDefaulted(prop: PropertyNode): boolean {
  return prop.required && prop.schema.doc.default !== undefined;
}

/**
 * The object nodes at or below `root` whose write view differs from their read view: those with a
 * server-defaulted property, and those reaching one through properties, map values or array
 * items. `implied` names the members a Kubernetes object types itself (apiVersion, kind,
 * metadata): not walked in an embedded resource, nor in the root when `rootImplied`.
 * Iterative (breadth first, then children before parents), so depth costs no stack.
 */
export function writeViewNodes(root: ObjectNode, implied: ReadonlySet<string>, rootImplied: boolean): Set<ObjectNode> {
  const skips = (node: ObjectNode, prop: PropertyNode): boolean =>
    (node === root ? rootImplied : node.embeddedResource) && implied.has(prop.name);
  const order: ObjectNode[] = [];
  const children = new Map<ObjectNode, ObjectNode[]>();
  const queue: ObjectNode[] = [root];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i];
    order.push(node);
    const below: ObjectNode[] = [];
    const visit = (schema: SchemaNode | 'any' | undefined): void => {
      let s = schema;
      while (s !== undefined && s !== 'any' && s.type === 'array') s = s.items;
      if (s !== undefined && s !== 'any' && s.type === 'object') below.push(s);
    };
    for (const prop of node.properties) if (!skips(node, prop)) visit(prop.schema);
    visit(node.additionalProperties);
    children.set(node, below);
    for (const b of below) queue.push(b); // not push(...below): a schema may have 100,000s of properties
  }
  const differs = new Set<ObjectNode>();
  for (let i = order.length - 1; i >= 0; i--) {
    const node = order[i];
    const own = node.properties.some((p) => serverDefaulted(p) && !skips(node, p));
    if (own || (children.get(node) ?? []).some((c) => differs.has(c))) differs.add(node);
  }
  return differs;
}
