/**
 * The "essence" of an object, as kopf's diffbase.py builds it: what the user controls. No
 * apiVersion/kind, no status, no metadata other than labels and annotations, and among those no
 * operator's marks (ours under the marks prefix, any `<prefix>/last-handled-configuration`, any
 * progress record — another operator's or kopf's, so two operators on one CRD never see each
 * other's bookkeeping as a change) and no `kubectl.kubernetes.io/last-applied-configuration`.
 * The operator's own writes (status, progress, finalizers) therefore never change the essence
 * and never trigger handlers again.
 */
import { createHash, createHmac } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { DiffItem } from '../api/field-paths.js';
import type { KubernetesObject } from '../api/kube-types.js';
import { clone, deepEqual, getPath, isPlainObject, pruneEmpty } from '../json.js';
import { DEFAULT_MARKS, LAST_HANDLED_NAME, type Marks } from './marks.js';

/** The default marks' keys, for code and tests written before marks were configurable. */
export const ANNOTATION_PREFIX = DEFAULT_MARKS.prefix;
export const LAST_HANDLED_ANNOTATION = DEFAULT_MARKS.lastHandled;
export const FINALIZER = DEFAULT_MARKS.finalizer;

const IGNORED_ANNOTATIONS = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

export type Essence = Record<string, unknown>;

/** A progress record of any kopf-like operator: JSON with `started`, `purpose` and a numeric `retries`. */
function looksLikeProgress(value: unknown): boolean {
  if (typeof value !== 'string' || !value.startsWith('{')) return false;
  try {
    const parsed: unknown = JSON.parse(value);
    return (
      isPlainObject(parsed) &&
      typeof parsed.started === 'string' &&
      typeof parsed.purpose === 'string' &&
      typeof parsed.retries === 'number'
    );
  } catch {
    return false;
  }
}

/** Whether an annotation is an operator's bookkeeping rather than the user's. */
function isMark(key: string, value: unknown, marks: Marks): boolean {
  if (key.startsWith(`${marks.prefix}/`) || key === marks.lastHandled) return true;
  if (key.endsWith(`/${LAST_HANDLED_NAME}`)) return true;
  return looksLikeProgress(value);
}

export function buildEssence(body: KubernetesObject, marks: Marks = DEFAULT_MARKS): Essence {
  const essence: Essence = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === 'apiVersion' || key === 'kind' || key === 'metadata' || key === 'status') continue;
    essence[key] = clone(value);
  }
  const meta = body.metadata ?? {};
  const metadata: Record<string, unknown> = {};
  if (isPlainObject(meta.labels)) metadata.labels = clone(meta.labels);
  const annotations: Record<string, unknown> = {};
  if (isPlainObject(meta.annotations)) {
    for (const [key, value] of Object.entries(meta.annotations)) {
      if (IGNORED_ANNOTATIONS.has(key) || isMark(key, value, marks)) continue;
      annotations[key] = value;
    }
  }
  metadata.annotations = annotations;
  essence.metadata = metadata;
  return pruneEmpty(essence);
}

/**
 * Fields of an object whose values must not be stored as they are (a Secret's `data` and `stringData`,
 * fields a registration marks `sensitive`), and the key their digests are made with.
 */
export interface Secrecy {
  /** Dotted paths into the essence (`data`, `spec.password`): every value at or below one is concealed. */
  paths: readonly string[];
  /**
   * The operator's digest key (operator.ts reads or creates it in a Secret of its namespace). Without the
   * key a digest cannot be recomputed, so a short secret cannot be guessed from the stored essence by
   * trying values, as a plain or salted hash would allow.
   */
  key: Uint8Array;
}

export const CONCEALED_KEY = '$digest';
const HMAC_PREFIX = 'hmac-sha256:';

/**
 * `essence` with every value at or below the secrecy's paths replaced by `{"$digest": "hmac-sha256:…"}`:
 * HMAC-SHA256 under the operator's key of the object's uid, the value's path and the value (so equal
 * values in two objects or two keys do not share a digest). Objects are descended into, so the keys stay
 * (a Secret's key names are no secret: `kubectl describe` shows them) and `diff` names the key that
 * changed; equal values give equal digests, so change detection is unchanged. The stored essence and the
 * `old`/`new`/`diff` handlers see are both concealed: no secret value is written, nor logged by a
 * handler that logs its diff.
 */
export function conceal(essence: Essence, secrecy: Secrecy, uid: string): Essence {
  if (secrecy.paths.length === 0) return essence;
  const digest = (path: readonly string[], value: unknown) => {
    const mac = createHmac('sha256', secrecy.key).update(JSON.stringify([uid, path, canonical(value)]));
    return { [CONCEALED_KEY]: `${HMAC_PREFIX}${mac.digest('hex').slice(0, 32)}` };
  };
  const walk = (value: unknown, path: readonly string[]): unknown =>
    isPlainObject(value)
      ? Object.fromEntries(Object.entries(value).map(([key, member]) => [key, walk(member, [...path, key])]))
      : digest(path, value);
  let result: unknown = essence;
  for (const dotted of secrecy.paths) {
    const path = dotted.split('.').filter((segment) => segment.length > 0);
    if (path.length === 0 || getPath(result, path) === undefined) continue;
    result = replaceAt(result, path, walk(getPath(result, path), path));
  }
  return isPlainObject(result) ? result : essence;
}

/** A concealed value (`conceal`): compared and reported as one value, never descended into. */
function isConcealed(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const digest = value[CONCEALED_KEY];
  return Object.keys(value).length === 1 && typeof digest === 'string' && digest.startsWith(HMAC_PREFIX);
}

/** `value` with the member at `path` replaced (copies along the path, the rest shared). */
function replaceAt(value: unknown, path: readonly string[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const object = isPlainObject(value) ? value : {};
  return { ...object, [path[0]]: replaceAt(object[path[0]], path.slice(1), replacement) };
}

/**
 * How the last-handled essence stays within the annotation budget (all annotations of an object
 * together may hold 256 KiB, and `kubectl apply` already spends the size of the object on
 * last-applied-configuration). Kept whole while it can be, so `diff` and `old` stay exact:
 * 1. plain JSON up to ESSENCE_BUDGET (readable in `kubectl get -o yaml`, as kopf writes it);
 * 2. else gzip + base64 (`gzip+base64:` prefix) if that fits — typical large specs (embedded
 *    configs, lists of similar items) shrink 5-20x;
 * 3. else the largest values are replaced by their digest `{"$digest": "sha256:…"}` until the
 *    JSON fits (`digested+json:` prefix): `diff` still names the changed path (at the depth kept)
 *    with the new value, the old value of a digested field is `undefined`. Only this form's
 *    markers are read as digests (as Digest instances, which no JSON value can be), so a user's
 *    own `{"$digest": …}` is never mistaken for one.
 * kopf's alternative, keeping it in status, needs a schema that preserves unknown fields under
 * status; a digest of the whole essence alone would lose what `diff` needs.
 */
export const ESSENCE_BUDGET = 32 * 1024;
const GZIP_PREFIX = 'gzip+base64:';
const DIGESTED_PREFIX = 'digested+json:';
const DIGEST_KEY = '$digest';

/** A value of the last handled state known only by its digest. */
export class Digest {
  constructor(readonly digest: string) {}
}

/** JSON with sorted keys: equal values digest alike whatever order their keys came in. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function digestOf(value: unknown): string {
  return `sha256:${createHash('sha256').update(canonical(value)).digest('hex').slice(0, 32)}`;
}

/** `{"$digest": …}` standing for a value too large to keep. */
function digestMarker(value: unknown): Record<string, string> {
  return { [DIGEST_KEY]: digestOf(value) };
}

function isMarker(value: unknown): value is Record<string, string> {
  return isPlainObject(value) && Object.keys(value).length === 1 && typeof value[DIGEST_KEY] === 'string';
}

const size = (value: unknown) => JSON.stringify(value).length;

/** `value` within `budget` characters of JSON: small members kept whole, the rest shrunk in turn, else a digest. */
function shrink(value: unknown, budget: number): unknown {
  if (size(value) <= budget) return value;
  if (!isPlainObject(value)) return digestMarker(value);
  const members = Object.entries(value).map(([key, member]) => ({ key, member, size: size(member) }));
  members.sort((a, b) => a.size - b.size);
  const result: Record<string, unknown> = {};
  let left = budget - 2;
  members.forEach(({ key, member, size: memberSize }, i) => {
    const share = Math.floor(left / (members.length - i)) - key.length - 4;
    const kept = memberSize <= share ? member : shrink(member, Math.max(share, 0));
    result[key] = kept;
    left -= size(kept) + key.length + 4;
  });
  return size(result) <= budget ? result : digestMarker(value);
}

export function encodeEssence(essence: Essence): string {
  const json = JSON.stringify(essence);
  if (json.length < ESSENCE_BUDGET) return `${json}\n`; // trailing newline as kubectl's own annotation
  const packed = `${GZIP_PREFIX}${gzipSync(json).toString('base64')}`;
  if (packed.length <= ESSENCE_BUDGET) return packed;
  return `${DIGESTED_PREFIX}${JSON.stringify(shrink(essence, ESSENCE_BUDGET - DIGESTED_PREFIX.length))}`;
}

/** The essence an annotation value holds (any of encodeEssence's forms); undefined when unreadable. */
export function decodeEssence(raw: string): Essence | undefined {
  try {
    if (raw.startsWith(DIGESTED_PREFIX)) {
      const parsed: unknown = JSON.parse(raw.slice(DIGESTED_PREFIX.length), (_key, value: unknown) =>
        isMarker(value) ? new Digest(value[DIGEST_KEY]) : value,
      );
      return isPlainObject(parsed) ? parsed : undefined;
    }
    const json = raw.startsWith(GZIP_PREFIX)
      ? gunzipSync(Buffer.from(raw.slice(GZIP_PREFIX.length), 'base64')).toString('utf8')
      : raw;
    const parsed: unknown = JSON.parse(json);
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined; // a hand-edited, broken annotation: handle the object as new, as kopf would
  }
}

/** The essence stored by the last completed cause, or undefined when the object was never handled. */
export function lastHandledEssence(body: KubernetesObject, marks: Marks = DEFAULT_MARKS): Essence | undefined {
  const raw = body.metadata?.annotations?.[marks.lastHandled];
  return typeof raw === 'string' ? decodeEssence(raw) : undefined;
}

/** kopf's `diffs.diff`: a recursive diff of two JSON values, `[op, path, old, new]` per changed field. */
export function diff(a: unknown, b: unknown, path: readonly string[] = []): DiffItem[] {
  // A digested old value (see encodeEssence) compares by digest; its old value is not known.
  if (a instanceof Digest) return a.digest === digestOf(b) ? [] : [['change', path, undefined, b]];
  if (deepEqual(a, b)) return [];
  if (isPlainObject(a) && isPlainObject(b) && !isConcealed(a) && !isConcealed(b)) {
    const items: DiffItem[] = [];
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) items.push(...diff(a[key], b[key], [...path, key]));
    return items;
  }
  if (a === undefined || a === null) return [['add', path, undefined, b]];
  if (b === undefined || b === null) return [['remove', path, a, undefined]];
  return [['change', path, a, b]];
}

/** The part of `items` at or below `field` (dotted), with paths relative to it, like kopf's `diff.reduce`. */
export function reduceDiff(items: readonly DiffItem[], field: readonly string[]): DiffItem[] {
  const reduced: DiffItem[] = [];
  for (const [op, path, oldValue, newValue] of items) {
    const common = Math.min(path.length, field.length);
    if (!path.slice(0, common).every((segment, i) => segment === field[i])) continue;
    if (path.length >= field.length) {
      reduced.push([op, path.slice(field.length), oldValue, newValue]);
    } else {
      // The change is above the field (e.g. the whole spec added): narrow the values down to it.
      const rest = field.slice(path.length);
      reduced.push(...diff(getPath(oldValue, rest), getPath(newValue, rest)));
    }
  }
  return reduced;
}

export function parseField(field: string): string[] {
  return field.split('.').filter((segment) => segment.length > 0);
}
