/** The `gizmos.example.com` resource kopfgen/testing's unit tests share: its schema data for a v1 schema, and its descriptor. */
import { defineResource } from '../../src/runtime/api/define.js';
import type { JsonSchema, SchemaData } from '../../src/testing/index.js';

export function gizmoData(v1: JsonSchema): SchemaData {
  return {
    kopfgen: 1,
    crd: 'gizmos.example.com',
    group: 'example.com',
    kind: 'Gizmo',
    plural: 'gizmos',
    scope: 'Namespaced',
    storage: 'v1',
    versions: { v1 },
  };
}

export function gizmoDescriptor<R>(statusSubresource: boolean) {
  return defineResource<R>({
    group: 'example.com',
    version: 'v1',
    plural: 'gizmos',
    kind: 'Gizmo',
    scope: 'Namespaced',
    statusSubresource,
    printerColumns: [],
  });
}
