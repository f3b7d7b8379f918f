/**
 * The hash ranges objects are shared out by (ARCHITECTURE.md, "Scaling out"): an object's key is the
 * 64-bit FNV-1a hash of its `metadata.uid`, KEP-5866's function (k8s.io/apimachinery/pkg/sharding
 * `HashField`: FNV-1a 64 over the string's bytes), so the ranges a replica holds can be given to a 1.36+
 * API server as a `shardSelector` in KEP-5866's syntax. The space [0, 2^64) is cut into `count` ranges,
 * range i being [⌊i·2^64/count⌋, ⌊(i+1)·2^64/count⌋). Pure: BigInt arithmetic, no I/O.
 */

const SPACE = 1n << 64n;
const MASK = SPACE - 1n;
/** FNV-1a 64's offset basis and prime (FNV spec, draft-eastlake-fnv). */
const OFFSET_BASIS = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;

/** The field KEP-5866 hashes for a range of objects (its other choice, the namespace, is not used here). */
export const SHARD_FIELD = 'object.metadata.uid';

const encoder = new TextEncoder();

/** The 64-bit FNV-1a hash of `text`'s UTF-8 bytes. */
export function fnv1a64(text: string): bigint {
  let hash = OFFSET_BASIS;
  for (const byte of encoder.encode(text)) hash = ((hash ^ BigInt(byte)) * PRIME) & MASK;
  return hash;
}

/** A hash as KEP-5866 writes a bound: `0x` and 16 lowercase hex digits, or `0x10000000000000000` for 2^64. */
export function hexBound(value: bigint): string {
  return value === SPACE ? '0x10000000000000000' : `0x${value.toString(16).padStart(16, '0')}`;
}

/** Where range `index` of `count` starts (inclusive); `rangeStart(count, count)` is 2^64, the end of the space. */
export function rangeStart(index: number, count: number): bigint {
  return (BigInt(index) * SPACE) / BigInt(count);
}

/** The range of `count` a hash falls in: the i with rangeStart(i) ≤ hash < rangeStart(i + 1). */
export function rangeOfHash(hash: bigint, count: number): number {
  // hash ≥ ⌊i·2^64/count⌋  ⟺  i < (hash + 1)·count / 2^64, so i = ⌈(hash + 1)·count / 2^64⌉ − 1
  const k = BigInt(count);
  return Number(((hash + 1n) * k + SPACE - 1n) / SPACE) - 1;
}

/** The range of `count` an object with this uid belongs to. */
export function rangeOf(uid: string, count: number): number {
  return rangeOfHash(fnv1a64(uid), count);
}

/** The number of ranges when it is a whole number from 1 to 1024, else why not (a diagnostic's text). */
export function rangeCountProblem(count: number): string | undefined {
  if (!Number.isInteger(count) || count < 1 || count > 1024) {
    return `the number of shards must be a whole number from 1 to 1024 (got ${count})`;
  }
  return undefined;
}

/**
 * The `shardSelector` that asks for the objects of `ranges` (indexes out of `count`), in KEP-5866's
 * syntax: one `shardRange(object.metadata.uid, 'start', 'end')` per run of adjacent ranges, joined by
 * ` || `, in order. Undefined for no range (nothing to ask for) and for every range (no selector needed).
 */
export function shardSelector(ranges: Iterable<number>, count: number): string | undefined {
  const held = [...new Set(ranges)].filter((r) => r >= 0 && r < count).sort((a, b) => a - b);
  if (held.length === 0 || held.length === count) return undefined;
  const runs: [number, number][] = [];
  for (const range of held) {
    const last = runs[runs.length - 1];
    if (last && last[1] === range) last[1] = range + 1;
    else runs.push([range, range + 1]);
  }
  return runs
    .map(
      ([from, to]) =>
        `shardRange(${SHARD_FIELD}, '${hexBound(rangeStart(from, count))}', '${hexBound(rangeStart(to, count))}')`,
    )
    .join(' || ');
}

/**
 * Whether a list answer shows that the server applied the selector asked for: KEP-5866's server echoes
 * it as `metadata.shardInfo.selector`. A server without the feature ignores the unknown parameter and
 * sends everything, with no shardInfo: the caller must then filter the objects itself.
 */
export function selectorHonoured(listMetadata: unknown, asked: string): boolean {
  if (typeof listMetadata !== 'object' || listMetadata === null) return false;
  const info: unknown = Reflect.get(listMetadata, 'shardInfo');
  if (typeof info !== 'object' || info === null) return false;
  return Reflect.get(info, 'selector') === asked;
}
