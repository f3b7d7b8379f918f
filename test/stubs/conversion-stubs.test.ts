/**
 * The conversion stub file follows the user like the handler stubs: a filled-in file is a merge fixed
 * point (also with its functions renamed, since the spoke's registration is what counts), a version
 * the CRD gains appends its functions and registration, and a spoke registered in another file of the
 * stubs directory is not added again.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { generate } from '../../src/generate.js';
import { mergeStubFile } from '../../src/io/stub-merge.js';
import { readStubTemplates } from '../../src/io/stub-templates.js';
import { ts } from 'ts-morph';
import { scanSource } from '../../src/io/source-scan.js';
import { readFixture } from '../helpers/handler-typecheck.js';
import { outsideUnitScope } from '../helpers/test-scope.js';

const CRD = 'examples/widgets/widgets.yaml';
const skip = outsideUnitScope('ts-morph (the stub merge)');

function conversionStub(text: string) {
  const result = generate([{ file: CRD, text }], {
    stubs: { dir: 'handlers', templates: readStubTemplates() },
    generatedImportBase: '../generated',
  });
  const stub = result.files.find((f) => f.path === 'widgets.conversion.ts');
  assert.ok(stub);
  return stub;
}

it('a spoke registration is scanned as <Kind>Conversion.<version>, through an alias too', () => {
  const scan = scanSource(
    ts,
    'widgets.conversion.ts',
    'import { WidgetConversion as C } from "../generated/example.com/widgets.conversion.js";\n' +
      "C.register('v1alpha1', { toHub, fromHub });\n// WidgetConversion.register('v0', x);\n",
  );
  assert.deepEqual(
    scan.registrations.map((r) => [r.definition, r.method, r.line]),
    [['WidgetConversion.v1alpha1', 'register', 2]],
  );
});

it('fixed point, renamed functions kept, a new version appended, one registered elsewhere not', { skip }, () => {
  const text = readFixture(CRD);
  const stub = conversionStub(text);
  assert.deepEqual(
    stub.stubs?.map((s) => s.definition),
    ['WidgetConversion.v1alpha1'],
  );
  const mine = readFixture('examples/widgets/handlers/widgets.conversion.ts');
  assert.equal(mergeStubFile(mine, stub).text, mine);
  const renamed = mine.replace(/widgetV1alpha1ToHub/g, 'up').replace(/widgetV1alpha1FromHub/g, 'down');
  assert.deepEqual(mergeStubFile(renamed, stub).added, []);

  // The CRD gains v1beta1 (a copy of v1alpha1's schema, served, not stored).
  const versions = text.slice(text.indexOf('    - name: v1alpha1'));
  const grown = `${text}${versions.replace('name: v1alpha1', 'name: v1beta1')}`;
  const next = conversionStub(grown);
  const merged = mergeStubFile(mine, next);
  assert.deepEqual(
    merged.added.map((s) => s.name),
    ['widgetV1beta1ToHub'],
  );
  // Insertion only: every line of the user's file is still there, in order.
  const lines = merged.text.split('\n');
  let at = 0;
  for (const line of mine.split('\n')) at = lines.indexOf(line, at) + 1;
  assert.ok(at > 0 && mine.split('\n').every((l) => lines.includes(l)), 'insertion only');
  assert.match(
    merged.text,
    /\nWidgetConversion\.register\("v1beta1", \{ toHub: widgetV1beta1ToHub, fromHub: widgetV1beta1FromHub \}\);\n$/,
  );
  assert.match(
    merged.text,
    /import type \{ WidgetV1beta1 \} from "\.\.\/generated\/example\.com\/v1beta1\/widgets\.js";/,
  );
  assert.deepEqual(mergeStubFile(mine, next, new Set(['WidgetConversion.v1beta1'])).added, []);
});
