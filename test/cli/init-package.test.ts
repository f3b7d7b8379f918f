/** What `kopfgen init` merges into an existing package.json (src/cli/init-package.ts): given/want. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergePackageJson } from '../../src/cli/init-package.js';

const TEMPLATE = JSON.stringify({
  name: 'x',
  type: 'module',
  scripts: { generate: 'kopfgen generate', build: 'tsc -p tsconfig.json' },
  dependencies: { kopfgen: '^0.1.0' },
  devDependencies: { typescript: '5.9.3' },
});

const TEMPLATE_WITH_TEST = JSON.stringify({
  name: 'x',
  type: 'module',
  scripts: { test: 'tsc -p tsconfig.json && node --test', generate: 'kopfgen generate', build: 'tsc -p tsconfig.json' },
  dependencies: { kopfgen: '^0.1.0' },
  devDependencies: { typescript: '5.9.3' },
});

test("mergePackageJson: the user's values win, what is missing is added, --force replaces", () => {
  const cases: {
    name: string;
    given: object;
    template?: string;
    force?: boolean;
    added: string[];
    kept: string[];
    want?: object;
  }[] = [
    {
      name: 'empty object',
      given: {},
      added: ['"type": "module"', 'script generate', 'script build', 'dependency kopfgen', 'devDependency typescript'],
      kept: [],
      want: {
        type: 'module',
        scripts: { generate: 'kopfgen generate', build: 'tsc -p tsconfig.json' },
        dependencies: { kopfgen: '^0.1.0' },
        devDependencies: { typescript: '5.9.3' },
      },
    },
    {
      name: 'a script of the same name and kopfgen already a devDependency are kept',
      given: {
        type: 'module',
        scripts: { build: 'make' },
        devDependencies: { kopfgen: 'file:../k', typescript: '5.9.3' },
      },
      added: ['script generate'],
      kept: ['script build', 'devDependencies kopfgen'],
      want: {
        type: 'module',
        scripts: { build: 'make', generate: 'kopfgen generate' },
        devDependencies: { kopfgen: 'file:../k', typescript: '5.9.3' },
        dependencies: {},
      },
    },
    {
      name: 'everything present: nothing to write',
      given: {
        type: 'module',
        scripts: { generate: 'kopfgen generate', build: 'tsc -p tsconfig.json' },
        dependencies: { kopfgen: '^0.1.0' },
        devDependencies: { typescript: '5.9.3' },
      },
      added: [],
      kept: [],
    },
    {
      name: "commonjs is the user's choice, named",
      given: {
        type: 'commonjs',
        scripts: { generate: 'kopfgen generate', build: 'tsc -p tsconfig.json' },
        dependencies: { kopfgen: '^0.1.0' },
        devDependencies: { typescript: '5.9.3' },
      },
      added: [],
      kept: ['"type": "commonjs" (the scaffold is ES modules)'],
    },
    {
      name: 'npm init -y\'s package.json: its "type": "commonjs" and placeholder test script are npm\'s, replaced',
      given: {
        name: 'op',
        main: 'index.js',
        scripts: { test: 'echo "Error: no test specified" && exit 1' },
        type: 'commonjs',
        dependencies: { kopfgen: 'file:../kopfgen-0.1.0.tgz' },
      },
      template: TEMPLATE_WITH_TEST,
      added: [
        '"type": "module" (replacing npm init\'s "commonjs")',
        "script test (replacing npm init's placeholder)",
        'script generate',
        'script build',
        'devDependency typescript',
      ],
      kept: ['dependencies kopfgen'],
      want: {
        name: 'op',
        main: 'index.js',
        scripts: {
          test: 'tsc -p tsconfig.json && node --test',
          generate: 'kopfgen generate',
          build: 'tsc -p tsconfig.json',
        },
        type: 'module',
        dependencies: { kopfgen: 'file:../kopfgen-0.1.0.tgz' },
        devDependencies: { typescript: '5.9.3' },
      },
    },
    {
      name: '--force replaces scripts, type and ranges in the same section',
      given: { type: 'commonjs', scripts: { build: 'make' }, devDependencies: { typescript: '5.4.5' } },
      force: true,
      added: ['"type": "module"', 'script generate', 'script build', 'dependency kopfgen', 'devDependency typescript'],
      kept: [],
    },
  ];
  for (const c of cases) {
    const got = mergePackageJson('package.json', JSON.stringify(c.given), c.template ?? TEMPLATE, c.force ?? false);
    assert.deepEqual(got.diagnostics, [], c.name);
    assert.deepEqual(got.added, c.added, c.name);
    assert.deepEqual(got.kept, c.kept, c.name);
    if (c.added.length === 0) assert.equal(got.content, undefined, c.name);
    if (c.want) assert.deepEqual(JSON.parse(got.content ?? 'null'), c.want, c.name);
  }
});

test('mergePackageJson: not JSON, or not an object, is KG350 where the JSON stops being JSON', () => {
  const cases: [string, string][] = [
    ['{ "name": ', 'app/package.json:1:11 KG350'],
    ['{\n  "name": "x",\n  "scripts": { "a": 1, }\n}\n', 'app/package.json:3:24 KG350'],
    ['[1, 2]', 'app/package.json:1:1 KG350'],
  ];
  for (const [text, want] of cases) {
    const got = mergePackageJson('app/package.json', text, TEMPLATE, false);
    assert.equal(got.content, undefined);
    assert.deepEqual(
      got.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code}`),
      [want],
    );
  }
});
