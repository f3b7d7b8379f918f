/**
 * `kopfgen generate --target kopf` (or `"target": "kopf"` in the configuration) behaves as the
 * TypeScript target does: the package and stub modules written, `--check` up to date or a diff
 * and exit 1, `--format json`, a handler removed reported at the user's Python (KG321 at the
 * import, KG320 at the registration) with nothing written, exit 2 for usage errors; and
 * `kopfgen init --target kopf` scaffolds a Python operator project whose `--check` passes, with
 * unit tests of its handlers (a golden) that pyright strict finds clean.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXAMPLE_CRD, kopfgen, read, REPO, snapshot, tempProject, tree, writeFiles } from '../helpers/cli-support.js';
import { spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import {
  DEBIAN_PYTHON,
  formatPyright,
  KOPF_SRC,
  kopfRuntimeSkip,
  pyrightSkip,
  runPyright,
} from '../helpers/python-support.js';

/** What init --target kopf writes as the example CRD's handler tests. */
const TESTS_GOLDEN = 'test/fixtures/init-kopf/test_myresources.py';

const TWO_HANDLERS = EXAMPLE_CRD.replace(
  '  name: myresources.example.com\n',
  '  name: myresources.example.com\n  annotations:\n    kopfgen.dev/handlers: "myapp, cleanup"\n',
);

test('generate --target kopf: the package and a stub module; --check passes; JSON says the same', async () => {
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD });
  const r = await kopfgen(['generate', 'crds', '--target', 'kopf', '--stubs', 'kinds'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /added stub myapp_on_create for handler myapp \(create\) to kinds\/myresources\.py/);
  assert.deepEqual(await tree(dir), [
    'crds/my.yaml',
    'generated/.kopfgen-manifest.json',
    'generated/__init__.py',
    'generated/example_com/__init__.py',
    'generated/example_com/v1/__init__.py',
    'generated/example_com/v1/myresources.py',
    'generated/kopfgen.py',
    'kinds/myresources.py',
  ]);
  assert.match(await read(dir, 'kinds/myresources.py'), /^from generated\.example_com\.v1\.myresources import \($/m);
  const check = await kopfgen(
    ['generate', 'crds', '--target', 'kopf', '--stubs', 'kinds', '--check', '--format', 'json'],
    dir,
  );
  assert.equal(check.code, 0, check.stderr);
  const report = JSON.parse(check.stdout) as { ok: boolean; outOfDate: unknown[] };
  assert.deepEqual([report.ok, report.outOfDate], [true, []]);
});

test('"target": "kopf" in the configuration; a CRD change: --check fails with a diff, generate merges the new stubs', async () => {
  const config = JSON.stringify({ target: 'kopf', inputs: ['crds'], out: 'app/generated', stubs: 'app/kinds' });
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD, 'kopfgen.config.json': config });
  assert.equal((await kopfgen(['generate'], dir)).code, 0);
  const stub = await read(dir, 'app/kinds/myresources.py');
  assert.match(stub, /^from generated\.example_com\.v1\.myresources import/m, 'imported from the common parent, app/');
  await writeFiles(dir, {
    'crds/my.yaml': TWO_HANDLERS,
    'app/kinds/myresources.py': stub.replace(
      '    logger.info("update handler',
      '    # mine\n    logger.info("update handler',
    ),
  });
  const before = await snapshot(dir);
  const check = await kopfgen(['generate', '--check'], dir);
  assert.equal(check.code, 1);
  assert.match(check.stdout, /^\+MyResourceCleanupStatus: TypeAlias = MyResourceStatusCleanup$/m);
  assert.match(check.stderr, /kopfgen: \d+ files? out of date/);
  assert.deepEqual(await snapshot(dir), before, '--check writes nothing');
  const r = await kopfgen(['generate'], dir);
  assert.equal(r.code, 0, r.stderr);
  const merged = await read(dir, 'app/kinds/myresources.py');
  assert.match(merged, / {4}# mine\n/, "the user's line is kept");
  assert.match(merged, /^@MyResourceCleanup\.on_create\(\)$/m);
  assert.match(merged, /^ {4}MyResourceCleanup,$/m, 'the new names join the import');
});

test('a handler the CRD no longer names: KG321 at the import, KG320 at the registration, nothing written', async () => {
  const dir = await tempProject({ 'crds/my.yaml': TWO_HANDLERS });
  const args = ['generate', 'crds', '--target', 'kopf', '--stubs', 'kinds'];
  assert.equal((await kopfgen(args, dir)).code, 0);
  await writeFiles(dir, { 'crds/my.yaml': EXAMPLE_CRD });
  const before = await snapshot(dir);
  const r = await kopfgen([...args, '--format', 'json'], dir);
  assert.equal(r.code, 1);
  const report = JSON.parse(r.stdout) as { diagnostics: { code: string; file: string; line: number; col: number }[] };
  const text = await read(dir, 'kinds/myresources.py');
  const lineOf = (pattern: RegExp) => text.split('\n').findIndex((l) => pattern.test(l)) + 1;
  assert.deepEqual(
    report.diagnostics.map((d) => `${d.code} ${d.file}:${d.line}:${d.col}`),
    [
      'KG209 crds/my.yaml:17:7', // the CRD's status has no conditions: a note
      `KG321 kinds/myresources.py:${lineOf(/^ {4}MyResourceCleanup,$/)}:5`,
      `KG320 kinds/myresources.py:${lineOf(/^@MyResourceCleanup\.on_create/)}:2`,
      `KG320 kinds/myresources.py:${lineOf(/^@MyResourceCleanup\.on_update/)}:2`,
      `KG320 kinds/myresources.py:${lineOf(/^@MyResourceCleanup\.on_resume/)}:2`,
    ],
  );
  assert.deepEqual(await snapshot(dir), before, 'nothing written');
});

test('usage errors exit 2: an unknown target, a target the configuration gets wrong, an output path Python cannot import', async () => {
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD });
  const flag = await kopfgen(['generate', 'crds', '--target', 'python'], dir);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /argument 'python' is invalid. Allowed choices are typescript, kopf/);
  await writeFiles(dir, { 'kopfgen.config.json': '{ "target": "rust", "inputs": ["crds"] }' });
  const config = await kopfgen(['generate'], dir);
  assert.equal(config.code, 2);
  assert.match(
    config.stderr,
    /kopfgen\.config\.json:1:13 error KG302 configuration key "target" must be "typescript" or "kopf", got string "rust"/,
  );
  const other = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD });
  const out = await kopfgen(
    ['generate', 'crds', '--target', 'kopf', '--out', 'my-generated', '--stubs', 'kinds'],
    other,
  );
  assert.equal(out.code, 2);
  assert.match(out.stderr, /"my-generated" is not a Python package name/);
  assert.deepEqual(await tree(other), ['crds/my.yaml'], 'nothing written');
});

test('init --target kopf: a Python operator project, up to date', async () => {
  const parent = await tempProject();
  const r = await kopfgen(['init', '--target', 'kopf', 'my-operator'], parent);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ {2}pip install -r requirements\.txt\n {2}npm run typecheck\n {2}npm test\n/m);
  const project = join(parent, 'my-operator');
  assert.deepEqual(await tree(project), [
    '.github/workflows/ci.yml',
    '.gitignore',
    'README.md',
    'crds/myresource.yaml',
    'generated/.kopfgen-manifest.json',
    'generated/__init__.py',
    'generated/example_com/__init__.py',
    'generated/example_com/v1/__init__.py',
    'generated/example_com/v1/myresources.py',
    'generated/kopfgen.py',
    'handlers.py',
    'kinds/myresources.py',
    'kopfgen.config.json',
    'package.json',
    'pyrightconfig.json',
    'requirements.txt',
    'tests/test_myresources.py',
  ]);
  assert.match(
    await read(project, 'handlers.py'),
    /^# kopfgen:begin imports: .*\nfrom kinds import myresources\n\nMODULES = \(myresources,\)\n# kopfgen:end imports\n$/m,
  );
  assert.match(await read(project, 'requirements.txt'), /^kopf==1\.38\.0$/m);
  const ci = await read(project, '.github/workflows/ci.yml');
  assert.match(ci, /run: npx kopfgen generate --check/);
  assert.match(ci, /run: npx pyright/);
  assert.match(ci, /run: npm test/);
  const pkg = JSON.parse(await read(project, 'package.json')) as {
    type?: string;
    scripts: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  assert.equal(pkg.type, undefined, 'no "type": the project has no JavaScript');
  assert.deepEqual(Object.keys(pkg.devDependencies), ['kopfgen', 'pyright']);
  assert.equal(pkg.scripts.test, 'python3 -m unittest discover -s tests');
  // The handlers' unit tests: one per stub function, what init-py-tests.ts writes for the example CRD.
  assert.equal(await read(project, 'tests/test_myresources.py'), await read(REPO, TESTS_GOLDEN));
  const pyright = JSON.parse(await read(project, 'pyrightconfig.json')) as { include: string[] };
  assert.ok(pyright.include.includes('tests'), 'pyright checks the tests too');
  const check = await kopfgen(['generate', '--check'], project);
  assert.equal(check.code, 0, check.stdout + check.stderr);
});

test(
  'init --target kopf: the scaffold, its handler tests included, is clean under pyright strict',
  { skip: pyrightSkip },
  async () => {
    const parent = await tempProject();
    assert.equal((await kopfgen(['init', '--target', 'kopf', 'op'], parent)).code, 0);
    const project = join(parent, 'op');
    // The project's root as the one execution root (as `kopf run handlers.py` and unittest import from it), kopf's source beside.
    const { diagnostics, files } = runPyright(project, ['.']);
    assert.deepEqual(diagnostics.map(formatPyright), []);
    assert.ok(files >= 5, `pyright read ${files} files`);
  },
);

/**
 * Python's unittest over the scaffold's tests: kopf itself on Debian's Python where its packages
 * are, else the stand-in (test/fixtures/init-kopf/standin: kopf's own structs from its source,
 * decorators that register nothing), so the tests' arguments are kopf's objects either way.
 */
async function unittest(project: string): Promise<{ status: number | null; out: string }> {
  const real = !kopfRuntimeSkip();
  const path = [KOPF_SRC];
  const standin = join(project, '.kopf-standin');
  if (!real && !existsSync(standin)) {
    await fs.mkdir(join(standin, 'kopf'), { recursive: true });
    await fs.copyFile(
      join(REPO, 'test/fixtures/init-kopf/standin/kopf/__init__.py'),
      join(standin, 'kopf/__init__.py'),
    );
    await fs.symlink(join(KOPF_SRC, 'kopf/_cogs'), join(standin, 'kopf/_cogs'), 'dir');
  }
  if (!real) path.unshift(standin);
  const run = spawnSync(real ? DEBIAN_PYTHON : 'python3', ['-m', 'unittest', 'discover', '-s', 'tests'], {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: path.join(':'), PYTHONDONTWRITEBYTECODE: '1' },
    timeout: 120_000,
  });
  return { status: run.status, out: run.stdout + run.stderr };
}

const python3 = spawnSync('python3', ['--version'], { encoding: 'utf8' }).status === 0;

test(
  "init --target kopf: the handlers' tests pass on the stubs and fail, naming the handler, once it returns something else",
  { skip: pyrightSkip || (python3 ? false : 'needs python3') },
  async () => {
    const parent = await tempProject();
    assert.equal((await kopfgen(['init', '--target', 'kopf', 'op'], parent)).code, 0);
    const project = join(parent, 'op');
    const passing = await unittest(project);
    assert.equal(passing.status, 0, passing.out);
    assert.match(passing.out, /^Ran 3 tests/m);
    const stubs = await read(project, 'kinds/myresources.py');
    await fs.writeFile(
      join(project, 'kinds/myresources.py'),
      stubs.replace('return {"phase": "NotImplemented"}', 'return {"phase": "Running"}'),
    );
    const failing = await unittest(project);
    assert.equal(failing.status, 1, failing.out);
    assert.match(failing.out, /^FAIL: test_myapp_on_create /m);
    assert.match(failing.out, /\{'phase': 'Running'\} != \{'phase': 'NotImplemented'\}/);
  },
);
