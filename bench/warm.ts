/**
 * Speed on repeat: `kopfgen generate` over the same CRDs, cold (empty output, no cache) and
 * warm (unchanged inputs: a cache hit), each as a user runs it (a fresh `node` process, start-up
 * included). Also the warm run without the cache (full generation, nothing rewritten) and a
 * warm `--check`. Receives the CRD directory as argv[2]; prints medians of a few runs.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const dir = resolve(process.argv[2] ?? '../shared/crds');
const cli = resolve('dist/src/cli/main.js');
const ROUNDS = 5;

function timed(cwd: string, args: string[]): number {
  const started = performance.now();
  const child = spawnSync(process.execPath, [cli, 'generate', dir, '--quiet', ...args], { cwd, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (child.status !== 0) throw new Error(`kopfgen generate ${args.join(' ')} exited ${child.status}: ${child.stderr}`);
  return ms;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const cold: number[] = [];
const warm: number[] = [];
const warmNoCache: number[] = [];
const warmCheck: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const project = mkdtempSync(join(tmpdir(), 'kopfgen-warm-'));
  try {
    cold.push(timed(project, []));
    warm.push(timed(project, []));
    warmNoCache.push(timed(project, ['--no-cache']));
    warmCheck.push(timed(project, ['--check']));
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}
const row = (name: string, values: number[]): string =>
  `${name.padEnd(34)} ${median(values).toFixed(0).padStart(6)} ms   (min ${Math.min(...values).toFixed(0)}, max ${Math.max(...values).toFixed(0)})`;
console.log(`median of ${ROUNDS} runs, each a fresh process (node start-up included)`);
console.log(row('cold (empty output, no cache)', cold));
console.log(row('warm (unchanged inputs, cache hit)', warm));
console.log(row('warm --no-cache (nothing rewritten)', warmNoCache));
console.log(row('warm --check', warmCheck));
console.log(`warm speed-up: ${(median(cold) / median(warm)).toFixed(1)}x`);
