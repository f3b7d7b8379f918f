/** RFC 6902 patches from one JSON value to another (json-patch.ts), given/want. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { jsonPatch } from '../../../src/runtime/webhooks/json-patch.js';

const cases: { name: string; from: unknown; to: unknown; want: unknown[] }[] = [
  { name: 'equal: no operation', from: { a: { b: [1] } }, to: { a: { b: [1] } }, want: [] },
  { name: 'a key added deep', from: { a: {} }, to: { a: { b: 1 } }, want: [{ op: 'add', path: '/a/b', value: 1 }] },
  { name: 'a key removed', from: { a: 1, b: 2 }, to: { b: 2 }, want: [{ op: 'remove', path: '/a' }] },
  { name: 'a value replaced', from: { a: 'x' }, to: { a: 'y' }, want: [{ op: 'replace', path: '/a', value: 'y' }] },
  {
    name: 'a list replaced whole',
    from: { l: [1, 2] },
    to: { l: [1, 3] },
    want: [{ op: 'replace', path: '/l', value: [1, 3] }],
  },
  {
    name: 'keys escaped (RFC 6901)',
    from: { m: {} },
    to: { m: { 'a/b': 1, 'c~d': 2 } },
    want: [
      { op: 'add', path: '/m/a~1b', value: 1 },
      { op: 'add', path: '/m/c~0d', value: 2 },
    ],
  },
  {
    name: 'an object becoming a scalar',
    from: { a: { b: 1 } },
    to: { a: null },
    want: [{ op: 'replace', path: '/a', value: null }],
  },
  { name: 'undefined is no key', from: { a: undefined }, to: { a: 1 }, want: [{ op: 'add', path: '/a', value: 1 }] },
];
for (const c of cases) it(c.name, () => assert.deepEqual(jsonPatch(c.from, c.to), c.want));
