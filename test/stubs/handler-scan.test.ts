/**
 * The handler-file scan: imports (with aliases) and registrations of every handler kind, each at its line and column;
 * comments do not count, strings do not start comments; a generated module's exported names.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blankComments, exportedNames, scanHandlerFile } from '../../src/stubs/handler-scan.js';

const FILE = [
  'import type { HandlerContext } from "kopfgen/runtime";',
  'import { MyResourceMyapp as App, type MyResourceMyappStatus } from "../generated/example.com/v1/myresources.js";',
  "const url = 'http://x'; // MyResourceGone.onCreate(fn)",
  '/* MyResourceGone.onUpdate(fn) */',
  'App.onCreate(create);',
  '  MyResourceOther . onResume (resume);',
  'something.onion(x); helper.onCreated(y);',
  'App.onTimer(tick, { interval: 60 }); App.onDaemon(follow); App.onEvent(audit);',
  '',
].join('\n');

test('imports and registrations, positioned; aliases resolved; comments ignored', () => {
  const scan = scanHandlerFile(FILE);
  assert.deepEqual(
    scan.imports.map((i) => [i.module, i.name, i.local, i.line, i.col]),
    [
      ['kopfgen/runtime', 'HandlerContext', 'HandlerContext', 1, 15],
      ['../generated/example.com/v1/myresources.js', 'MyResourceMyapp', 'App', 2, 10],
      ['../generated/example.com/v1/myresources.js', 'MyResourceMyappStatus', 'MyResourceMyappStatus', 2, 39],
    ],
  );
  assert.deepEqual(
    scan.registrations.map((r) => [r.definition, r.method, r.line, r.col]),
    [
      ['MyResourceMyapp', 'onCreate', 5, 1],
      ['MyResourceOther', 'onResume', 6, 3],
      ['MyResourceMyapp', 'onTimer', 8, 1],
      ['MyResourceMyapp', 'onDaemon', 8, 38],
      ['MyResourceMyapp', 'onEvent', 8, 60],
    ],
  );
});

test('blanking comments keeps offsets and newlines; strings are kept whole', () => {
  const given = 'a // b\n/* c\nd */ e "//f" `/*g*/`';
  const want = 'a     \n    \n     e "//f" `/*g*/`';
  assert.equal(blankComments(given), want);
  assert.equal(blankComments(given).length, given.length);
});

test('exported names of a module and of index.ts', () => {
  const module =
    'export interface A {}\nexport const B = 1;\nexport class C extends D {}\nexport type E = string;\nexport function F() {}\n';
  assert.deepEqual([...exportedNames(module)].sort(), ['A', 'B', 'C', 'E', 'F']);
  const index = 'export type { A, B as Bee } from "./x.js";\nexport { C } from "./x.js";\n';
  assert.deepEqual([...exportedNames(index)].sort(), ['A', 'Bee', 'C']);
});
