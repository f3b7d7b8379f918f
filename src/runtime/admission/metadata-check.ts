/**
 * An object's metadata as the API server validates it before storing any object, custom or built-in
 * (apimachinery's `ValidateObjectMeta`, and the decoding of `ObjectMeta` that precedes it): a name or a
 * generateName, each a DNS subdomain (a generateName as a prefix); labels whose keys are qualified
 * names and whose values are label values; annotation keys that are qualified names, at most 256 KiB in
 * all; finalizers that are strings; ownerReferences with apiVersion, kind, name and uid, at most one of
 * them the controller. Field errors are worded as the server words them.
 */
import { isPlainObject } from '../json.js';
import { asPrefix, dns1123Subdomain, labelValue, qualifiedName } from './name-syntax.js';

export interface MetadataError {
  path: string;
  message: string;
}

const TOTAL_ANNOTATION_SIZE = 256 * 1024;

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** A value of the wrong JSON type: ObjectMeta does not decode (the server answers with the field and both types). */
function wrongType(path: string, value: unknown, want: string): MetadataError {
  return {
    path,
    message: `Invalid value: "${typeName(value)}": ${path} in body must be of type ${want}: "${typeName(value)}"`,
  };
}

function stringMap(value: unknown, path: string, out: MetadataError[]): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) {
    out.push(wrongType(path, value, 'object'));
    return {};
  }
  const map: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string') map[k] = v;
    else out.push(wrongType(`${path}.${k}`, v, 'string'));
  }
  return map;
}

/** The metadata's field errors (none: it is accepted). */
export function metadataErrors(metadata: unknown): MetadataError[] {
  const out: MetadataError[] = [];
  if (metadata !== undefined && !isPlainObject(metadata)) return [wrongType('metadata', metadata, 'object')];
  const meta = metadata ?? {};
  const invalid = (path: string, value: string, message: string) =>
    out.push({ path, message: `Invalid value: ${JSON.stringify(value)}: ${message}` });

  for (const key of ['name', 'generateName', 'namespace', 'uid', 'resourceVersion'])
    if (meta[key] !== undefined && typeof meta[key] !== 'string')
      out.push(wrongType(`metadata.${key}`, meta[key], 'string'));
  const name = typeof meta.name === 'string' ? meta.name : '';
  const generateName = typeof meta.generateName === 'string' ? meta.generateName : '';
  if (generateName !== '')
    for (const m of asPrefix(dns1123Subdomain)(generateName)) invalid('metadata.generateName', generateName, m);
  if (name === '') {
    if (generateName === '')
      out.push({ path: 'metadata.name', message: 'Required value: name or generateName is required' });
  } else for (const m of dns1123Subdomain(name)) invalid('metadata.name', name, m);

  for (const [key, value] of Object.entries(stringMap(meta.labels, 'metadata.labels', out))) {
    for (const m of qualifiedName(key)) invalid('metadata.labels', key, m);
    for (const m of labelValue(value)) invalid('metadata.labels', value, m);
  }
  const annotations = stringMap(meta.annotations, 'metadata.annotations', out);
  let size = 0;
  for (const [key, value] of Object.entries(annotations)) {
    for (const m of qualifiedName(key.toLowerCase())) invalid('metadata.annotations', key, m);
    size += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (size > TOTAL_ANNOTATION_SIZE)
    out.push({ path: 'metadata.annotations', message: `Too long: must have at most ${TOTAL_ANNOTATION_SIZE} bytes` });

  if (meta.finalizers !== undefined && meta.finalizers !== null) {
    if (!Array.isArray(meta.finalizers)) out.push(wrongType('metadata.finalizers', meta.finalizers, 'array'));
    else
      meta.finalizers.forEach((f, i) => {
        if (typeof f !== 'string') out.push(wrongType(`metadata.finalizers[${i}]`, f, 'string'));
      });
  }

  const owners = meta.ownerReferences;
  if (owners !== undefined && owners !== null) {
    if (!Array.isArray(owners)) out.push(wrongType('metadata.ownerReferences', owners, 'array'));
    else {
      let controllers = 0;
      owners.forEach((ref, i) => {
        const at = `metadata.ownerReferences[${i}]`;
        if (!isPlainObject(ref)) {
          out.push(wrongType(at, ref, 'object'));
          return;
        }
        for (const key of ['apiVersion', 'kind', 'name', 'uid'])
          if (ref[key] !== undefined && typeof ref[key] !== 'string')
            out.push(wrongType(`${at}.${key}`, ref[key], 'string'));
        for (const key of ['controller', 'blockOwnerDeletion'])
          if (ref[key] !== undefined && ref[key] !== null && typeof ref[key] !== 'boolean')
            out.push(wrongType(`${at}.${key}`, ref[key], 'boolean'));
        // ValidateOwnerReferences: the path is the list's, not the item's.
        const empty = (key: string) => typeof ref[key] !== 'string' || ref[key] === '';
        if (empty('apiVersion')) invalid('metadata.ownerReferences.apiVersion', '', 'version must not be empty');
        if (empty('kind')) invalid('metadata.ownerReferences.kind', '', 'kind must not be empty');
        if (empty('name')) invalid('metadata.ownerReferences.name', '', 'name must not be empty');
        if (empty('uid')) invalid('metadata.ownerReferences.uid', '', 'uid must not be empty');
        if (ref.controller === true) controllers++;
      });
      if (controllers > 1)
        out.push({
          path: 'metadata.ownerReferences',
          message: 'Invalid value: "array": Only one reference can have Controller set to true',
        });
    }
  }
  return out;
}
