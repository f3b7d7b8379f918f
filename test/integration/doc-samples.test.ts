/**
 * Every TypeScript code block of README.md and docs/ compiles against the package as built: each
 * block is a module of a temporary project laid out as `kopfgen init` lays one out (`src/generated/`,
 * `src/handlers/`, the scaffold's tsconfig options), whose `kopfgen` is this checkout (its `exports`,
 * so `dist/`'s declarations, as an installed package resolves them). The generated code the samples
 * import is generated in the setup from the examples' CRDs. One program checks all blocks; an error
 * is reported at its Markdown file and line.
 *
 * A block that is deliberately not a whole module says so just before it: `<!-- not-checked: why -->`,
 * or `<!-- sample-prelude … -->` with the declarations it takes from its page's context.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import ts from 'typescript';
import { generate } from '../../src/generate.js';
import { readStubTemplates } from '../../src/io/stub-templates.js';
import { docFiles, fencedBlocks, readDoc, type FencedBlock } from '../helpers/doc-markdown.js';
import { REPO, tempDir, writeTree } from '../helpers/golden-support.js';

/** The CRDs whose generated code the samples import: the walkthrough's, the second story's, the webhooks' and conversion's. */
const CRDS = ['crds/myresource.yaml', 'examples/webapp/webapp.yaml', 'examples/widgets/widgets.yaml'];

/** A sample checked beside the docs' own, to show that an error is found and placed at its line. */
const BROKEN: FencedBlock = {
  file: 'broken-sample.md',
  line: 7,
  lang: 'ts',
  text: "import { TemporaryError } from 'kopfgen/runtime';\n\nnew TemporaryError('x', { delay: 'soon' });\n",
  marker: { kind: 'prelude', text: 'const label: string = 42;\n', line: 4 },
};

interface Sample {
  block: FencedBlock;
  path: string;
  prelude: string;
}

let root = '';
let program: ts.Program;
const samples: Sample[] = [];
const blocks = docFiles(REPO).flatMap((f) => fencedBlocks(f, readDoc(REPO, f)));
const typescript = blocks.filter((b) => b.lang === 'ts' || b.lang === 'typescript');

before(() => {
  root = tempDir('doc-samples');
  writeFileSync(join(root, 'package.json'), '{ "name": "doc-samples", "private": true, "type": "module" }\n');
  mkdirSync(join(root, 'node_modules/@types'), { recursive: true });
  symlinkSync(REPO, join(root, 'node_modules/kopfgen'), 'dir');
  symlinkSync(join(REPO, 'node_modules/@types/node'), join(root, 'node_modules/@types/node'), 'dir');

  const result = generate(
    CRDS.map((file) => ({ file, text: readFileSync(join(REPO, file), 'utf8') })),
    { stubs: { dir: 'src/handlers', templates: readStubTemplates() }, generatedImportBase: '../generated' },
  );
  assert.deepEqual(
    result.diagnostics.filter((d) => d.severity === 'error'),
    [],
    'the samples CRDs generate',
  );
  writeTree(
    join(root, 'src/generated'),
    result.files.filter((f) => f.role !== 'stub'),
  );
  writeTree(
    join(root, 'src/handlers'),
    result.files.filter((f) => f.role === 'stub'),
  );

  for (const block of [...typescript, BROKEN]) {
    if (block.marker?.kind === 'not-checked') continue;
    // A sample that imports `../generated/…` sits one directory down, as a test beside the handlers does.
    const dir = /from '\.\.\//.test(block.text) ? 'src/samples' : 'src';
    const path = join(root, dir, `${block.file.replace(/[/.]/g, '-')}-${block.line}.ts`);
    const prelude = block.marker?.kind === 'prelude' ? block.marker.text : '';
    mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(path, prelude + block.text);
    samples.push({ block, path, prelude });
  }

  const scaffold = JSON.parse(readFileSync(join(REPO, 'templates/init/tsconfig.json'), 'utf8')) as {
    compilerOptions: object;
  };
  const { options, errors } = ts.convertCompilerOptionsFromJson(scaffold.compilerOptions, root);
  assert.deepEqual(errors, [], "the scaffold's tsconfig options");
  program = ts.createProgram({
    rootNames: samples.map((s) => s.path),
    options: { ...options, noEmit: true },
  });
});

after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Every error of the program, as `file:line TScode message`, at the Markdown line it comes from. */
function errorsByDoc(): string[] {
  const byPath = new Map(samples.map((s) => [s.path, s]));
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    if (!d.file || d.start === undefined) return `(no file) TS${d.code} ${message}`;
    const line = d.file.getLineAndCharacterOfPosition(d.start).line + 1;
    const sample = byPath.get(d.file.fileName);
    if (!sample) return `${relative(root, d.file.fileName)}:${line} TS${d.code} ${message}`;
    const preludeLines = sample.prelude === '' ? 0 : sample.prelude.split('\n').length - 1;
    const { block } = sample;
    const at =
      line <= preludeLines && block.marker?.kind === 'prelude'
        ? block.marker.line + line - 1
        : block.line + line - preludeLines;
    return `${block.file}:${at} TS${d.code} ${message}`;
  });
}

test('every TypeScript block of README.md and docs/ compiles with the scaffold tsconfig', () => {
  assert.ok(typescript.length >= 15, `TypeScript blocks found: ${typescript.length}`);
  const unknown = typescript.filter((b) => b.marker?.kind === 'unknown').map((b) => `${b.file}:${b.line}`);
  assert.deepEqual(unknown, [], 'a comment before a block is `not-checked: reason` or `sample-prelude`');
  const unstated = typescript
    .filter((b) => b.marker?.kind === 'not-checked' && b.marker.reason === '')
    .map((b) => `${b.file}:${b.line}`);
  assert.deepEqual(unstated, [], 'a block left out says why');
  const errors = errorsByDoc().filter((e) => !e.startsWith(`${BROKEN.file}:`));
  assert.deepEqual(errors, []);
});

test('a sample that does not compile is reported at its Markdown line, a prelude error at the comment', () => {
  // The prelude's one line (line 4 of the Markdown) assigns a number to a string; the block's line 3 passes a string delay.
  const errors = errorsByDoc().filter((e) => e.startsWith(`${BROKEN.file}:`));
  assert.deepEqual(
    errors.map((e) => e.split(' ').slice(0, 2).join(' ')),
    [`${BROKEN.file}:4 TS2322`, `${BROKEN.file}:${BROKEN.line + 3} TS2322`],
  );
});
