/**
 * The resources of CRD models, as the descriptors generated code registers: for `kopfgen init`,
 * which renders the new project's manifests before that project can be built and loaded. One
 * descriptor per served version (the generator emits a `defineResource` for each of those).
 */
import type { CrdModel } from '../model/ir.js';
import type { ResourceDescriptor } from '../runtime/api/define.js';

export function crdDescriptors(crds: readonly CrdModel[]): ResourceDescriptor[] {
  return crds.flatMap((crd) =>
    crd.versions
      .filter((v) => v.served)
      .map((v) => ({
        group: crd.group,
        version: v.name,
        plural: crd.plural,
        kind: crd.kind,
        scope: crd.scope,
        statusSubresource: v.subresources.status,
        printerColumns: v.printerColumns.map((c) => ({ name: c.name, type: c.type, jsonPath: c.jsonPath })),
      })),
  );
}
