/** The entry module's marked import block (src/cli/entry-imports.ts): given/want. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importBlock, stubPathsIn, syncImportBlock } from '../../src/cli/entry-imports.js';
import { scaffoldOf } from '../../src/cli/init-scaffolds.js';

const ts = scaffoldOf(undefined);
const BLOCK = importBlock(ts, ['src/handlers/widgets.ts']);

test('importBlock: the stubs as imports between the marks, per target', () => {
  assert.equal(BLOCK.split('\n').slice(1).join('\n'), "import './handlers/widgets.js';\n// kopfgen:end imports");
  assert.match(BLOCK, /^\/\/ kopfgen:begin imports: /);
  const py = importBlock(scaffoldOf('kopf'), ['kinds/widgets.py']);
  assert.deepEqual(py.split('\n').slice(1), [
    'from kinds import widgets',
    '',
    'MODULES = (widgets,)',
    '# kopfgen:end imports',
  ]);
  assert.match(importBlock(ts, []), /no handlers yet/);
});

test('syncImportBlock: only the marked lines change; no marks, nothing to do', () => {
  const cases: { name: string; given: string; want: string | undefined }[] = [
    {
      name: 'a swapped CRD: the old import goes, the user lines stay',
      given:
        "// mine\nimport './setup.js';\n// kopfgen:begin imports: …\nimport './handlers/myresources.js';\n// kopfgen:end imports\nconsole.log('x');\n",
      want: `// mine\nimport './setup.js';\n${BLOCK}\nconsole.log('x');\n`,
    },
    { name: 'in step', given: `${BLOCK}\n`, want: `${BLOCK}\n` },
    { name: 'no marks: the file is the user’s', given: "import './handlers/myresources.js';\n", want: undefined },
    { name: 'the end mark removed', given: "// kopfgen:begin imports\nimport './x.js';\n", want: undefined },
  ];
  for (const c of cases) assert.equal(syncImportBlock(c.given, BLOCK), c.want, c.name);
});

test('stubPathsIn: stub files relative to the project, tests left out, sorted', () => {
  const files = [
    { path: 'widgets.ts', content: '', role: 'stub' as const },
    { path: 'a.ts', content: '', role: 'stub' as const },
    { path: 'a.test.ts', content: '', role: 'stub' as const },
    { path: 'index.ts', content: '', role: 'generated' as const },
  ];
  assert.deepEqual(stubPathsIn('/p', '/p/src/handlers', files), ['src/handlers/a.ts', 'src/handlers/widgets.ts']);
  assert.deepEqual(stubPathsIn('/p', undefined, files), []);
});
