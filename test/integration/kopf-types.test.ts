/**
 * The kopf target's Python checked by a real checker: pyright (strict, Python 3.9 rules, the fixtures again under 3.14's; kopf
 * 1.38's source on the import path), run once over everything, since its start costs seconds: the
 * package and stubs generated from every CRD of ../shared/crds, every committed golden package,
 * the fixtures' stubs, the stub templates, a `kopfgen init --target kopf` project, and the type
 * tests (test/fixtures/kopf/type-cases.py), whose errors must be exactly those marked, rule and line.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { before, test } from 'node:test';
import type { GeneratedFile } from '../../src/api.js';
import { runInit } from '../../src/cli/init.js';
import { realPipeline } from '../../src/cli/pipeline.js';
import { generate } from '../../src/generate.js';
import { readInputs } from '../../src/io/read.js';
import { readPyStubTemplates } from '../../src/io/stub-templates.js';
import { REPO, copyKopfGolden, goldenFixtures, tempDir, writeTree } from '../helpers/golden-support.js';
import { formatPyright, pyrightSkip, runPyright, type PyrightDiagnostic } from '../helpers/python-support.js';

const CORPUS = resolve(REPO, '../shared/crds');
const CASES = 'test/fixtures/kopf/type-cases.py';
/** The newest Python the generated code must type-check under (pyright's `pythonVersion`). */
const NEWEST_PYTHON = '3.14';

/** A kopf run with stubs: the package under `<dir>/generated`, the stubs under `<dir>/kinds`. */
function writeProject(dir: string, files: GeneratedFile[]): void {
  writeTree(
    join(dir, 'generated'),
    files.filter((f) => f.role === 'generated'),
  );
  writeTree(
    join(dir, 'kinds'),
    files.filter((f) => f.role === 'stub'),
  );
}

function kopfRun(sources: { file: string; text: string }[]) {
  const result = generate(sources, {
    target: 'kopf',
    stubs: { dir: '../kinds', templates: readPyStubTemplates() },
    generatedPackage: 'generated',
  });
  assert.deepEqual(
    result.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  return result;
}

const sources = (files: string[]) => files.map((file) => ({ file, text: readFileSync(join(REPO, file), 'utf8') }));

let diagnostics: PyrightDiagnostic[] = [];
let newestDiagnostics: PyrightDiagnostic[] = [];
let corpusModules = 0;
const roots: string[] = [];
const goldens = goldenFixtures().map((f) => f.name);

before(
  async () => {
    if (pyrightSkip) return;
    const dir = tempDir('kopf-types');
    for (const name of goldens) {
      copyKopfGolden(name, join(dir, 'goldens', name, 'generated'));
      roots.push(`goldens/${name}`);
    }
    writeProject(join(dir, 'fixtures'), kopfRun(sources(goldenFixtures().map((f) => f.file))).files);
    const typetests = join(dir, 'typetests');
    writeProject(
      typetests,
      kopfRun(
        sources(
          goldenFixtures()
            .filter((f) => f.file.startsWith('crds/'))
            .map((f) => f.file),
        ),
      ).files,
    );
    cpSync(join(REPO, CASES), join(typetests, 'type_cases.py'));
    cpSync(join(REPO, 'templates/kopf'), join(dir, 'templates'), { recursive: true });
    const streams = { stdout: new PassThrough(), stderr: process.stderr, env: process.env };
    assert.equal(await runInit(join(dir, 'init'), streams, { target: 'kopf', quiet: true }, realPipeline), 0);
    roots.push('fixtures', 'typetests', 'templates', 'init');
    if (existsSync(CORPUS)) {
      const read = await readInputs([CORPUS]);
      const result = kopfRun(read.sources);
      corpusModules = result.stats.versions;
      writeProject(join(dir, 'corpus'), result.files);
      roots.push('corpus');
    }
    mkdirSync(dir, { recursive: true });
    diagnostics = runPyright(dir, roots).diagnostics;
    // the fixtures' package and stubs again, with the newest Python's rules (its deprecations included)
    const newest = join(dir, 'newest');
    writeProject(join(newest, 'fixtures'), kopfRun(sources(goldenFixtures().map((f) => f.file))).files);
    newestDiagnostics = runPyright(newest, ['fixtures'], NEWEST_PYTHON).diagnostics;
  },
  { timeout: 900_000 },
);

const errorsUnder = (root: string) => diagnostics.filter((d) => d.file.startsWith(root + '/')).map(formatPyright);

test(
  'pyright strict: every CRD of ../shared/crds, package and stubs, 0 errors',
  { skip: pyrightSkip || (existsSync(CORPUS) ? false : 'needs ../shared/crds') },
  (t) => {
    t.diagnostic(`${corpusModules} modules`);
    assert.ok(corpusModules > 100);
    assert.deepEqual(errorsUnder('corpus').slice(0, 20), []);
  },
);

test('pyright strict: every golden package, 0 errors', { skip: pyrightSkip }, () => {
  assert.deepEqual(errorsUnder('goldens').slice(0, 20), []);
});

test(
  "pyright strict: the fixtures' package and stubs, the stub templates, a kopfgen init --target kopf project: 0 errors",
  { skip: pyrightSkip },
  () => {
    assert.deepEqual(
      [...errorsUnder('fixtures'), ...errorsUnder('templates'), ...errorsUnder('init')].slice(0, 20),
      [],
    );
  },
);

test(
  `pyright strict with Python ${NEWEST_PYTHON} as the target: the fixtures' package and stubs, 0 errors (no deprecated API)`,
  { skip: pyrightSkip },
  () => {
    assert.deepEqual(newestDiagnostics.map(formatPyright).slice(0, 20), []);
  },
);

test('type tests: pyright reports exactly the errors marked, by rule and line', { skip: pyrightSkip }, () => {
  const lines = readFileSync(join(REPO, CASES), 'utf8').split('\n');
  const want: string[] = [];
  lines.forEach((line, i) => {
    const marks = /# error: (report\w+(?:, report\w+)*)$/.exec(line);
    if (marks) for (const rule of marks[1].split(', ')) want.push(`${i + 1} ${rule}`);
  });
  assert.ok(want.length >= 8, 'the cases mark their errors');
  const got = diagnostics
    .filter((d) => d.file === 'typetests/type_cases.py')
    .map((d) => `${d.line} ${d.rule}`)
    .sort();
  assert.deepEqual(got, want.sort());
  assert.deepEqual(
    errorsUnder('typetests').filter((d) => !d.startsWith('typetests/type_cases.py')),
    [],
    'the generated code itself is clean',
  );
});
