/**
 * The kopf target's stub modules: paths decided over the run (Python module names), a stub per
 * handler and cause importing exactly the names it uses from the generated module, by the
 * package name the stubs import it as, and the import layout new files and merges share.
 */
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { resolveHandlers } from '../../src/model/handler-pass.js';
import { nameCrd } from '../../src/model/naming.js';
import { emitPyStubFile, pyImportLines, pyStubPaths } from '../../src/stubs/py-stub-files.js';
import { pyStubTemplates } from '../../src/stubs/templates.js';
import { crd, obj, scalar } from '../helpers/handler-fixtures.js';

const TEMPLATES = pyStubTemplates(
  '# region head\n# KgKind from KgSource (KgCrd), e.g. @KgDefinition.timer()\n# endregion\n',
  '# region stub\n@KgDefinition.kg_register()\nasync def kg_function(spec: KgSpec, status: KgResourceStatus) -> Optional[KgStatus]:\n' +
    '    """kg_id kg_cause: kg_feeds KgTemporaryError KgPermanentError kg_module"""\n    return kg_result\n# endregion\n',
);

test('stub paths: <plural>.py, or <plural>_<group>.py for a plural the run has twice; names are identifiers', () => {
  const paths = pyStubPaths([
    { name: 'widgets.a.io', plural: 'widgets', group: 'a.io' },
    { name: 'widgets.b-c.io', plural: 'widgets', group: 'b-c.io' },
    { name: 'gadgets.a.io', plural: 'gadgets', group: 'a.io' },
    { name: 'my-things.a.io', plural: 'my-things', group: 'a.io' },
    { name: 'classes.a.io', plural: 'class', group: 'a.io' },
  ]);
  assert.deepEqual(Object.fromEntries(paths), {
    'widgets.a.io': 'widgets_a_io.py',
    'widgets.b-c.io': 'widgets_b_c_io.py',
    'gadgets.a.io': 'gadgets.py',
    'my-things.a.io': 'my_things.py',
    'classes.a.io': 'class_.py',
  });
});

test('one stub per handler and cause, importing what they use from the module, by its package name', () => {
  const status = obj({ 'my-app': obj({ phase: scalar('string') }) });
  const model = crd({ annotations: { 'kopfgen.dev/handlers': 'my-app' }, versions: [{ status }] });
  const { crds, diagnostics } = resolveHandlers([model], {});
  assert.deepEqual(diagnostics, []);
  const file = emitPyStubFile(
    nameCrd(crds[0], 'MyResource'),
    'myresources.py',
    'example_com',
    { generatedPackage: 'app.generated' },
    TEMPLATES,
  );
  assert.ok(file);
  assert.equal(file.role, 'stub');
  assert.deepEqual(
    file.stubs?.map((s) => [s.name, s.definition]),
    [
      ['my_app_on_create', 'MyResourceMyApp'],
      ['my_app_on_update', 'MyResourceMyApp'],
      ['my_app_on_resume', 'MyResourceMyApp'],
    ],
  );
  const stub = (cause: string) =>
    `\n\n@MyResourceMyApp.on_${cause}()\nasync def my_app_on_${cause}(spec: MyResourceSpec, status: MyResourceStatus) -> Optional[MyResourceMyAppStatus]:\n` +
    `    """my-app ${cause}: Status fields: \`phase\`. No printer column shows it. MyResourceMyAppTemporaryError MyResourceMyAppPermanentError app.generated.example_com.v1.myresources"""\n` +
    '    return {"phase": "NotImplemented"}\n';
  assert.equal(
    file.content,
    '# MyResource from crds/test.yaml (myresources.example.com), e.g. @MyResourceMyApp.timer()\n' +
      '\nfrom typing import Any, Optional\n' +
      '\nimport kopf\n' +
      '\nfrom app.generated.example_com.v1.myresources import (\n' +
      '    MyResourceMyApp,\n    MyResourceMyAppStatus,\n    MyResourceSpec,\n    MyResourceStatus,\n)\n' +
      stub('create') +
      stub('update') +
      stub('resume'),
  );
});

test('a version whose schema has no status: the stubs take any mapping for it', () => {
  const model = crd({ annotations: { 'kopfgen.dev/handlers': 'myapp' }, versions: [{ status: null, rootOpen: true }] });
  const { crds, diagnostics } = resolveHandlers([model], {});
  assert.deepEqual(diagnostics, []);
  const file = emitPyStubFile(nameCrd(crds[0], 'MyResource'), 'myresources.py', 'example_com', {}, TEMPLATES);
  assert.match(file?.content ?? '', /^from typing import Any, Mapping, Optional$/m);
  assert.match(file?.content ?? '', /async def myapp_on_create\(spec: MyResourceSpec, status: Mapping\[str, Any\]\)/);
});

describe('import lines: standard library, kopf, then the generated package; long ones in parentheses', () => {
  const cases: [string, Parameters<typeof pyImportLines>[0], string][] = [
    [
      'grouped and sorted',
      [
        { module: 'generated.x', name: 'B' },
        { module: 'kopf', name: '' },
        { module: 'typing', name: 'Optional' },
        { module: 'generated.x', name: 'A' },
        { module: 'typing', name: 'Any' },
      ],
      '\nfrom typing import Any, Optional\n\nimport kopf\n\nfrom generated.x import A, B\n',
    ],
    [
      'a statement past 99 characters gets one name a line',
      ['AAAAAAAAAAAAAAAAAAAA', 'BBBBBBBBBBBBBBBBBBBB', 'CCCCCCCCCCCCCCCCCCCC', 'DDDDDDDDDDDDDDDDDDDD'].map((name) => ({
        module: 'generated.example',
        name,
      })),
      '\nfrom generated.example import (\n    AAAAAAAAAAAAAAAAAAAA,\n    BBBBBBBBBBBBBBBBBBBB,\n    CCCCCCCCCCCCCCCCCCCC,\n    DDDDDDDDDDDDDDDDDDDD,\n)\n',
    ],
  ];
  for (const [name, given, want] of cases) it(name, () => assert.equal(pyImportLines(given), want));
});
