/**
 * The write view: which properties the API server defaults (required and with a `default`), and
 * which object nodes therefore need a write-view type of their own (given/want by JSON pointer).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IMPLIED_MEMBERS } from '../../src/model/naming.js';
import { serverDefaulted, writeViewNodes } from '../../src/model/write-view.js';
import { readSchema } from '../helpers/schema-case.js';

const cases: { name: string; given: string; want: string[]; rootImplied?: boolean }[] = [
  {
    name: 'no default: no node differs',
    given: '{"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}',
    want: [],
  },
  {
    name: 'a default on an optional property changes nothing',
    given: '{"type": "object", "properties": {"a": {"type": "string", "default": "x"}}}',
    want: [],
  },
  {
    name: 'required with a default: the node differs',
    given: '{"type": "object", "required": ["a"], "properties": {"a": {"type": "string", "default": "x"}}}',
    want: [''],
  },
  {
    name: 'a default null still counts',
    given:
      '{"type": "object", "required": ["a"], "properties": {"a": {"type": "string", "nullable": true, "default": null}}}',
    want: [''],
  },
  {
    name: 'ancestors differ through properties, array items and map values; siblings do not',
    given:
      '{"type": "object", "properties": {' +
      '"list": {"type": "array", "items": {"type": "array", "items": {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer", "default": 1}}}}},' +
      '"map": {"type": "object", "additionalProperties": {"type": "object", "required": ["b"], "properties": {"b": {"type": "boolean", "default": true}}}},' +
      '"plain": {"type": "object", "properties": {"c": {"type": "string"}}}}}',
    want: ['', '/properties/list/items/items', '/properties/map', '/properties/map/additionalProperties'],
  },
  {
    name: 'members a Kubernetes object types itself are not walked at the root',
    given:
      '{"type": "object", "properties": {"metadata": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "default": "n"}}}}}',
    want: [],
    rootImplied: true,
  },
  {
    name: 'nor in an embedded resource',
    given:
      '{"type": "object", "properties": {"t": {"type": "object", "x-kubernetes-embedded-resource": true, "required": ["kind"], "properties": {"kind": {"type": "string", "default": "Pod"}}}}}',
    want: [],
  },
];

describe('writeViewNodes', () => {
  for (const c of cases) {
    it(c.name, () => {
      const { schema, diagnostics } = readSchema(c.given);
      assert.deepEqual(diagnostics, []);
      const nodes = writeViewNodes(schema, IMPLIED_MEMBERS, c.rootImplied ?? false);
      assert.deepEqual([...nodes].map((n) => n.pointer).sort(), c.want);
    });
  }
});

describe('serverDefaulted', () => {
  it('is required and defaulted, nothing else', () => {
    const { schema } = readSchema(
      '{"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "string", "default": ""}, "b": {"type": "string"}, "c": {"type": "string", "default": "x"}}}',
    );
    assert.deepEqual(
      schema.properties.map((p) => [p.name, serverDefaulted(p)]),
      [
        ['a', true],
        ['b', false],
        ['c', false],
      ],
    );
  });
});
