/**
 * `generateParallel` must be indistinguishable from `generate`: same files byte for byte, same
 * diagnostics in the same order, same stats; including duplicates split across threads,
 * errors, handler configuration that matches CRDs in only one share, and stubs.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import type { GenerateOptions, SourceText } from '../src/api.js';
import { generate } from '../src/generate.js';
import { readInputs } from '../src/io/read.js';
import { generateParallel } from '../src/generate.js';
import { REPO } from './helpers/golden-support.js';
import { outsideUnitScope } from './helpers/test-scope.js';
import { readPyStubTemplates, readStubTemplates } from '../src/io/stub-templates.js';

function sources(dir: string, names?: string[]): SourceText[] {
  return (names ?? readdirSync(join(REPO, dir)).filter((f) => f.endsWith('.yaml')))
    .sort()
    .map((f) => ({ file: `${dir}/${f}`, text: readFileSync(join(REPO, dir, f), 'utf8') }));
}

async function assertSame(input: SourceText[], options: GenerateOptions, threads: number): Promise<void> {
  const serial = generate(input, options);
  const parallel = await generateParallel(input, options, { threads, minBytes: 0 });
  assert.deepEqual(parallel.diagnostics, serial.diagnostics);
  assert.deepEqual(parallel.stats, serial.stats);
  assert.deepEqual(parallel.files, serial.files);
}

test('parallel equals serial on the fixtures and examples, with stubs and handler config', async () => {
  const input = [...sources('test/fixtures/crds'), ...sources('crds')];
  const options: GenerateOptions = {
    handlers: { Widget: ['build'], Lamp: ['glow'], Nothing: ['x'] },
    stubs: { dir: 'handlers', templates: readStubTemplates() },
  };
  await assertSame(input, options, 2);
  await assertSame(input, options, 3);
  // The kopf target: its run-wide group packages and stub modules decided once, whatever the shares.
  const kopf: GenerateOptions = {
    ...options,
    target: 'kopf',
    stubs: { dir: 'kinds', templates: readPyStubTemplates() },
    generatedPackage: 'generated',
  };
  await assertSame(input, kopf, 2);
});

test('parallel equals serial on bad input: duplicates across threads, errors, Helm', async () => {
  await assertSame(sources('test/fixtures/crds/bad'), { stubs: false }, 2);
  await assertSame(
    sources('test/fixtures/crds/bad', ['duplicate-a.yaml', 'duplicate-a-copy.yaml', 'duplicate-b.yaml']),
    {},
    3,
  );
});

const CORPUS = resolve(process.cwd(), '../shared/crds');
test(
  'parallel equals serial on the corpus',
  { skip: outsideUnitScope('the corpus') || (existsSync(CORPUS) ? false : 'needs ../shared/crds') },
  async () => {
    const read = await readInputs([CORPUS]);
    await assertSame(read.sources, { handlers: { Certificate: ['issue'] } }, 2);
  },
);

test('stubs come from the templates the caller passes (the pipeline reads no file); none without them', () => {
  const input = sources('crds', ['myresource.yaml']);
  const templates = readStubTemplates();
  const custom = {
    ...templates,
    head: templates.head.replace('scaffolded by kopfgen', 'scaffolded from custom templates'),
  };
  const stub = (options: GenerateOptions) => generate(input, options).files.filter((f) => f.role === 'stub');
  const [withCustom] = stub({ stubs: { dir: 'handlers', templates: custom } });
  assert.match(withCustom.content, /scaffolded from custom templates/);
  assert.deepEqual(stub({}), [], 'no templates given: no stubs');
});
