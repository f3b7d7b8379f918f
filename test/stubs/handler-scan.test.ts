/** The names a generated module exports, read from the text kopfgen wrote. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exportedNames } from '../../src/stubs/handler-scan.js';

test('exported names of a module and of index.ts', () => {
  const module =
    'export interface A {}\nexport const B = 1;\nexport class C extends D {}\nexport type E = string;\nexport function F() {}\n';
  assert.deepEqual([...exportedNames(module)].sort(), ['A', 'B', 'C', 'E', 'F']);
  const index = 'export type { A, B as Bee } from "./x.js";\nexport { C } from "./x.js";\n';
  assert.deepEqual([...exportedNames(index)].sort(), ['A', 'Bee', 'C']);
});
