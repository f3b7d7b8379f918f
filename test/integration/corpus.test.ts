/**
 * The real-world corpus: every CRD under ../shared/crds (122 CRDs from 11 projects) generates
 * without errors, and the whole output type-checks under strict with zero errors, in one
 * TypeScript program. Skips with a message where ../shared is absent.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { generate } from '../../src/generate.js';
import { readInputs } from '../../src/io/read.js';
import { formatTs, tempDir, typecheck, writeTree } from '../helpers/golden-support.js';

const CORPUS = resolve(process.cwd(), '../shared/crds');
const skip = existsSync(CORPUS) ? false : 'needs ../shared/crds';

test('corpus: all CRDs generate without errors and the output type-checks under strict', { skip }, async (t) => {
  const read = await readInputs([CORPUS]);
  assert.deepEqual(read.diagnostics, []);
  const result = generate(read.sources, { stubs: false });
  const problems = result.diagnostics.filter((d) => d.severity !== 'note');
  assert.deepEqual(problems, [], 'no errors or warnings on the corpus');
  assert.equal(result.stats.crds, 122);
  // Multi-version CRDs with handlers also get a conversion module and a schema data module each.
  const conversion = result.files.filter((f) => /\.(conversion|schemas)\.ts$/.test(f.path));
  const modules = result.files.filter((f) => f.path !== 'index.ts' && !conversion.includes(f));
  assert.equal(modules.length, result.stats.versions);
  assert.equal(conversion.length % 2, 0);

  const dir = tempDir('corpus');
  const files = writeTree(dir, result.files);
  const lines = result.files.reduce((n, f) => n + f.content.split('\n').length - 1, 0);
  const started = performance.now();
  const diagnostics = typecheck(files);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  t.diagnostic(
    `${result.stats.crds} CRDs, ${result.stats.versions} modules, ${conversion.length / 2} conversions, ${lines} lines; tsc --strict ${seconds} s, ${diagnostics.length} errors`,
  );
  assert.deepEqual(diagnostics.slice(0, 20).map(formatTs), []);
});
