/**
 * The kopf target's goldens: every fixture under test/fixtures/crds and every example in crds/ is
 * generated as a Python package (a run of its own, without stubs) and compared byte for byte with
 * test/golden-kopf/<name>/ (`KOPFGEN_UPDATE_GOLDENS=1` rewrites them). The committed packages
 * compile under every Python 3.9–3.14 found here (`python -m compileall`), and import, every module
 * and every name the package's `__init__.py` exports: with kopf 1.38 on Debian's Python 3.11, and
 * under the other versions with a stand-in for kopf (kopf's own dependencies are Debian's, for 3.11
 * only). pyright checks them in kopf-types.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { generate } from '../../src/generate.js';
import { pyHeaderLine } from '../../src/emit/header.js';
import { SHIM_PATH, SHIM_TEXT } from '../../src/emit-kopf/py-shim.js';
import {
  KOPF_GOLDEN,
  REPO,
  copyKopfGolden,
  goldenFixtures,
  listTree,
  tempDir,
  writeTree,
} from '../helpers/golden-support.js';
import { DEBIAN_PYTHON, KOPF_SRC, kopfRuntimeSkip, pythons } from '../helpers/python-support.js';

const UPDATE = process.env.KOPFGEN_UPDATE_GOLDENS === '1';

function generateKopf(file: string) {
  return generate([{ file, text: readFileSync(join(REPO, file), 'utf8') }], { target: 'kopf', stubs: false });
}

for (const { name, file } of goldenFixtures()) {
  test(`kopf golden: ${file}`, () => {
    const result = generateKopf(file);
    assert.deepEqual(
      result.diagnostics.filter((d) => d.severity === 'error'),
      [],
      `${file} must generate without errors`,
    );
    // The shim is the same in every package: not repeated in each golden, compared with its source.
    const shim = result.files.find((f) => f.path === SHIM_PATH);
    assert.equal(shim?.content, pyHeaderLine() + SHIM_TEXT, 'the shim, as py-shim.ts holds it');
    const files = result.files.filter((f) => f !== shim);
    const dir = join(KOPF_GOLDEN, name);
    if (UPDATE) {
      rmSync(dir, { recursive: true, force: true });
      writeTree(dir, files);
      return;
    }
    assert.ok(existsSync(dir), `no golden for ${file}; run with KOPFGEN_UPDATE_GOLDENS=1 and review the output`);
    assert.deepEqual(files.map((f) => f.path).sort(), listTree(dir), `files generated for ${file}`);
    for (const f of files)
      assert.equal(f.content, readFileSync(join(dir, f.path), 'utf8'), `${name}/${f.path} differs from its golden`);
  });
}

test('kopf target: deterministic, whatever the input order', () => {
  const sources = goldenFixtures().map(({ file }) => ({ file, text: readFileSync(join(REPO, file), 'utf8') }));
  const forward = generate(sources, { target: 'kopf', stubs: false });
  const backward = generate([...sources].reverse(), { target: 'kopf', stubs: false });
  assert.deepEqual(backward.files, forward.files);
});

let copied: { root: string; packages: string[] } | undefined;

/**
 * Every golden package copied once under one directory, each as a package of its own name
 * (`golden_crds_databases`: a package's modules import each other relatively, whatever its name),
 * so one Python process imports them all.
 */
function goldenPackages(): { root: string; packages: string[] } {
  if (copied) return copied;
  const root = tempDir('kopf-golden');
  const packages = goldenFixtures().map(({ name }) => {
    const pkg = `golden_${name.replace(/-/g, '_')}`;
    copyKopfGolden(name, join(root, pkg));
    return pkg;
  });
  return (copied = { root, packages });
}

/** Imports every module of each package named on the command line, and every name its `__init__.py` exports; prints the counts. */
const IMPORT_ALL = `
import importlib, pkgutil, sys
for name in sys.argv[1:]:
    package = importlib.import_module(name)
    modules = [m.name for m in pkgutil.walk_packages(package.__path__, name + ".")]
    for module in modules:
        importlib.import_module(module)
    for export in package.__all__:
        getattr(package, export)
    print(name, len(modules), len(package.__all__))
`;

/** Enough of kopf for the shim to be defined (its annotations are evaluated at import), for interpreters kopf cannot run on here. */
const KOPF_STAND_IN = `
class TemporaryError(Exception):
    def __init__(self, message=None, delay=60):
        super().__init__(message)
        self.delay = delay
class PermanentError(Exception):
    pass
Meta = Patch = Logger = Diff = Annotations = Labels = Resource = DaemonStopped = ErrorsMode = OperatorRegistry = object
FieldSpec = str
`;

const found = pythons();

test(
  'the kopf goldens compile under every Python 3.9–3.14 here (python -m compileall)',
  { skip: found.size === 0 ? 'needs a Python 3.9–3.14' : false },
  (t) => {
    const { root } = goldenPackages();
    for (const [version, python] of found) {
      const run = spawnSync(python, ['-m', 'compileall', '-q', root], { encoding: 'utf8', timeout: 300_000 });
      assert.equal(run.status, 0, `${python} (${version}) -m compileall: ${run.stdout}${run.stderr}`);
    }
    t.diagnostic(`compiled with ${[...found.keys()].join(', ')}`);
    assert.ok(found.has('3.11') || !existsSync(DEBIAN_PYTHON), "Debian's Python 3.11 is among them");
  },
);

test(
  "the kopf goldens import with kopf 1.38 on Debian's Python 3.11: every module, every export",
  { skip: kopfRuntimeSkip() },
  () => {
    const { root, packages } = goldenPackages();
    const run = spawnSync(DEBIAN_PYTHON, ['-c', IMPORT_ALL, ...packages], {
      encoding: 'utf8',
      cwd: root,
      env: { ...process.env, PYTHONPATH: `${KOPF_SRC}:${root}`, PYTHONDONTWRITEBYTECODE: '1' },
      timeout: 300_000,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim().split('\n').length, packages.length, run.stdout);
  },
);

test(
  'the kopf goldens import under the other Pythons 3.9–3.14, with a stand-in for kopf',
  { skip: found.size < 2 ? 'needs Pythons besides 3.11' : false },
  (t) => {
    const { root, packages } = goldenPackages();
    const support = join(root, '.support');
    mkdirSync(join(support, 'kopf'), { recursive: true });
    writeFileSync(join(support, 'kopf', '__init__.py'), KOPF_STAND_IN);
    // typing_extensions is pure Python: an interpreter without its own gets Debian's copy (4.4.0,
    // which supports 3.7 to 3.11; 3.12 needs 4.6 or later, as pip installs).
    const debian = join(root, '.typing-extensions');
    mkdirSync(debian);
    const extensions = '/usr/lib/python3/dist-packages/typing_extensions.py';
    if (existsSync(extensions)) cpSync(extensions, join(debian, 'typing_extensions.py'));
    const tried: string[] = [];
    const without: string[] = [];
    for (const [version, python] of found) {
      if (python === DEBIAN_PYTHON) continue;
      const own = spawnSync(python, ['-c', 'import typing_extensions']).status === 0;
      const path = own ? support : `${support}:${debian}`;
      if (
        spawnSync(python, ['-c', 'import typing_extensions'], { env: { ...process.env, PYTHONPATH: path } }).status !==
        0
      ) {
        without.push(version);
        continue;
      }
      tried.push(version);
      const run = spawnSync(python, ['-c', IMPORT_ALL, ...packages], {
        encoding: 'utf8',
        cwd: root,
        env: { ...process.env, PYTHONPATH: `${path}:${root}`, PYTHONDONTWRITEBYTECODE: '1' },
        timeout: 300_000,
      });
      assert.equal(run.status, 0, `under ${python} (${version}): ${run.stderr}`);
      assert.equal(run.stdout.trim().split('\n').length, packages.length, run.stdout);
    }
    if (without.length > 0) t.diagnostic(`no usable typing_extensions for ${without.join(', ')}: compiled only`);
    t.diagnostic(`imported under ${tried.join(', ') || 'none'}`);
  },
);
