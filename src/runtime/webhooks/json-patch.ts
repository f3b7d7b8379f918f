/**
 * The RFC 6902 JSON patch from one JSON value to another, as a mutating webhook answers
 * (AdmissionResponse.patchType `JSONPatch`, the only type the API server accepts). Objects are
 * compared key by key, so a mutation that sets one default yields one `add`; lists are replaced
 * whole when they differ (a minimal list diff would save bytes, not correctness, and a whole
 * `replace` cannot misapply if the list changed meanwhile). Pure.
 */
import { deepEqual, isPlainObject } from '../json.js';

export type JsonPatchOperation =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
export function pointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * A member of a JSON object: its own property only. A key named like an `Object.prototype` member
 * (`constructor`, `hasOwnProperty`, `__proto__`) is a key like any other in JSON; read with `o[key]`
 * it would find the prototype's member where the object has none.
 */
function member(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** The operations that turn `from` into `to` (none when they are equal). */
export function jsonPatch(from: unknown, to: unknown, path = ''): JsonPatchOperation[] {
  if (deepEqual(from, to)) return [];
  if (!isPlainObject(from) || !isPlainObject(to)) return [{ op: 'replace', path, value: to }];
  const ops: JsonPatchOperation[] = [];
  for (const key of Object.keys(from)) {
    if (member(from, key) === undefined) continue;
    if (member(to, key) === undefined) ops.push({ op: 'remove', path: `${path}/${pointerSegment(key)}` });
  }
  for (const key of Object.keys(to)) {
    const value = member(to, key);
    if (value === undefined) continue;
    const at = `${path}/${pointerSegment(key)}`;
    const before = member(from, key);
    if (before === undefined) ops.push({ op: 'add', path: at, value });
    else ops.push(...jsonPatch(before, value, at));
  }
  return ops;
}
