/**
 * json-patch.ts against an independent RFC 6902 implementation (fast-json-patch, validating every
 * operation: a `replace` or `remove` of a missing path fails): over 10,000 random pairs of documents
 * whose keys include prototype member names (`constructor`, `__proto__`, …) and keys RFC 6901
 * escapes, the patch applied to the first yields exactly the second. fast-json-patch sets keys with
 * `obj[key] = …`, which for `__proto__` would set the prototype, so both documents and the patch's
 * paths are applied with every object key prefixed (`k:`), a renaming under which a correct patch
 * stays correct (the diff never descends into lists, so every path segment is an object key).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fastJsonPatch from 'fast-json-patch';
import { deepEqual } from '../../../src/runtime/json.js';
import { jsonPatch } from '../../../src/runtime/webhooks/json-patch.js';
import { random } from '../../../src/testing/sample-objects.js';

const KEYS = [
  'a',
  'b',
  'constructor',
  '__proto__',
  'hasOwnProperty',
  'toString',
  'valueOf',
  'a/b',
  'c~d',
  '~1',
  '',
  'x y',
];

function value(rnd: () => number, depth: number): unknown {
  const pick = rnd();
  if (depth > 3 || pick < 0.35) {
    const scalars = [0, 1, -2.5, 'x', '', true, false, null];
    return scalars[Math.floor(rnd() * scalars.length)];
  }
  if (pick < 0.45) return Array.from({ length: Math.floor(rnd() * 3) }, () => value(rnd, depth + 1));
  return object(rnd, depth + 1);
}

/** An object with own keys only (`__proto__` defined as a property, as JSON.parse makes it). */
function object(rnd: () => number, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of KEYS)
    if (rnd() < 0.3)
      Object.defineProperty(out, key, {
        value: value(rnd, depth),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  return out;
}

/** `to`, mostly `from` with edits, so the diffs are small as a mutation's are. */
function edited(rnd: () => number, from: unknown, depth: number): unknown {
  if (rnd() < 0.15) return value(rnd, depth);
  if (from === null || typeof from !== 'object' || Array.isArray(from)) return rnd() < 0.7 ? from : value(rnd, depth);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(from)) {
    if (rnd() < 0.15) continue;
    Object.defineProperty(out, key, {
      value: edited(rnd, Reflect.get(from, key), depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  for (const key of KEYS)
    if (!Object.hasOwn(out, key) && rnd() < 0.1)
      Object.defineProperty(out, key, {
        value: value(rnd, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  return out;
}

/** Every object key prefixed with `k:` (lists keep their indices). */
function renamed(doc: unknown): unknown {
  if (Array.isArray(doc)) return doc.map(renamed);
  if (doc === null || typeof doc !== 'object') return doc;
  return Object.fromEntries(Object.entries(doc).map(([k, v]) => [`k:${k}`, renamed(v)]));
}

it('10,000 random patches applied by fast-json-patch yield exactly the target', () => {
  const rnd = random(27);
  for (let i = 0; i < 10_000; i++) {
    const from = object(rnd, 0);
    const to = edited(rnd, from, 0);
    const ops = jsonPatch(from, to);
    const renamedOps = ops.map((op) => ({
      ...op,
      path:
        op.path === ''
          ? ''
          : `/${op.path
              .slice(1)
              .split('/')
              .map((s) => `k:${s}`)
              .join('/')}`,
      ...('value' in op ? { value: renamed(op.value) } : {}),
    }));
    const applied = fastJsonPatch.applyPatch(
      renamed(from),
      renamedOps as fastJsonPatch.Operation[],
      true,
      false,
    ).newDocument;
    assert.ok(
      deepEqual(applied, renamed(to)),
      `case ${i}: ${JSON.stringify(from)} → ${JSON.stringify(to)}: ${JSON.stringify(ops)}`,
    );
    // The patch as JSON (what the API server receives) names the same operations.
    assert.deepEqual(
      JSON.parse(JSON.stringify(ops)),
      ops.map((op) => JSON.parse(JSON.stringify(op))),
    );
  }
});
