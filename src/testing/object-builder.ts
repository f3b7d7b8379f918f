/**
 * Typed object builders (`kopfgen generate` binds one per version in the schema data module,
 * `build<Prefix>`): for a generated resource, the smallest object its schema accepts (every
 * required field with the least value its schema allows, the server's defaults filled in), with what a
 * test cares about laid over it. The override is typed as a deep partial of the resource, so a field
 * the CRD does not have, or a value of the wrong type, is a compile error, and a test that names a
 * field the CRD drops stops compiling when the types are regenerated.
 */
import type { KubernetesObject } from '../runtime/api/kube-types.js';
import type { ResourceDescriptor } from '../runtime/api/resource.js';
import { applyMergePatch, clone, isKubernetesObject, isPlainObject } from '../runtime/json.js';
import { admitObject, versionSchema } from '../runtime/admission/schema-admission.js';
import type { JsonSchema, SchemaData } from './sample-objects.js';

/**
 * Every field optional, at every depth; lists are given whole (as a merge patch replaces them). An
 * object literal is checked for excess properties as usual: an unknown field is TS2353.
 */
export type DeepPartial<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/** The least value `schema` accepts: a required field's placeholder. */
function least(schema: JsonSchema): unknown {
  if (schema.default !== undefined) return clone(schema.default);
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema['x-kubernetes-int-or-string']) return 0;
  switch (schema.type) {
    case 'string': {
      if (schema.format === 'date-time') return new Date(0).toISOString().replace(/\.\d+Z$/, 'Z');
      if (schema.format === 'date') return '1970-01-01';
      return 'a'.repeat(schema.minLength ?? 0);
    }
    case 'integer':
    case 'number': {
      const low = schema.minimum === undefined ? 0 : schema.minimum + (schema.exclusiveMinimum ? 1 : 0);
      const high = schema.maximum === undefined ? Infinity : schema.maximum - (schema.exclusiveMaximum ? 1 : 0);
      return Math.min(Math.max(0, low), high);
    }
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => least(schema.items ?? {}));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = least(schema.properties?.[key] ?? {});
      return out;
    }
    default:
      return {};
  }
}

/**
 * A builder of `descriptor`'s objects from its schema data (`<Kind>SchemaText` of the generated
 * `<plural>.schemas.ts`): `build()` is the minimal valid object (named after the kind, in `default` when
 * namespaced), `build({ spec: { replicas: 3 } })` the same with the override merged in (RFC 7386: `null`
 * removes a field, lists are replaced whole) and the defaults filled in again, as the API server would.
 */
export function objectBuilder<R, W = R>(
  descriptor: ResourceDescriptor<R, W>,
  schemaData: SchemaData | string,
): (override?: DeepPartial<R>) => R {
  const { data, schema } = versionSchema(schemaData, descriptor.version);
  const { apiVersion: _a, kind: _k, metadata: _m, ...fields } = schema.properties ?? {};
  // Besides the root's required fields, its sections that require fields of their own (a `spec` with a
  // required `image`): the object a handler is written for has them, though the schema may not require it.
  const sections = Object.keys(fields).filter((k) => k !== 'status' && (fields[k].required ?? []).length > 0);
  const required = [...new Set([...(schema.required ?? []), ...sections])].filter((k) => k in fields);
  const base = least({ ...schema, type: 'object', properties: fields, required });
  const apiVersion = descriptor.group ? `${descriptor.group}/${descriptor.version}` : descriptor.version;
  const metadata = {
    name: descriptor.kind.toLowerCase(),
    ...(descriptor.scope === 'Namespaced' ? { namespace: 'default' } : {}),
  };
  return (override) => {
    const start: KubernetesObject = {
      ...(isPlainObject(base) ? base : {}),
      apiVersion,
      kind: descriptor.kind,
      metadata,
    };
    const merged = override === undefined ? start : applyMergePatch(start, override);
    const { object } = admitObject(data, merged, descriptor.version);
    if (!isKubernetesObject(object)) throw new TypeError('the override made the object a non-object');
    return object as R;
  };
}
