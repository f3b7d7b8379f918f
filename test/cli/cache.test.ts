/**
 * The cache key covers everything a run's output depends on: the inputs, the options and, since
 * they travel in the options, the stub templates' texts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cacheKey } from '../../src/cli/cache.js';
import { resolveRun } from '../../src/cli/options.js';
import { readStubTemplates } from '../../src/io/stub-templates.js';

test('the cache key changes with the stub templates', async () => {
  const sources = [{ file: 'crds/a.yaml', text: 'kind: CustomResourceDefinition\n' }];
  const templates = readStubTemplates();
  const edited = { ...templates, stub: templates.stub.replace('not implemented yet', 'still to write') };
  assert.notEqual(edited.stub, templates.stub);
  const key = (t: typeof templates) =>
    cacheKey(sources, { stubs: { dir: '../handlers', templates: t } }, '/p/generated', '/p/handlers');
  assert.equal(await key(templates), await key({ ...templates }));
  assert.notEqual(await key(templates), await key(edited));
});

test('the CLI reads the stub templates at its edge and passes them in the options (so into the key)', () => {
  const run = resolveRun('/p', ['crds'], {}, { dir: '/p', config: {}, diagnostics: [] });
  assert.ok(run.options.stubs);
  assert.deepEqual(run.options.stubs.templates, readStubTemplates());
  const off = resolveRun('/p', ['crds'], { stubs: false }, { dir: '/p', config: {}, diagnostics: [] });
  assert.equal(off.options.stubs, false);
});
