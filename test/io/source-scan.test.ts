/**
 * One file of the user's project parsed as TypeScript: imports (with aliases, re-exports and a
 * namespace's members) and registrations of every handler kind, each at its line and column; a
 * registration in a comment, a string or a template is none.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ts } from 'ts-morph';
import { scanSource } from '../../src/io/source-scan.js';

const FILE = [
  'import type { HandlerContext } from "kopfgen/runtime";',
  'import { MyResourceMyapp as App, type MyResourceMyappStatus } from "../generated/example.com/v1/myresources.js";',
  "const url = 'http://x'; // MyResourceGone.onCreate(fn)",
  '/* MyResourceGone.onUpdate(fn) */',
  'App.onCreate(create);',
  '  MyResourceOther . onResume (resume);',
  'something.onion(x); helper.onCreated(y);',
  'App.onTimer(tick, { interval: 60 }); App.onDaemon(follow); App.onEvent(audit);',
  'const s = "WidgetResize.onCreate(fn)"; const t = `WidgetResize.onUpdate(${s})`;',
  '',
].join('\n');

test('imports and registrations, positioned; aliases resolved; comments, strings and templates ignored', () => {
  const scan = scanSource(ts, 'a.ts', FILE);
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

test('a namespace import registers and needs its members; a re-export needs its names; .tsx parses as TSX', () => {
  const text = [
    'import * as G from "../generated/index.js";',
    'export { WidgetResize, type WidgetResizeStatus as Status } from "../generated/index.js";',
    'G.WidgetResize.onCreate(fn);',
    'const v = <div>{G.WidgetGone}</div>;',
    '',
  ].join('\n');
  const scan = scanSource(ts, 'a.tsx', text);
  assert.deepEqual(
    scan.imports.map((i) => [i.name, i.line, i.col]),
    [
      ['WidgetResize', 2, 10],
      ['WidgetResizeStatus', 2, 29],
      ['WidgetResize', 3, 3],
      ['WidgetGone', 4, 19],
    ],
  );
  assert.deepEqual(
    scan.registrations.map((r) => [r.definition, r.method, r.line, r.col]),
    [['WidgetResize', 'onCreate', 3, 1]],
  );
});

test('a file with a syntax error is still read as far as it parses', () => {
  const scan = scanSource(ts, 'a.ts', 'import { A } from "./g.js";\nA.onCreate(fn);\nfunction broken( {\n');
  assert.deepEqual(
    scan.registrations.map((r) => r.definition),
    ['A'],
  );
});
