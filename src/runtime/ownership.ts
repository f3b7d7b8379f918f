/**
 * Making an object a child of the handled one (`ctx.adopt`): kopf's `adopt` (append_owner_reference,
 * harmonize_naming, adjust_namespace, and `label` on request) and controller-runtime's
 * `SetControllerReference`, pure. The garbage collector deletes a dependent whose owner it cannot
 * find in the dependent's own namespace (or, for a cluster-scoped dependent, among cluster-scoped
 * objects): a cluster-scoped child of a namespaced owner, or a child in another namespace, would be
 * deleted at once (Kubernetes docs, "Owners and dependents"), so both are refused here.
 */
import type { AdoptOptions } from './api/context.js';
import type { KubernetesObject, ObjectMeta, OwnerReference } from './api/kube-types.js';
import type { AccessKind } from './api/access.js';
import { clone, isKubernetesObject } from './json.js';

/** The owner as adopt needs it: its object and whether its kind is namespaced. */
export interface Owner {
  body: KubernetesObject;
  namespaced: boolean;
}

function ownerRef(owner: KubernetesObject): OwnerReference {
  const meta = owner.metadata ?? {};
  return {
    apiVersion: String(owner.apiVersion),
    kind: String(owner.kind),
    name: String(meta.name),
    uid: String(meta.uid),
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** A copy of `child` owned by `owner`; throws (an Error naming both) where the result could not stand. */
export function adoptChild(
  owner: Owner,
  kind: AccessKind,
  child: unknown,
  options: AdoptOptions = {},
): KubernetesObject {
  if (!isKubernetesObject(child)) throw new Error(`adopt: the ${kind.kind} is not an object`);
  const copy = clone(child);
  const parent = owner.body.metadata ?? {};
  const parentName = `${String(owner.body.kind)} ${parent.namespace ? `${parent.namespace}/` : ''}${String(parent.name)}`;
  const meta: ObjectMeta = { ...(copy.metadata ?? {}) };
  const what = `${kind.kind} ${meta.name ?? '(unnamed)'}`;
  if (owner.namespaced && kind.scope === 'Cluster')
    throw new Error(
      `adopt: the cluster-scoped ${what} cannot be owned by the namespaced ${parentName} (the garbage collector would delete it at once)`,
    );
  if (owner.namespaced && kind.scope === 'Namespaced') {
    if (meta.namespace !== undefined && meta.namespace !== parent.namespace)
      throw new Error(
        `adopt: ${what} in namespace ${meta.namespace} cannot be owned by ${parentName} (an owner must be in its dependent's namespace; the garbage collector would delete it at once)`,
      );
    meta.namespace = parent.namespace;
  }
  // kopf's harmonize_naming: a child with a name or a generateName of its own keeps it (both set, the
  // API server would take the name, so a second child made from the same template would clash)
  if (meta.name === undefined && meta.generateName === undefined) meta.name = parent.name;
  const ref = ownerRef(owner.body);
  const others = (meta.ownerReferences ?? []).filter((r) => r.uid !== ref.uid);
  const controller = others.find((r) => r.controller === true);
  if (controller)
    throw new Error(
      `adopt: ${what} is already controlled by ${controller.kind} ${controller.name} (uid ${controller.uid})`,
    );
  meta.ownerReferences = [...others, ref];
  // kopf's adopt labels by default (`label(objs, labels=owner labels)` unless told otherwise): a literal port keeps them.
  if ((options.labels ?? true) && parent.labels) meta.labels = { ...parent.labels, ...meta.labels };
  copy.metadata = meta;
  return copy;
}

/** The uid of the object's controller, if an owner reference names one. */
export function controllerOf(body: KubernetesObject): OwnerReference | undefined {
  return body.metadata?.ownerReferences?.find((r) => r.controller === true);
}
