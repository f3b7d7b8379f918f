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

/** Keys JSON allows that a JavaScript object would read from its prototype, and keys RFC 6901 escapes. */
const prototypeCases: { name: string; from: unknown; to: unknown; want: unknown[] }[] = [
  {
    name: 'a key named constructor removed',
    from: { constructor: 'x', k: 1 },
    to: { k: 1 },
    want: [{ op: 'remove', path: '/constructor' }],
  },
  {
    name: 'a key named hasOwnProperty added: an add, not a replace of a missing path',
    from: { k: 1 },
    to: { k: 1, hasOwnProperty: 'y' },
    want: [{ op: 'add', path: '/hasOwnProperty', value: 'y' }],
  },
  {
    name: 'an own __proto__ key added whole, not into the prototype',
    from: { k: 1 },
    to: JSON.parse('{"k":1,"__proto__":{"a":1}}'),
    want: [{ op: 'add', path: '/__proto__', value: JSON.parse('{"a":1}') }],
  },
  {
    name: 'an own __proto__ key removed',
    from: JSON.parse('{"k":1,"__proto__":{"a":1}}'),
    to: { k: 1 },
    want: [{ op: 'remove', path: '/__proto__' }],
  },
];
for (const c of prototypeCases) it(c.name, () => assert.deepEqual(jsonPatch(c.from, c.to), c.want));
