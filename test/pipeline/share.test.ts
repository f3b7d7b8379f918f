/**
 * A share's model budget changes memory, never output: with no budget every file is read again
 * for emission, file by file, and the run's result is byte for byte the one that held every model.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { GenerateOptions, SourceText } from '../../src/api.js';
import { readStubTemplates } from '../../src/io/stub-templates.js';
import { assembleRun, decideRun, sortSources } from '../../src/pipeline/run-stage.js';
import { Share } from '../../src/pipeline/share.js';
import { REPO } from '../helpers/golden-support.js';

function sources(dir: string): SourceText[] {
  return readdirSync(join(REPO, dir))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => ({ file: `${dir}/${f}`, text: readFileSync(join(REPO, dir, f), 'utf8') }));
}

function run(input: SourceText[], options: GenerateOptions, budget: number) {
  const ordered = sortSources(input);
  const share = new Share(budget);
  const templates = options.stubs ? options.stubs.templates : undefined;
  const plan = decideRun(ordered, [ordered.map((_, i) => i)], [share.load(ordered)], options, templates);
  return assembleRun(plan, [share.emit(plan.requests[0])], input);
}

const CASES: [string, SourceText[], GenerateOptions][] = [
  [
    'fixtures and examples, with stubs and handlers',
    [...sources('test/fixtures/crds'), ...sources('crds')],
    { handlers: { Widget: ['build'], Lamp: ['glow'] }, stubs: { dir: 'handlers', templates: readStubTemplates() } },
  ],
  ['bad input: duplicates, errors, Helm', sources('test/fixtures/crds/bad'), { stubs: false }],
  ['a bundle: the fixtures as documents of one file, one the fast reader gives up on', [bundle()], { stubs: false }],
];

/** Every single-document fixture in one file (a release bundle), the last with an anchor the fast reader leaves to the full parser. */
function bundle(): SourceText {
  const texts = sources('test/fixtures/crds')
    .map((s) => s.text)
    .filter((t) => !t.includes('\n---') && t.includes('kind: CustomResourceDefinition'));
  const last = texts.length - 1;
  texts[last] = texts[last].replace('type: object\n', 'type: &o object\n');
  return { file: 'bundle.yaml', text: texts.join('---\n') };
}

for (const [what, input, options] of CASES) {
  test(`share: no model budget (every file read again) gives the held models' output: ${what}`, () => {
    const held = run(input, options, Number.POSITIVE_INFINITY);
    for (const budget of [0, 3_000]) assert.deepEqual(run(input, options, budget), held);
    assert.ok(held.diagnostics.length > 0 || held.files.length > 0);
  });
}
