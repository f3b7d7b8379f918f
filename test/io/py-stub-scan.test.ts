/**
 * The kopf target's stubs-directory scan: which generated module a Python import names (absolute
 * through the package name, or relative to the importing file), what a generated module exports,
 * and orphans reported at their line and column (KG321 at the import, KG320 at a registration).
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { describe, it, test } from 'node:test';
import { pyExportedNames, pyModules, scanPyStubsDir } from '../../src/io/py-stub-scan.js';
import { orphanDiagnostics, registeredElsewhere } from '../../src/io/stub-scan.js';
import { tempDir } from '../helpers/temp-dirs.js';

const OUT = '/p/generated';

describe('which generated files an import means', () => {
  const modules = pyModules('generated');
  const cases: [string, string, string[] | undefined][] = [
    [
      '/p/kinds/a.py',
      'generated.example_com.v1.myresources',
      ['example_com/v1/myresources.py', 'example_com/v1/myresources/__init__.py'],
    ],
    ['/p/kinds/a.py', 'generated', ['__init__.py']],
    ['/p/kinds/a.py', 'generated.example_com', ['example_com.py', 'example_com/__init__.py']],
    ['/p/kinds/a.py', 'generatedx.example_com', undefined],
    ['/p/kinds/a.py', 'kopf', undefined],
    [
      '/p/kinds/a.py',
      '..generated.example_com.v1.myresources',
      ['example_com/v1/myresources.py', 'example_com/v1/myresources/__init__.py'],
    ],
    ['/p/kinds/deep/a.py', '...generated', ['__init__.py']],
    ['/p/kinds/a.py', '.helpers', undefined],
  ];
  for (const [file, module, want] of cases)
    it(`${module} in ${file}`, () => assert.deepEqual(modules.candidates(file, module, OUT), want));
  it('no package name: only relative imports resolve', () =>
    assert.equal(pyModules(undefined).candidates('/p/kinds/a.py', 'generated.x', OUT), undefined));
});

test("a generated module's exports: its top-level names; the package's lazy table", () => {
  const module =
    'from typing import Literal\n\nGROUP = "x"\n\n\nclass A(TypedDict, total=False):\n    b: str\n\n\nC: TypeAlias = str\nD = kopfgen.Handler[A](E, "d")\n';
  assert.deepEqual([...pyExportedNames(module)].sort(), ['A', 'C', 'D', 'GROUP', 'Literal']);
  const init = '_EXPORTS: Dict[str, Tuple[str, str]] = {\n    "Widget": (".a.v1.widgets", "Widget"),\n}\n';
  assert.ok(pyExportedNames(init).has('Widget'));
});

test('registrations anywhere under the stubs directory; orphans at their import and registration', async () => {
  const dir = tempDir('kopfgen-pyscan-');
  const files: Record<string, string> = {
    'kinds/a.py':
      'from generated.example_com.v1.widgets import WidgetResize, WidgetGone\n\n@WidgetResize.on_create()\ndef f(): ...\n\n@WidgetGone.on_update()\ndef g(): ...\n',
    'kinds/deep/b.py':
      'from ...generated.example_com.v1 import widgets as w\n@w.WidgetResize.timer(interval=1)\ndef t(): ...\n',
    'kinds/notes.txt': 'WidgetOther.on_create(',
    'kinds/.venv/lib/site.py': 'from generated.x import Gone\nGone.on_create()\n',
    'kinds/deep/__pycache__/cached.py': 'from generated.x import Gone\n',
  };
  for (const [path, text] of Object.entries(files)) {
    await fs.mkdir(join(dir, path, '..'), { recursive: true });
    await fs.writeFile(join(dir, path), text);
  }
  const scanned = await scanPyStubsDir(join(dir, 'kinds'));
  assert.deepEqual(
    scanned.map((f) => f.absPath.slice(dir.length + 1)),
    ['kinds/a.py', 'kinds/deep/b.py'],
  );
  assert.deepEqual([...registeredElsewhere(scanned, join(dir, 'kinds/a.py'))], ['WidgetResize']);
  const text = 'class WidgetResize:\n    pass\n';
  const diagnostics = await orphanDiagnostics(
    scanned,
    join(dir, 'generated'),
    dir,
    async (rel) => (rel === 'example_com/v1/widgets.py' ? text : rel === 'example_com/v1/__init__.py' ? '' : undefined),
    pyModules('generated'),
  );
  assert.deepEqual(
    diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.severity} ${d.code}`),
    ['kinds/a.py:1:60 error KG321', 'kinds/a.py:6:2 warning KG320'],
  );
  assert.match(
    diagnostics[0].message,
    /`WidgetGone` is imported here but "generated\.example_com\.v1\.widgets" no longer exports it/,
  );
});
