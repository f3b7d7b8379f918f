// What counts as a glob is decided once (src/io/read.ts): the reader and the watcher agree.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { watchTargets } from '../../src/cli/watch-mode.js';
import { globBase, isGlob, readInputs } from '../../src/io/read.js';
import type { ResolvedRun } from '../../src/cli/options.js';

test('globBase is the part before the first wildcard segment', () => {
  assert.deepEqual(
    ['crds/**/*.yaml', './crds/v1/*.yml', '*.yaml', 'a/b?/c.yaml', 'plain/file.yaml'].map(globBase),
    ['crds', './crds/v1', '.', 'a', 'plain/file.yaml'],
  );
});

test('a glob is read and watched from the same base; a name with braces is a path to both', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'kopfgen-glob-'));
  mkdirSync(join(cwd, 'crds/v1'), { recursive: true });
  writeFileSync(join(cwd, 'crds/v1/a.yaml'), 'kind: ConfigMap\n');
  writeFileSync(join(cwd, 'crds/{b}.yaml'), 'kind: ConfigMap\n');
  const read = await readInputs(['crds/**/*.yaml', 'crds/{b}.yaml'], { cwd });
  assert.deepEqual(read.sources.map((s) => s.file).sort(), ['crds/v1/a.yaml', 'crds/{b}.yaml']);
  assert.equal(isGlob('crds/{b}.yaml'), false);
  const run = { cwd, inputs: ['crds/**/*.yaml', 'crds/{b}.yaml'] } as unknown as ResolvedRun;
  const targets = await watchTargets(run);
  assert.deepEqual(targets[0], { dir: join(cwd, 'crds'), recursive: true });
  assert.deepEqual(targets[1], { dir: join(cwd, 'crds'), recursive: false, names: new Set(['{b}.yaml']) });
});
