/**
 * Issue 22: the story as a handler unit test (`examples/myresource/test/myresources.test.ts`, written
 * with `kopfgen/testing`) runs in under 50 ms. Measured two ways: the story itself in this process
 * (two `invoke` calls: Pending with delay 30, then Starting with the reason cleared), its first run
 * (cold: modules loaded, nothing compiled yet) and the median of later runs; and the whole test file
 * under node's test runner in a fresh process, beside `node --test` of an empty test file (the
 * runner's own start-up, the floor), interleaved.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { median } from './fresh.js';
import { expectOutcome, invoke } from '../src/testing/index.js';
import { MyResourceMyapp } from '../examples/myresource/generated/index.js';
import { buildMyResource as myResource } from '../examples/myresource/generated/example.com/myresources.schemas.js';
import '../examples/myresource/handlers/myresources.js';

const ROUNDS = 7;

/** Wall time of `node --test <file>` in a fresh process (the runner reports no peak through a preload). */
function nodeTest(file: string): number {
  const started = performance.now();
  const child = spawnSync(process.execPath, ['--test', file], { encoding: 'utf8' });
  const ms = performance.now() - started;
  if (child.status !== 0) throw new Error(`node --test ${file} exited ${child.status}: ${child.stdout.slice(-2000)}`);
  return ms;
}
const STORIES = 200;

async function story(): Promise<number> {
  const started = performance.now();
  const first = await invoke(MyResourceMyapp, 'create', myResource({ metadata: { name: 'web' } }));
  expectOutcome(first, { kind: 'temporary', delay: 30, status: { phase: 'Pending', reason: 'no-image' } });
  const second = await invoke(MyResourceMyapp, 'create', { ...first.object, spec: { image: 'nginx', replicas: 1 } });
  expectOutcome(second, { kind: 'success', retry: 1, status: { phase: 'Starting', reason: null } });
  return performance.now() - started;
}

const cold = await story();
const warm: number[] = [];
for (let i = 0; i < STORIES; i++) warm.push(await story());

const empty = mkdtempSync(join(tmpdir(), 'kopfgen-testing-bench-'));
const emptyTest = join(empty, 'empty.test.mjs');
writeFileSync(emptyTest, "import { test } from 'node:test';\ntest('nothing', () => {});\n");
const file = resolve('dist/examples/myresource/test/myresources.test.js');
const runs: Record<string, number[]> = { floor: [], file: [] };
try {
  for (let i = 0; i < ROUNDS; i++) {
    runs.floor.push(nodeTest(emptyTest));
    runs.file.push(nodeTest(file));
  }
} finally {
  rmSync(empty, { recursive: true, force: true });
}
console.log('the story as a unit test with kopfgen/testing (target: under 50 ms)');
console.log(`  the story (2 invokes), first run in this process   ${cold.toFixed(1).padStart(7)} ms`);
console.log(`  the story, median of ${STORIES} later runs              ${median(warm).toFixed(2).padStart(7)} ms`);
const floor = median(runs.floor);
console.log(
  `  node --test of an empty test file (the floor)      ${floor.toFixed(0).padStart(7)} ms (median of ${ROUNDS})`,
);
console.log(
  `  node --test examples/myresource/test (3 tests)     ${median(runs.file).toFixed(0).padStart(7)} ms (median; +${(median(runs.file) - floor).toFixed(0)} ms over the floor)`,
);
