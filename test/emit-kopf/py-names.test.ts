/**
 * Python's spelling of the naming pass's names: given/want tables for the escaping of type names,
 * which keys a class body can declare, module path segments, group packages and stub function names.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  groupPackages,
  isClassFormKey,
  moduleSegment,
  pyName,
  pyString,
  snakeCase,
} from '../../src/emit-kopf/py-names.js';

function table<G, W>(title: string, fn: (given: G) => W, cases: [G, W][]): void {
  describe(title, () => {
    for (const [given, want] of cases)
      it(`${JSON.stringify(given)} → ${JSON.stringify(want)}`, () => assert.deepEqual(fn(given), want));
  });
}

table('pyName: a keyword or a name the module binds gets a trailing underscore', pyName, [
  ['MyResource', 'MyResource'],
  ['MyResourceSpec', 'MyResourceSpec'],
  ['None', 'None_'],
  ['True', 'True_'],
  ['False', 'False_'],
  ['Any', 'Any_'],
  ['Dict', 'Dict_'],
  ['List', 'List_'],
  ['Literal', 'Literal_'],
  ['Optional', 'Optional_'],
  ['Union', 'Union_'],
  ['Required', 'Required_'],
  ['TypedDict', 'TypedDict_'],
  ['TypeAlias', 'TypeAlias_'],
  ['GROUP', 'GROUP_'],
  ['KIND', 'KIND_'],
  ['Kind', 'Kind'],
  ['AnyThing', 'AnyThing'],
]);

table('isClassFormKey: identifiers that are not keywords and that a class body does not mangle', isClassFormKey, [
  ['image', true],
  ['apiVersion', true],
  ['_private', true],
  ['__dunder__', true],
  ['match', true],
  ['type', true],
  ['x-api-key', false],
  ['tls.crt', false],
  ['$ref', false],
  ['1stChoice', false],
  ['with space', false],
  ['class', false],
  ['from', false],
  ['None', false],
  ['__mangled', false],
  ['größe', false],
  ['', false],
]);

table('pyString: a Python string literal reading back the value', pyString, [
  ['plain', '"plain"'],
  ['say "hi"', '"say \\"hi\\""'],
  ['back\\slash', '"back\\\\slash"'],
  ['line\nbreak', '"line\\nbreak"'],
  ['\u0000', '"\\u0000"'],
]);

table('moduleSegment: a version or plural as a module name', moduleSegment, [
  ['v1', 'v1'],
  ['v1beta1', 'v1beta1'],
  ['my-things', 'my_things'],
  ['example.com', 'example_com'],
  ['3scale.net', '_3scale_net'],
  ['class', 'class_'],
  ['import', 'import_'],
]);

table(
  'groupPackages: readable, numbered in group order where two groups spell alike',
  (groups: string[]) => Object.fromEntries(groupPackages(groups)),
  [
    [['example.com'], { 'example.com': 'example_com' }],
    [
      ['cert-manager.io', 'acme.cert-manager.io'],
      { 'cert-manager.io': 'cert_manager_io', 'acme.cert-manager.io': 'acme_cert_manager_io' },
    ],
    [['a.b.io', 'a-b.io'], { 'a-b.io': 'a_b_io', 'a.b.io': 'a_b_io2' }],
    [['a-b.io', 'a.b.io'], { 'a-b.io': 'a_b_io', 'a.b.io': 'a_b_io2' }],
    [['3scale.net'], { '3scale.net': '_3scale_net' }],
  ],
);

table("snakeCase: the naming pass's PascalCase as a function name", snakeCase, [
  ['Myapp', 'myapp'],
  ['MyApp', 'my_app'],
  ['CreateFn', 'create_fn'],
  ['AB', 'a_b'],
  ['AB2', 'a_b2'],
  ['Handler3d', 'handler3d'],
]);
