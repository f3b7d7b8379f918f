import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from '../src/generate.js';
import { expectedErrors, formatErrors, readFixture, typeCheckProject } from './handler-typecheck.js';

const CRD = 'test/fixtures/handlers/typed.yaml';

function project(cases: string[]) {
  const result = generate([{ file: CRD, text: readFixture(CRD) }], { stubs: { dir: 'handlers' }, generatedImportBase: '../generated' });
  assert.deepEqual(result.diagnostics.filter((d) => d.severity === 'error'), []);
  const extra = Object.fromEntries(cases.map((c) => [`cases/${c}`, readFixture(`test/fixtures/handlers/cases/${c}`)]));
  return { result, errors: typeCheckProject({ generated: result.files.filter((f) => f.role === 'generated'), stubs: result.files.filter((f) => f.role === 'stub'), extra }) };
}

test('generated handler code, stubs and correct handlers compile under strict', () => {
  const { errors } = project(['positive.ts']);
  assert.deepEqual(formatErrors(errors), []);
});

test('wrong statuses are compile errors with exact codes and lines (sync, async, enum, error status, brand)', () => {
  const { errors } = project(['exactness.ts']);
  const expected = expectedErrors('cases/exactness.ts', readFixture('test/fixtures/handlers/cases/exactness.ts'));
  assert.equal(expected.length, 11);
  assert.deepEqual(formatErrors(errors), expected, errors.map((e) => `${e.file}:${e.line} ${e.code} ${e.message}`).join('\n'));
});

test('the error points at the offending field or names it', () => {
  const { errors } = project(['exactness.ts']);
  const text = readFixture('test/fixtures/handlers/cases/exactness.ts').split('\n');
  const at = (line: number) => {
    const e = errors.find((x) => x.line === line);
    assert.ok(e, `an error on line ${line}`);
    return { word: text[line - 1].slice(e.col - 1).match(/^[\w']+/)?.[0], message: e.message };
  };
  // Sync callbacks and error constructors: the error sits on the field itself.
  assert.equal(at(14).word, 'bogus');
  assert.equal(at(25).word, 'phase');
  assert.equal(at(33).word, 'reason');
  assert.equal(at(35).word, 'phase');
  // Async callbacks: the error names the field as `never`.
  assert.match(at(16).message, /bogus: never/);
  assert.match(at(18).message, /attemps: never/);
  assert.match(at(23).message, /port: never/);
  // The brand: another handler's status is told apart by its owner.
  assert.match(at(37).message, /example\.com\/Database\/cleanup" \| undefined' is not assignable to type '"example\.com\/Database\/myapp/);
});
