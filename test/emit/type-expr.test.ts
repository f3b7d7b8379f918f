/**
 * Schema IR → TypeScript, one table per transform (as openapi-typescript tests them): each case
 * a small schema in (as the CRD would write it under a property `x`), the exact text out.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emitSchema, type SchemaCase } from '../helpers/schema-case.js';

function table(title: string, cases: SchemaCase[]): void {
  describe(title, () => {
    for (const c of cases) {
      it(c.name, () => {
        const { text, diagnostics } = emitSchema(c.given, c.root);
        assert.deepEqual(diagnostics, []);
        assert.equal(text, c.want);
      });
    }
  });
}

const member = (line: string) => `interface T {\n  ${line}\n}\n`;

table('scalars', [
  { name: 'string', given: '{"type": "string"}', want: member('x?: string;') },
  { name: 'integer is number', given: '{"type": "integer"}', want: member('x?: number;') },
  { name: 'number', given: '{"type": "number"}', want: member('x?: number;') },
  { name: 'boolean', given: '{"type": "boolean"}', want: member('x?: boolean;') },
  { name: 'int-or-string', given: '{"x-kubernetes-int-or-string": true}', want: member('x?: number | string;') },
  {
    name: 'no type, preserve unknown fields',
    given: '{"x-kubernetes-preserve-unknown-fields": true}',
    want: member('x?: unknown;'),
  },
]);

table('enum and nullable', [
  {
    name: 'string enum, members deduplicated',
    given: '{"type": "string", "enum": ["A", "B", "A"]}',
    want: member('x?: "A" | "B";'),
  },
  { name: 'integer enum', given: '{"type": "integer", "enum": [1, 2]}', want: member('x?: 1 | 2;') },
  { name: 'nullable', given: '{"type": "string", "nullable": true}', want: member('x?: string | null;') },
  {
    name: 'nullable enum listing null adds no second null',
    given: '{"type": "string", "nullable": true, "enum": ["A", null]}',
    want: member('x?: "A" | null;'),
  },
  { name: 'empty enum is the plain type', given: '{"type": "string", "enum": []}', want: member('x?: string;') },
  {
    name: 'an enum value of another type is left out (the server refuses every object with it)',
    given: '{"type": "integer", "enum": [1, "x", 2.5]}',
    want: member('x?: 1;'),
  },
  {
    name: 'an enum with no value of its type: no value passes, the field can only be absent',
    given: '{"type": "integer", "enum": ["x"]}',
    want: member('x?: never;'),
  },
  {
    name: 'the same, nullable: only null passes',
    given: '{"type": "integer", "nullable": true, "enum": ["x"]}',
    want: member('x?: null;'),
  },
]);

table('arrays', [
  { name: 'of scalars', given: '{"type": "array", "items": {"type": "string"}}', want: member('x?: string[];') },
  {
    name: 'of a union gets parentheses',
    given: '{"type": "array", "items": {"x-kubernetes-int-or-string": true}}',
    want: member('x?: (number | string)[];'),
  },
  {
    name: 'of nullable items',
    given: '{"type": "array", "items": {"type": "string", "nullable": true}}',
    want: member('x?: (string | null)[];'),
  },
  {
    name: 'of arrays',
    given: '{"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}',
    want: member('x?: number[][];'),
  },
  {
    name: 'of objects: items named after the array',
    given: '{"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}}',
    want: 'interface T {\n  x?: TX[];\n}\n\nexport interface TX {\n  a?: string;\n}\n',
  },
  {
    name: 'nested arrays of objects add Item',
    given:
      '{"type": "array", "items": {"type": "array", "items":' +
      '{"type": "object", "properties": {"a": {"type": "string"}}}}}',
    want: 'interface T {\n  x?: TXItem[][];\n}\n\nexport interface TXItem {\n  a?: string;\n}\n',
  },
]);

table('objects', [
  {
    name: 'required and optional members, sorted by name',
    given: '{"type": "object", "required": ["b"], "properties": {"b": {"type": "string"}, "a": {"type": "integer"}}}',
    want: 'interface T {\n  x?: TX;\n}\n\nexport interface TX {\n  a?: number;\n  b: string;\n}\n',
  },
  {
    name: 'names that are not identifiers are quoted',
    given: '{"type": "object", "properties": {"tls.crt": {"type": "string"}, "x-y": {"type": "string"}}}',
    want: 'interface T {\n  x?: TX;\n}\n\nexport interface TX {\n  "tls.crt"?: string;\n  "x-y"?: string;\n}\n',
  },
  {
    name: 'an object without properties is a named empty interface',
    given: '{"type": "object"}',
    want: member('x?: TX;') + '\nexport interface TX {\n}\n',
  },
]);

table('maps and open objects', [
  {
    name: 'additionalProperties schema: an inline map',
    given: '{"type": "object", "additionalProperties": {"type": "string"}}',
    want: member('x?: { [key: string]: string };'),
  },
  {
    name: 'additionalProperties true: an inline map of unknown values',
    given: '{"type": "object", "additionalProperties": true}',
    want: member('x?: { [key: string]: unknown };'),
  },
  {
    name: 'map of objects: values named …Value',
    given: '{"type": "object", "additionalProperties": {"type": "object", "properties": {"a": {"type": "string"}}}}',
    want: 'interface T {\n  x?: { [key: string]: TXValue };\n}\n\nexport interface TXValue {\n  a?: string;\n}\n',
  },
  {
    name: "typed map with properties: the index admits the properties' types",
    given: '{"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}}',
    want:
      'interface T {\n  x?: TX;\n}\n\nexport interface TX {\n  a?: number;\n' +
      '  [key: string]: string | number | undefined;\n}\n',
  },
  {
    name: 'preserve unknown fields with properties: typed members and an unknown index',
    given: '{"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"a": {"type": "string"}}}',
    want: 'interface T {\n  x?: TX;\n}\n\nexport interface TX {\n  a?: string;\n  [key: string]: unknown;\n}\n',
  },
  {
    name: 'preserve unknown fields with a typed map: the value type is kept (every key has a schema)',
    given:
      '{"type": "object", "x-kubernetes-preserve-unknown-fields": true, "additionalProperties": {"type": "string"}}',
    want: 'interface T {\n  x?: TX;\n}\n\nexport interface TX {\n  [key: string]: string;\n}\n',
  },
  {
    name: 'preserve unknown fields with a map of objects: values typed by the named …Value',
    given:
      '{"type": "object", "x-kubernetes-preserve-unknown-fields": true, "additionalProperties":' +
      '{"type": "object", "properties": {"a": {"type": "string"}}}}',
    want: 'interface T {\n  x?: TX;\n}\n\nexport interface TX {\n  [key: string]: TXValue;\n}\n\nexport interface TXValue {\n  a?: string;\n}\n',
  },
  {
    name: 'preserve unknown fields with additionalProperties true: unknown values',
    given: '{"type": "object", "x-kubernetes-preserve-unknown-fields": true, "additionalProperties": true}',
    want: 'interface T {\n  x?: TX;\n}\n\nexport interface TX {\n  [key: string]: unknown;\n}\n',
  },
]);

const WRITE_DOC = (name: string) =>
  `/** ${name} as a user writes it (create, apply, patch): the fields the API server defaults may be left out. */\n`;

table('write view (required with a default)', [
  {
    name: 'optional in the write view only; the root gets TInput',
    given:
      '{"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "string", "default": "d"}, "b": {"type": "integer"}}}',
    want:
      'interface T {\n  x?: TX;\n}\ninterface TInput {\n  x?: TXInput;\n}\n\nexport interface TX {\n  /** @default "d" */\n  a: string;\n  b: number;\n}\n\n' +
      WRITE_DOC('TX') +
      'export interface TXInput {\n  /** @default "d" */\n  a?: string;\n  b: number;\n}\n',
  },
  {
    name: "through an inline map and an array: the write view names the values' and items' …Input",
    given:
      '{"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "object", "required": ["a"], "properties": {"a": {"type": "string", "default": "d"}}}},' +
      '"l": {"type": "array", "items": {"type": "object", "required": ["b"], "properties": {"b": {"type": "boolean", "default": true}}}}}}',
    want:
      'interface T {\n  x?: TX;\n}\ninterface TInput {\n  x?: TXInput;\n}\n\nexport interface TX {\n  l?: TXL[];\n  m?: { [key: string]: TXMValue };\n}\n\n' +
      WRITE_DOC('TX') +
      'export interface TXInput {\n  l?: TXLInput[];\n  m?: { [key: string]: TXMValueInput };\n}\n\n' +
      'export interface TXL {\n  /** @default true */\n  b: boolean;\n}\n\n' +
      WRITE_DOC('TXL') +
      'export interface TXLInput {\n  /** @default true */\n  b?: boolean;\n}\n\n' +
      'export interface TXMValue {\n  /** @default "d" */\n  a: string;\n}\n\n' +
      WRITE_DOC('TXMValue') +
      'export interface TXMValueInput {\n  /** @default "d" */\n  a?: string;\n}\n',
  },
  {
    name: 'write-view names are claimed after read names: a property `input` keeps its name',
    given:
      '{"type": "object", "required": ["a"], "properties": {"a": {"type": "string", "default": "d"}, "input": {"type": "object", "properties": {"c": {"type": "string"}}}}}',
    want:
      'interface T {\n  x?: TX;\n}\ninterface TInput {\n  x?: TXInput2;\n}\n\nexport interface TX {\n  /** @default "d" */\n  a: string;\n  input?: TXInput;\n}\n\n' +
      WRITE_DOC('TX') +
      'export interface TXInput2 {\n  /** @default "d" */\n  a?: string;\n  input?: TXInput;\n}\n\n' +
      'export interface TXInput {\n  c?: string;\n}\n',
  },
]);

table('embedded resources', [
  {
    name: 'an embedded resource extends KubernetesObject; its own apiVersion/kind/metadata are implied',
    given:
      '{"type": "object", "x-kubernetes-embedded-resource": true, "properties": ' +
      '{"kind": {"type": "string"}, "spec": {"type": "object", "properties": {"a": {"type": "string"}}}}}',
    want:
      'interface T {\n  x?: TX;\n}\n\nexport interface TX extends KubernetesObject {\n' +
      '  apiVersion: string;\n  kind: string;\n  metadata?: ObjectMeta;\n' +
      '  spec?: TXSpec;\n}\n\nexport interface TXSpec {\n  a?: string;\n}\n',
  },
]);

table('documentation', [
  {
    name: 'description',
    given: '{"type": "string", "description": "The name."}',
    want: 'interface T {\n  /** The name. */\n  x?: string;\n}\n',
  },
  {
    name: 'description and constraint tags',
    given:
      '{"type": "integer", "description": "Replicas.",' +
      '"minimum": 0, "maximum": 5, "exclusiveMaximum": true, "default": 1}',
    want:
      'interface T {\n  /**\n   * Replicas.\n   *\n' +
      '   * @default 1\n   * @minimum 0\n   * @maximum 5 (exclusive)\n   */\n  x?: number;\n}\n',
  },
  {
    name: 'a comment end inside text is escaped',
    given: '{"type": "string", "description": "a */ b"}',
    want: 'interface T {\n  /** a *\\/ b */\n  x?: string;\n}\n',
  },
]);
