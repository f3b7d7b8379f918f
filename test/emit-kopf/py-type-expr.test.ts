/**
 * Schema IR → Python, one table per transform (as test/emit/type-expr.test.ts for TypeScript):
 * each case a small schema in (under a property `x` of the root `T`), the exact text out.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emitPySchema } from '../helpers/schema-case.js';

interface PyCase {
  name: string;
  given: string;
  want: string;
  root?: boolean;
}

function table(title: string, cases: PyCase[]): void {
  describe(title, () => {
    for (const c of cases) {
      it(c.name, () => {
        const { text, diagnostics } = emitPySchema(c.given, c.root);
        assert.deepEqual(diagnostics, []);
        assert.equal(text, c.want);
      });
    }
  });
}

const member = (line: string) => `class T(TypedDict, total=False):\n    ${line}\n`;

table('scalars', [
  { name: 'string', given: '{"type": "string"}', want: member('x: str') },
  { name: 'integer', given: '{"type": "integer"}', want: member('x: int') },
  { name: 'number is float (an int is a float to checkers)', given: '{"type": "number"}', want: member('x: float') },
  { name: 'boolean', given: '{"type": "boolean"}', want: member('x: bool') },
  { name: 'int-or-string', given: '{"x-kubernetes-int-or-string": true}', want: member('x: Union[int, str]') },
  {
    name: 'no type, preserve unknown fields',
    given: '{"x-kubernetes-preserve-unknown-fields": true}',
    want: member('x: Any'),
  },
]);

table('enum and nullable', [
  {
    name: 'string enum, members deduplicated',
    given: '{"type": "string", "enum": ["A", "B", "A"]}',
    want: member('x: Literal["A", "B"]'),
  },
  { name: 'integer enum', given: '{"type": "integer", "enum": [1, 2]}', want: member('x: Literal[1, 2]') },
  { name: 'boolean enum', given: '{"type": "boolean", "enum": [true]}', want: member('x: Literal[True]') },
  {
    name: 'a fraction cannot be a literal: float',
    given: '{"type": "number", "enum": [0.5, 1]}',
    want: member('x: float'),
  },
  { name: 'nullable', given: '{"type": "string", "nullable": true}', want: member('x: Optional[str]') },
  {
    name: 'nullable enum listing null: one Optional',
    given: '{"type": "string", "nullable": true, "enum": ["A", null]}',
    want: member('x: Optional[Literal["A"]]'),
  },
  {
    name: 'quotes in an enum value',
    given: '{"type": "string", "enum": ["say \\"hi\\""]}',
    want: member('x: Literal["say \\"hi\\""]'),
  },
  { name: 'empty enum is the plain type', given: '{"type": "string", "enum": []}', want: member('x: str') },
]);

table('arrays and maps', [
  { name: 'list of scalars', given: '{"type": "array", "items": {"type": "string"}}', want: member('x: List[str]') },
  {
    name: 'list of lists',
    given: '{"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}',
    want: member('x: List[List[int]]'),
  },
  {
    name: 'map of scalars',
    given: '{"type": "object", "additionalProperties": {"type": "string"}}',
    want: member('x: Dict[str, str]'),
  },
  {
    name: 'map of anything',
    given: '{"type": "object", "additionalProperties": true}',
    want: member('x: Dict[str, Any]'),
  },
  {
    name: 'map of objects names the value',
    given: '{"type": "object", "additionalProperties": {"type": "object", "properties": {"a": {"type": "string"}}}}',
    want: 'class TXValue(TypedDict, total=False):\n    a: str\n\n\n' + member('x: Dict[str, TXValue]'),
  },
  {
    name: 'a named object keeping unknown fields is a Dict alias (a TypedDict has no index signature)',
    given:
      '{"type": "object", "x-kubernetes-preserve-unknown-fields": true, "additionalProperties": {"type": "string"}}',
    want: 'TX: TypeAlias = Dict[str, str]\n\n\n' + member('x: TX'),
  },
  {
    name: 'an open object without properties is a Dict[str, Any] alias',
    given: '{"type": "object", "x-kubernetes-preserve-unknown-fields": true}',
    want: 'TX: TypeAlias = Dict[str, Any]\n\n\n' + member('x: TX'),
  },
]);

table('objects: children first, required keys, documentation', [
  {
    name: 'nested objects are declared before their parents',
    given:
      '{"type": "object", "required": ["b"], "properties": {"b": {"type": "object", "properties": {"c": {"type": "integer"}}}}}',
    want:
      'class TXB(TypedDict, total=False):\n    c: int\n\n\nclass TX(TypedDict, total=False):\n    b: Required[TXB]\n\n\n' +
      member('x: TX'),
  },
  {
    name: 'an empty object takes no keys',
    given: '{"type": "object"}',
    want: 'class TX(TypedDict, total=False):\n    pass\n\n\n' + member('x: TX'),
  },
  {
    name: 'description and facts become the docstring after the key',
    given: '{"type": "integer", "description": "How many.", "minimum": 1, "default": 2}',
    want: member('x: int\n    """\n    How many.\n\n    @default 2\n    @minimum 1\n    """'),
  },
  {
    name: 'a docstring escapes backslashes and triple quotes, and a closing quote',
    given: '{"type": "string", "description": "a \\\\d \\"\\"\\" b \\"q\\""}',
    want: member('x: str\n    """a \\\\d \\"\\"\\" b "q\\""""'),
  },
  {
    name: 'a line ending in a quote after a backslash, or in three quotes',
    // The description: `a \"` then `b """`.
    given: String.raw`{"type": "string", "description": "a \\\"\nb \"\"\""}`,
    want: member(String.raw`x: str
    """
    a \\\"
    b \"\"\"
    """`),
  },
  {
    name: 'keys a class body cannot declare make the functional form, documentation as comments',
    root: true,
    given:
      '{"type": "object", "required": ["x-api-key"], "properties": {"x-api-key": {"type": "string", "description": "The key."}, "class": {"type": "integer"}}}',
    want: 'T = TypedDict(\n    "T",\n    {\n        "class": int,\n        # The key.\n        "x-api-key": Required[str],\n    },\n    total=False,\n)\n',
  },
  {
    name: 'a key spelt like a name the types use would shadow it: functional form',
    root: true,
    given: '{"type": "object", "properties": {"str": {"type": "integer"}, "name": {"type": "string"}}}',
    want: 'T = TypedDict(\n    "T",\n    {\n        "name": str,\n        "str": int,\n    },\n    total=False,\n)\n',
  },
  {
    name: 'an embedded resource is a Kubernetes object',
    given:
      '{"type": "object", "x-kubernetes-embedded-resource": true, "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"}, "data": {"type": "string"}}}',
    want:
      'class TX(TypedDict, total=False):\n    apiVersion: Required[str]\n    kind: Required[str]\n    metadata: kopfgen.ObjectMeta\n    data: str\n\n\n' +
      member('x: TX'),
  },
]);

table('write views', [
  {
    name: 'a required default is optional in the …Input type, declared after the read one',
    given: '{"type": "object", "required": ["size"], "properties": {"size": {"type": "integer", "default": 1}}}',
    want:
      'class TX(TypedDict, total=False):\n    size: Required[int]\n    """@default 1"""\n\n\n' +
      'class TXInput(TypedDict, total=False):\n    """TX as a user writes it (create, apply, patch): the fields the API server defaults may be left out."""\n\n    size: int\n    """@default 1"""\n\n\n' +
      member('x: TX'),
  },
]);
