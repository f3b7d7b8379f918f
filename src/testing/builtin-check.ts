/**
 * A built-in kind (a Deployment, a ConfigMap, …) checked against Kubernetes' own OpenAPI schema for
 * it, as the API server's decoding and validation refuse it: types, required fields, enums. The
 * schemas are `kubernetes-models`' (validators generated from Kubernetes' OpenAPI document, one
 * module per kind), loaded the first time the fake client stores an object of that kind and only by
 * the test kit, from the project (a dev dependency of the scaffold's, not a dependency of kopfgen's:
 * an operator's production install does not carry 26 MB of schemas it never runs). Metadata is left to `metadata-check.ts` (the server's `ValidateObjectMeta` words it);
 * a kind the package does not have is not checked.
 */
import { createRequire } from 'node:module';

export interface BuiltinError {
  path: string;
  message: string;
}

/** A validation failure of `kubernetes-models` (ajv's error objects). */
interface SchemaFailure {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

type Validator = (object: unknown) => SchemaFailure[];

const require = createRequire(import.meta.url);
const validators = new Map<string, Validator | undefined>();

/** The kind's validator, loaded once (undefined: the package has no such kind). */
function validator(group: string, version: string, kind: string): Validator | undefined {
  const module = `${group ? `${group}/` : ''}${version}/${kind}`;
  if (validators.has(module)) return validators.get(module);
  let found: Validator | undefined;
  try {
    const loaded: unknown = require(`kubernetes-models/${module}`);
    const model: unknown = typeof loaded === 'object' && loaded !== null ? Reflect.get(loaded, kind) : undefined;
    if (typeof model === 'function')
      found = (object) => {
        try {
          const instance: unknown = Reflect.construct(model, [object]);
          const validate: unknown =
            typeof instance === 'object' && instance !== null ? Reflect.get(instance, 'validate') : undefined;
          if (typeof validate === 'function') Reflect.apply(validate, instance, []);
          return [];
        } catch (e) {
          const errors: unknown = typeof e === 'object' && e !== null ? Reflect.get(e, 'errors') : undefined;
          if (!Array.isArray(errors)) throw e;
          return errors.filter(isFailure);
        }
      };
  } catch {
    found = undefined;
  }
  validators.set(module, found);
  return found;
}

function isFailure(e: unknown): e is SchemaFailure {
  return typeof e === 'object' && e !== null && typeof Reflect.get(e, 'instancePath') === 'string';
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function valueAt(object: unknown, pointer: string): unknown {
  let at = object;
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    at = typeof at === 'object' && at !== null ? Reflect.get(at, Array.isArray(at) ? Number(key) : key) : undefined;
  }
  return at;
}

/** `/spec/containers/0/name` → `spec.containers[0].name`. */
function fieldPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, key) => (/^\d+$/.test(key) ? `${path}[${key}]` : path ? `${path}.${key}` : key), '');
}

/**
 * The field errors of a built-in object under Kubernetes' schema for its kind, worded as the API
 * server words them; undefined when the kind is not one the schemas know.
 */
export function builtinErrors(
  group: string,
  version: string,
  kind: string,
  object: unknown,
): BuiltinError[] | undefined {
  const validate = validator(group, version, kind);
  if (!validate) return undefined;
  const out: BuiltinError[] = [];
  for (const f of validate(object)) {
    if (f.instancePath === '/metadata' || f.instancePath.startsWith('/metadata/')) continue;
    const path = fieldPath(f.instancePath);
    const value = valueAt(object, f.instancePath);
    if (f.keyword === 'required') {
      const missing = String(f.params.missingProperty ?? '');
      out.push({ path: path ? `${path}.${missing}` : missing, message: 'Required value' });
    } else if (f.keyword === 'type')
      out.push({
        path,
        message: `Invalid value: "${typeName(value)}": ${path} in body must be of type ${String(f.params.type)}: "${typeName(value)}"`,
      });
    else if (f.keyword === 'enum') {
      const allowed = Array.isArray(f.params.allowedValues) ? f.params.allowedValues : [];
      out.push({
        path,
        message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${allowed.map((v) => JSON.stringify(v)).join(', ')}`,
      });
    } else out.push({ path, message: `Invalid value: ${JSON.stringify(value)}: ${f.message ?? f.keyword}` });
  }
  return out;
}
