/**
 * Stub files from the named view: paths decided over the run, a stub per handler and cause
 * (create, update, resume) importing exactly the names the naming pass returned, and templates
 * taken as text (the stubs stage reads no file).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GenerateOptions } from '../../src/api.js';
import { readStubTemplates } from '../../src/io/stub-templates.js';
import { resolveHandlers } from '../../src/model/handler-pass.js';
import { childLogger, createLogger } from '../../src/runtime/effects/log.js';
import { nameCrd } from '../../src/model/naming.js';
import { emitStubFile, stubPaths } from '../../src/stubs/stub-files.js';
import { stubTemplates } from '../../src/stubs/templates.js';
import { crd, obj, scalar } from '../helpers/handler-fixtures.js';

const TEMPLATES = stubTemplates(
  '// #region head\n// KgKind from KgSource (KgCrd)\n// #endregion\n',
  '// #region stub\n' +
    'export async function kgFunction(): Promise<KgStatus | void> { return kgResult; } // kg_id kg_cause\n' +
    'KgDefinition.kgRegister(kgFunction);\n// #endregion\n',
);

test('stub paths: <plural>.ts, or <plural>.<group>.ts for a plural the run has twice', () => {
  const paths = stubPaths([
    { name: 'widgets.a.io', plural: 'widgets', group: 'a.io' },
    { name: 'widgets.b.io', plural: 'widgets', group: 'b.io' },
    { name: 'gadgets.a.io', plural: 'gadgets', group: 'a.io' },
  ]);
  assert.deepEqual(
    [...paths],
    [
      ['widgets.a.io', 'widgets.a.io.ts'],
      ['widgets.b.io', 'widgets.b.io.ts'],
      ['gadgets.a.io', 'gadgets.ts'],
    ],
  );
});

test('one stub per handler and cause, from the templates given, importing the named handler exports', () => {
  const status = obj({ myapp: obj({ phase: scalar('string') }) });
  const model = crd({ annotations: { 'kopfgen.dev/handlers': 'myapp' }, versions: [{ status }] });
  const { crds, diagnostics } = resolveHandlers([model], {});
  assert.deepEqual(diagnostics, []);
  const file = emitStubFile(nameCrd(crds[0], 'MyResource'), 'myresources.ts', {}, TEMPLATES);
  assert.ok(file);
  assert.equal(file.role, 'stub');
  assert.deepEqual(
    file.stubs?.map((s) => s.name),
    ['myappOnCreate', 'myappOnUpdate', 'myappOnResume'],
  );
  assert.equal(
    file.content,
    '// MyResource from crds/test.yaml (myresources.example.com)\n' +
      'import type { HandlerContext } from "kopfgen/runtime";\n' +
      'import { MyResourceMyapp, MyResourceMyappPermanentError, MyResourceMyappTemporaryError, type MyResource, ' +
      'type MyResourceMyappStatus } from "../generated/example.com/v1/myresources.js";\n' +
      '\nexport async function myappOnCreate(): Promise<MyResourceMyappStatus | void> ' +
      '{ return { phase: "NotImplemented" }; }' +
      ' // myapp create\nMyResourceMyapp.onCreate(myappOnCreate);\n' +
      '\nexport async function myappOnUpdate(): Promise<MyResourceMyappStatus | void> ' +
      '{ return { phase: "NotImplemented" }; }' +
      ' // myapp update\nMyResourceMyapp.onUpdate(myappOnUpdate);\n' +
      '\nexport async function myappOnResume(): Promise<MyResourceMyappStatus | void> ' +
      '{ return { phase: "NotImplemented" }; }' +
      ' // myapp resume\nMyResourceMyapp.onResume(myappOnResume);\n',
  );
});

test('the causes stubbed: those named with the id; else create for an id only configured, create/update/resume for one the CRD names', () => {
  const status = obj({ myapp: obj({ phase: scalar('string') }), cfg: obj({}), named: obj({}) });
  const model = crd({ annotations: { 'kopfgen.dev/handlers': 'myapp' }, versions: [{ status }] });
  const cases: { name: string; options: GenerateOptions; want: string[] }[] = [
    {
      name: 'annotation id; configured ids without causes',
      options: { handlers: { MyResource: ['cfg'] } },
      want: ['cfgOnCreate', 'myappOnCreate', 'myappOnUpdate', 'myappOnResume'],
    },
    {
      name: 'causes named, by Kind',
      options: {
        handlers: { MyResource: ['cfg', 'named'] },
        handlerCauses: { MyResource: { named: ['update', 'delete'] } },
      },
      want: ['cfgOnCreate', 'myappOnCreate', 'myappOnUpdate', 'myappOnResume', 'namedOnUpdate', 'namedOnDelete'],
    },
    {
      name: 'causes named, by plural.group, also for an id the CRD names',
      options: { handlerCauses: { 'myresources.example.com': { myapp: ['resume'] } } },
      want: ['myappOnResume'],
    },
  ];
  for (const c of cases) {
    const { crds, diagnostics } = resolveHandlers([model], c.options);
    assert.deepEqual(diagnostics, [], c.name);
    const file = emitStubFile(nameCrd(crds[0], 'MyResource'), 'myresources.ts', c.options, TEMPLATES);
    assert.deepEqual(
      file?.stubs?.map((s) => s.name),
      c.want,
      c.name,
    );
  }
});

test('no stub file for a CRD without handlers', () => {
  const model = crd({ versions: [{ status: obj({}) }] });
  const { crds } = resolveHandlers([model], {});
  assert.equal(emitStubFile(nameCrd(crds[0], 'MyResource'), 'myresources.ts', {}, TEMPLATES), undefined);
});

test("the stub's log line, under the runtime's handler logger, names the object and handler once", () => {
  const model = crd({
    annotations: { 'kopfgen.dev/handlers': 'myapp' },
    versions: [{ status: obj({ myapp: obj({ phase: scalar('string') }) }) }],
  });
  const { crds } = resolveHandlers([model], {});
  const file = emitStubFile(nameCrd(crds[0], 'MyResource'), 'myresources.ts', {}, readStubTemplates());
  const call = /ctx\.logger\.info\('([^']*)'\)/.exec(file?.stubs?.[0].text ?? '');
  assert.ok(call, 'the create stub logs');
  const lines: string[] = [];
  // The prefix the runtime gives a handler's logger (src/runtime/effects/handler-call.ts).
  childLogger(createLogger({ write: (l) => lines.push(l) }), 'ns/web myapp').info(call[1]);
  assert.match(lines[0], / ns\/web myapp: create handler not implemented yet$/);
  assert.doesNotMatch(lines[0], /myapp: myapp/);
});
