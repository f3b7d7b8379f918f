/**
 * Issue 12, target 5: a cold `kopfgen generate` of one small CRD (crds/myresource.yaml) as a
 * user runs it: a fresh process, empty output, no cache, stubs on. Medians of a few runs,
 * beside `node` starting and doing nothing (the floor no CLI can go below), interleaved.
 * `KOPFGEN_BENCH_BASE=<checkout>` adds another built kopfgen (the code before a change).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fresh, median } from './fresh.js';

const ROUNDS = 7;
const crd = resolve('crds/myresource.yaml');
const base = process.env.KOPFGEN_BENCH_BASE;
const runs: Record<string, number[]> = { node: [], now: [], before: [] };

function generateOnce(checkout: string): number {
  const project = mkdtempSync(join(tmpdir(), 'kopfgen-cold-'));
  try {
    const cli = join(checkout, 'dist/src/cli/main.js');
    return fresh([cli, 'generate', crd, '--out', 'generated', '--stubs', 'handlers', '--no-cache', '--quiet'], project)
      .ms;
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

for (let i = 0; i < ROUNDS; i++) {
  runs.node.push(fresh(['-e', '0']).ms);
  runs.now.push(generateOnce(resolve('.')));
  if (base) runs.before.push(generateOnce(base));
}
const node = median(runs.node);
const line = (name: string, values: number[]) =>
  console.log(
    `  ${name.padEnd(44)} ${median(values).toFixed(0).padStart(5)} ms  (min ${Math.min(...values).toFixed(0)}; ${(median(values) / node).toFixed(1)}x node's start-up)`,
  );
console.log(`one small CRD, cold, a fresh process each (median of ${ROUNDS}; target <= 200 ms)`);
line('node -e 0 (start-up alone)', runs.node);
line('kopfgen generate crds/myresource.yaml', runs.now);
if (base) line(`kopfgen before (${base})`, runs.before);
