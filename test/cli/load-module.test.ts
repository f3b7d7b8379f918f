/**
 * `kopfgen run`'s module loading (src/cli/load-module.ts): every extension inside and outside a
 * `"type": "module"` package, and an error while loading as one `file:line:col: message` line.
 * The projects are temporary directories with kopfgen installed as a link to this checkout.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadFailure, loadModule, userFrame } from '../../src/cli/load-module.js';
import { tempDir } from '../helpers/temp-dirs.js';

/** A project directory: package.json (`type` as given), kopfgen linked in node_modules, the files. */
function project(type: 'module' | 'commonjs', files: Record<string, string>): string {
  const dir = tempDir(`kopfgen-load-${type}-`);
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(process.cwd(), join(dir, 'node_modules', 'kopfgen'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'p', private: true, type }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const loaded = (): string[] => ((globalThis as Record<string, unknown>).kopfgenLoaded ??= []) as string[];

/** A module that imports the runtime (resolving `kopfgen/runtime` from the project) and says it ran. */
const ESM_TS = (name: string) => `import { defineResource } from 'kopfgen/runtime';
interface Spec { replicas?: number }
const r = defineResource<Spec>({ group: 'g', version: 'v1', plural: 'ps', kind: 'P', scope: 'Namespaced', statusSubresource: false, printerColumns: [] });
const seen: string[] = ((globalThis as any).kopfgenLoaded ??= []);
seen.push('${name}:' + r.kind);
`;
const ESM_JS = (name: string) => `import { defineResource } from 'kopfgen/runtime';
const r = defineResource({ group: 'g', version: 'v1', plural: 'ps', kind: 'P', scope: 'Namespaced', statusSubresource: false, printerColumns: [] });
(globalThis.kopfgenLoaded ??= []).push('${name}:' + r.kind);
`;
const CJS_JS = (name: string) => `const { defineResource } = require('kopfgen/runtime');
const r = defineResource({ group: 'g', version: 'v1', plural: 'ps', kind: 'P', scope: 'Namespaced', statusSubresource: false, printerColumns: [] });
(globalThis.kopfgenLoaded ??= []).push('${name}:' + r.kind);
`;

describe('loadModule: every extension, inside and outside a "type": "module" package', () => {
  const cases: [type: 'module' | 'commonjs', file: string, text: (name: string) => string][] = [
    ['commonjs', 'a.ts', ESM_TS],
    ['commonjs', 'b.mts', ESM_TS],
    ['commonjs', 'c.cts', ESM_TS],
    ['commonjs', 'd.js', CJS_JS],
    ['commonjs', 'e.mjs', ESM_JS],
    ['commonjs', 'f.cjs', CJS_JS],
    ['module', 'g.ts', ESM_TS],
    ['module', 'h.mts', ESM_TS],
    ['module', 'i.cts', ESM_TS],
    ['module', 'j.js', ESM_JS],
    ['module', 'k.cjs', CJS_JS],
  ];
  for (const [type, file, text] of cases) {
    it(`${file} in a ${type} package loads and imports kopfgen/runtime`, async () => {
      const dir = project(type, { [file]: text(`${type}/${file}`) });
      assert.equal(await loadModule(join(dir, file), dir), undefined);
      assert.ok(loaded().includes(`${type}/${file}:P`), loaded().join(', '));
    });
  }
  it('a missing file is named', async () => {
    const dir = project('commonjs', {});
    assert.deepEqual(await loadModule('nope.ts', dir), { line: 'nope.ts: no such file', message: 'no such file' });
  });
});

describe('loadModule: an error while loading is one line at the place in the user’s code', () => {
  const files: Record<string, string> = {
    'throw.ts':
      "import { defineResource } from 'kopfgen/runtime';\nconst x: number = 1;\n\nthrow new Error('boom at top');\n",
    'nested.ts': "import { helper } from './helper';\nhelper();\n",
    'helper.ts': "export function helper(): void {\n  const y = 2;\n  throw new TypeError('deep boom');\n}\n",
    'syntax.ts': 'const a = ;\n',
    'syntax.mjs': '\nconst a = ;\n',
    'noexport.mjs': "import { nope } from 'kopfgen/runtime';\nconsole.log(nope);\n",
    'missing.mjs': "// a dependency that is not there\nimport x from './absent.mjs';\n",
    'dup.mjs':
      "import { defineHandler, defineResource, Registry } from 'kopfgen/runtime';\nconst registry = new Registry();\nconst r = defineResource({ group: 'g', version: 'v1', plural: 'p', kind: 'K', scope: 'Namespaced', statusSubresource: true, printerColumns: [] });\ndefineHandler(r, 'a').onCreate(() => undefined, { registry });\n  defineHandler(r, 'a').onCreate(() => undefined, { registry });\n",
    'string.mjs': "throw 'a string';\n",
  };
  const want: [file: string, line: string][] = [
    ['throw.ts', 'throw.ts:4:7: boom at top'],
    ['nested.ts', 'helper.ts:3:9: deep boom'],
    ['syntax.ts', 'syntax.ts:1:11: Unexpected ";"'],
    ['syntax.mjs', 'syntax.mjs:2:11: Unexpected ";"'],
    [
      'noexport.mjs',
      "noexport.mjs:1:10: The requested module 'kopfgen/runtime' does not provide an export named 'nope'",
    ],
    ['dup.mjs', 'dup.mjs:5:25: handler a (create) is already registered for p.g/v1'],
    ['string.mjs', 'string.mjs: a string'],
  ];
  for (const [file, line] of want) {
    it(`${file} → ${line}`, async () => {
      const dir = project('commonjs', files);
      const failure = await loadModule(file, dir);
      assert.equal(failure?.line, line);
      assert.ok(!failure.line.includes('\n'));
    });
  }
  it('an import that cannot be resolved points at its statement', async () => {
    const dir = project('commonjs', files);
    const failure = await loadModule('missing.mjs', dir);
    assert.match(failure?.line ?? '', /^missing\.mjs:2:15: Cannot find module '.*absent\.mjs' imported from /);
  });
  it('the stack is kept for --log-level debug', async () => {
    const dir = project('commonjs', files);
    const failure = await loadModule('nested.ts', dir);
    assert.match(failure?.stack ?? '', /TypeError: deep boom\n\s+at helper/);
  });
});

describe('loadFailure and userFrame (given an error, want the line)', () => {
  const cwd = '/home/u/op';
  const table: [name: string, error: unknown, want: string][] = [
    [
      'the first frame outside node: and node_modules',
      Object.assign(new Error('x'), {
        stack:
          'Error: x\n    at f (node:internal/a:1:1)\n    at g (/home/u/op/node_modules/lib/i.js:3:3)\n    at /home/u/op/src/op.ts:7:2',
      }),
      'src/op.ts:7:2: x',
    ],
    [
      'a file:// frame with a query',
      Object.assign(new Error('y'), { stack: 'Error: y\n    at file:///home/u/op/op.mjs?tsx-namespace=1:2:5' }),
      'op.mjs:2:5: y',
    ],
    [
      "esbuild's transform error",
      new Error('Transform failed with 1 error:\n/home/u/op/op.ts:3:4: ERROR: Expected ")" but found "}"'),
      'op.ts:3:5: Expected ")" but found "}"',
    ],
    ['no position anywhere', 42, 'op.ts: 42'],
  ];
  for (const [name, error, want] of table) {
    it(name, () => assert.equal(loadFailure(error, '/home/u/op/op.ts', cwd).line, want));
  }
  it('userFrame skips frames without a position', () => {
    assert.equal(userFrame('Error\n    at new Promise (<anonymous>)\n    at x (/a/b.ts:1:2)')?.line, 1);
  });
});
