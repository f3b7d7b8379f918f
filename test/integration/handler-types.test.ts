import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generate } from '../../src/generate.js';
import { expectedErrors, formatErrors, readFixture, typeCheckProject } from '../helpers/handler-typecheck.js';
import { readStubTemplates } from '../../src/io/stub-templates.js';

const CRD = 'test/fixtures/handlers/typed.yaml';

function project(cases: string[]) {
  const result = generate([{ file: CRD, text: readFixture(CRD) }], {
    stubs: { dir: 'handlers', templates: readStubTemplates() },
    generatedImportBase: '../generated',
  });
  assert.deepEqual(
    result.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  const extra = Object.fromEntries(cases.map((c) => [`cases/${c}`, readFixture(`test/fixtures/handlers/cases/${c}`)]));
  return {
    result,
    errors: typeCheckProject({
      generated: result.files.filter((f) => f.role === 'generated'),
      stubs: result.files.filter((f) => f.role === 'stub'),
      extra,
    }),
  };
}

test('generated handler code, stubs and correct handlers compile under strict', () => {
  const { errors } = project(['positive.ts']);
  assert.deepEqual(formatErrors(errors), []);
});

/** The exactness case compiled once, for the tests that read its errors. */
let exactnessRun: ReturnType<typeof project> | undefined;
const exactness = () => (exactnessRun ??= project(['exactness.ts']));

test('wrong statuses are compile errors with exact codes and lines (sync, async, enum, error status, brand)', () => {
  const { errors } = exactness();
  const expected = expectedErrors('cases/exactness.ts', readFixture('test/fixtures/handlers/cases/exactness.ts'));
  assert.equal(expected.length, 11);
  assert.deepEqual(
    formatErrors(errors),
    expected,
    errors.map((e) => `${e.file}:${e.line} TS${e.code} ${e.message}`).join('\n'),
  );
});

test('each error sits on the offending field or names it', () => {
  const { errors } = exactness();
  const text = readFixture('test/fixtures/handlers/cases/exactness.ts').split('\n');
  const on = (line: number) => {
    const e = errors.find((x) => x.line === line);
    assert.ok(e, `an error on line ${line}`);
    return e.message;
  };
  const wordAt = (line: number) => {
    const e = errors.find((x) => x.line === line);
    assert.ok(e, `an error on line ${line}`);
    return text[line - 1].slice(e.col - 1).match(/^[\w']+/)?.[0];
  };
  // Sync callbacks and error constructors: the error sits on the field itself.
  assert.deepEqual([wordAt(14), wordAt(25), wordAt(33), wordAt(35)], ['bogus', 'phase', 'reason', 'phase']);
  // Sync callbacks and error constructors: the field's value is rejected (on line 14 `bogus: 1` is the only number).
  assert.match(on(14), /^Type 'number' is not assignable to type 'never'/);
  // The union's members in any order: TypeScript lists them in the order it first met each literal.
  assert.match(
    on(25),
    /^Type '"Stopped"' is not assignable to type '(?=[^']*"Pending")(?=[^']*"Starting")(?=[^']*"Ready")/,
  );
  assert.match(on(33), /'reason' does not exist in type/);
  assert.match(on(35), /^Type '"Broken"' is not assignable/);
  // Async callbacks: the error names the field as `never`.
  assert.match(on(16), /bogus: never/);
  assert.match(on(18), /attemps: never/);
  assert.match(on(23), /port: never/);
  // The brand: another handler's status is told apart by its owner.
  assert.match(
    on(37),
    /example\.com\/Database\/cleanup" \| undefined' is not assignable to type '"example\.com\/Database\/myapp/,
  );
});

test('timers, daemons, event handlers, filters (old/new of a field included), posted Events and hooks: typed like the other causes, exact codes and lines', () => {
  const { errors } = project(['spawning.ts']);
  const expected = expectedErrors('cases/spawning.ts', readFixture('test/fixtures/handlers/cases/spawning.ts'));
  assert.equal(expected.length, 13);
  assert.deepEqual(
    formatErrors(errors),
    expected,
    errors.map((e) => `${e.file}:${e.line} TS${e.code} ${e.message}`).join('\n'),
  );
});

/** The clearing, context and helper cases compiled once, for the tests that read their errors. */
let typedRun: ReturnType<typeof project> | undefined;
const typed = () => (typedRun ??= project(['clearing.ts', 'context.ts', 'helpers.ts']));

function casesOf(file: string) {
  const errors = typed().errors.filter((e) => e.file === `cases/${file}`);
  const text = readFixture(`test/fixtures/handlers/cases/${file}`);
  const lines = text.split('\n');
  const wordAt = (line: number) => {
    const e = errors.find((x) => x.line === line);
    assert.ok(e, `an error on line ${line}`);
    return lines[line - 1].slice(e.col - 1).match(/^[\w'.]+/)?.[0];
  };
  return { errors, expected: expectedErrors(`cases/${file}`, text), wordAt };
}

test('null clears optional status fields; unknown keys, required fields and wrong types stay errors', () => {
  assert.deepEqual(
    typed().errors.filter((e) => !e.file.startsWith('cases/')),
    [],
  );
  const { errors, expected, wordAt } = casesOf('clearing.ts');
  assert.equal(expected.length, 6);
  assert.deepEqual(formatErrors(errors), expected, errors.map((e) => `${e.line} TS${e.code} ${e.message}`).join('\n'));
  // Sync callbacks and error constructors: at the offending key.
  assert.deepEqual([wordAt(18), wordAt(20), wordAt(22), wordAt(23)], ['reason', 'reason', 'host', 'host']);
  assert.match(errors.find((e) => e.line === 22)?.message ?? '', /Type 'null' is not assignable to type 'string'/);
});

test("a HandlerContext<R> helper takes every handler context, a field handler's too; diff entries are typed by path", () => {
  const { errors, expected } = casesOf('helpers.ts');
  assert.equal(expected.length, 6);
  assert.deepEqual(formatErrors(errors), expected, errors.map((e) => `${e.line} TS${e.code} ${e.message}`).join('\n'));
  const on = (line: number) => errors.find((e) => e.line === line)?.message ?? '';
  // The field's value where a helper wants the essence; a number where a string was used; a union of the essence's types.
  // An onField handler's context is a ChangingContext (it may register sub-handlers), its old/new the field's value.
  assert.match(
    on(22),
    /ChangingContext<Database, DatabaseMyappStatus, Database, number \| undefined>.*Type .number \| undefined. is not assignable to type .Shape<Database> \| undefined./s,
  );
  assert.match(on(32), /'toUpperCase' does not exist on type 'number'/);
  assert.match(on(39), /not assignable to type 'number \| undefined'/);
});

test('onField takes the resource field paths only; old/new are the field or the essence', () => {
  const { errors, expected, wordAt } = casesOf('context.ts');
  assert.equal(expected.length, 9);
  assert.deepEqual(formatErrors(errors), expected, errors.map((e) => `${e.line} TS${e.code} ${e.message}`).join('\n'));
  // A wrong path is reported at the path literal, naming it.
  assert.deepEqual([wordAt(17), wordAt(20)], ["'spec.replicaz'", "'metadata.name'"]);
  // The message names what the path could have been at the segment that went wrong.
  const on = (line: number) => errors.find((e) => e.line === line)?.message ?? '';
  assert.match(on(17), /"spec\.replicaz".* parameter of type .*fieldPathOneOf: .*"spec\.replicas"/);
  assert.match(on(18), /fieldPathOneOf: "spec\.ports"; }/);
  assert.match(on(19), /fieldPathOneOf: ("spec" \| "metadata"|"metadata" \| "spec"); }/);
  assert.match(on(20), /fieldPathOneOf: .*"metadata\.labels"/);
  assert.match(errors.find((e) => e.line === 15)?.message ?? '', /'toUpperCase' does not exist on type 'number'/);
  assert.match(errors.find((e) => e.line === 28)?.message ?? '', /'name' does not exist/);
});

test('sub-handlers: ctx.subhandler and ctx.execute on changing handlers, statuses exact, none on spawning ones: exact codes and lines', () => {
  const { errors } = project(['subhandlers.ts']);
  const expected = expectedErrors('cases/subhandlers.ts', readFixture('test/fixtures/handlers/cases/subhandlers.ts'));
  assert.equal(expected.length, 8);
  assert.deepEqual(
    formatErrors(errors),
    expected,
    errors.map((e) => `${e.file}:${e.line} TS${e.code} ${e.message}`).join('\n'),
  );
});
