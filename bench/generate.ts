/**
 * End to end (read, parse, model, emit, write to a fresh temporary directory) against two
 * yardsticks measured in the same process: the floor (the `yaml` package alone parsing the same
 * texts: parseAllDocuments + toJS) and the wrapper a user could write instead (js-yaml +
 * openapi-typescript, `wrapper.ts`). Runs interleave; the best and the median of each are
 * printed, each with its ratio to both. `KOPFGEN_BENCH_BASE=<checkout>` adds another built
 * kopfgen (the code before a change) to the same runs. Then the largest CRD alone, and the
 * slowest single CRD. First, one run in a fresh process per thread count, for the peak memory
 * of a single generation (the section's own peak below includes every run of this section).
 * The kopf target (`--target kopf`, the Python package) runs in the same interleaving, printed
 * beside the TypeScript target with their ratio (target: within 1.2x).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { SourceText, Target } from '../src/api.js';
import { generate, generateParallel } from '../src/generate.js';
import { readInputs } from '../src/io/read.js';
import { writeFilesAtomic } from '../src/io/write.js';
import { wrapper } from './wrapper.js';

const RUNS = Number(process.env.KOPFGEN_BENCH_RUNS ?? 5);
const BASE = process.env.KOPFGEN_BENCH_BASE;
const THREADS = Math.max(2, availableParallelism());
const dir = process.argv[2];

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function floor(sources: readonly SourceText[]): void {
  for (const s of sources) for (const doc of parseAllDocuments(s.text)) doc.toJS();
}

async function endToEnd(
  inputs: string[],
  threads = 1,
  target: Target = 'typescript',
): Promise<{ crds: number; bytesOut: number; files: number }> {
  const read = await readInputs(inputs);
  const options = { stubs: false as const, target };
  const result =
    threads > 1 ? await generateParallel(read.sources, options, { threads }) : generate(read.sources, options);
  if (result.files.length === 0)
    throw new Error(`generation failed: ${result.diagnostics.filter((d) => d.severity === 'error').length} errors`);
  const out = mkdtempSync(join(tmpdir(), 'kopfgen-bench-'));
  try {
    await writeFilesAtomic(result.files.map((f) => ({ path: join(out, f.path), content: f.content })));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  return { crds: result.stats.crds, bytesOut: result.stats.bytesOut, files: result.files.length };
}

async function time<T>(fn: () => Promise<T> | T): Promise<[number, T]> {
  globalThis.gc?.();
  const start = performance.now();
  const value = await fn();
  return [performance.now() - start, value];
}

/** The same end-to-end work with another built kopfgen (serial and parallel as asked). */
async function baseRun(inputs: string[], threads: number): Promise<void> {
  if (!BASE) return;
  const gen = (await import(join(BASE, 'dist/src/generate.js'))) as typeof import('../src/generate.js');
  const io = (await import(join(BASE, 'dist/src/io/read.js'))) as typeof import('../src/io/read.js');
  const read = await io.readInputs(inputs);
  const result =
    threads > 1
      ? await gen.generateParallel(read.sources, { stubs: false }, { threads })
      : gen.generate(read.sources, { stubs: false });
  const out = mkdtempSync(join(tmpdir(), 'kopfgen-bench-'));
  try {
    await writeFilesAtomic(result.files.map((f) => ({ path: join(out, f.path), content: f.content })));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

async function compare(label: string, inputs: string[]): Promise<void> {
  const sources = (await readInputs(inputs)).sources;
  const files = sources.map((s) => s.file);
  const bytes = sources.reduce((n, s) => n + Buffer.byteLength(s.text), 0);
  const runs: Record<string, number[]> = {};
  const add = (name: string, ms: number) => (runs[name] ??= []).push(ms);
  let info = { crds: 0, bytesOut: 0, files: 0 };
  const serialName = 'kopfgen end to end, 1 thread';
  const parallelName = `kopfgen end to end, ${THREADS} threads`;
  const kopfName = 'kopfgen --target kopf, 1 thread';
  for (let i = 0; i < RUNS; i++) {
    add('yaml parse floor (toJS, 1 thread)', (await time(() => floor(sources)))[0]);
    add('wrapper (js-yaml + openapi-typescript)', (await time(() => wrapper(files)))[0]);
    const [ms, value] = await time(() => endToEnd(inputs));
    add(serialName, ms);
    info = value;
    add(parallelName, (await time(() => endToEnd(inputs, THREADS)))[0]);
    add(kopfName, (await time(() => endToEnd(inputs, 1, 'kopf')))[0]);
    if (BASE) {
      add('before: kopfgen, 1 thread', (await time(() => baseRun(inputs, 1)))[0]);
      add(`before: kopfgen, ${THREADS} threads`, (await time(() => baseRun(inputs, THREADS)))[0]);
    }
  }
  // Other load on the machine only ever adds time: the best run is the steadiest estimate, the median is shown beside it.
  const floorBest = Math.min(...runs['yaml parse floor (toJS, 1 thread)']);
  const wrapperBest = Math.min(...runs['wrapper (js-yaml + openapi-typescript)']);
  console.log(
    `${label}: ${info.crds} CRDs, ${(bytes / 1e6).toFixed(1)} MB in, ${info.files} files / ${(info.bytesOut / 1e6).toFixed(1)} MB out (best of ${RUNS} interleaved runs; targets: <= 0.5x the wrapper, <= 0.75x the floor)`,
  );
  for (const [name, values] of Object.entries(runs)) {
    const ms = Math.min(...values);
    console.log(
      `  ${name.padEnd(40)} ${ms.toFixed(0).padStart(6)} ms  ${(info.crds / (ms / 1000)).toFixed(0).padStart(5)} CRDs/s  ` +
        `${(ms / floorBest).toFixed(2)}x the floor  ${(ms / wrapperBest).toFixed(2)}x the wrapper   (median ${median(values).toFixed(0)} ms)`,
    );
  }
  const kopf = Math.min(...runs[kopfName]);
  const typescript = Math.min(...runs[serialName]);
  console.log(
    `  --target kopf vs. the TypeScript target (1 thread, best): ${kopf.toFixed(0)} / ${typescript.toFixed(0)} ms = ${(kopf / typescript).toFixed(2)}x (target: <= 1.20x; medians ${(median(runs[kopfName]) / median(runs[serialName])).toFixed(2)}x)`,
  );
}

async function slowestSingle(files: string[]): Promise<void> {
  let worst = { file: '', ms: 0 };
  let heapPeak = 0;
  for (const file of files) {
    const [ms] = await time(() => endToEnd([file]));
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    if (ms > worst.ms) worst = { file, ms };
  }
  console.log(
    `slowest single CRD: ${basename(worst.file)} ${worst.ms.toFixed(0)} ms end to end (heap after any single CRD ≤ ${(heapPeak / 1e6).toFixed(0)} MB)`,
  );
}

/** One end-to-end run in a fresh process: its peak RSS is what one `kopfgen generate` costs. */
function peakOfOneRun(threads: number): string {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), dir, '--once', String(threads)], {
    encoding: 'utf8',
  });
  return child.status === 0 ? child.stdout.trim() : `failed: ${child.stderr.trim()}`;
}

if (process.argv[3] === '--once') {
  const threads = Number(process.argv[4]);
  const started = performance.now();
  await endToEnd([dir], threads);
  const ms = performance.now() - started;
  console.log(`${ms.toFixed(0)} ms, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  process.exit(0);
}

const all = (await readInputs([dir])).sources.map((s) => s.file);
const started = performance.now();
console.log(
  `one run per fresh process (read, generate, write): 1 thread ${peakOfOneRun(1)}; ${THREADS} threads ${peakOfOneRun(THREADS)}`,
);
await compare('whole directory', [dir]);
const largest = all.reduce((a, b) => (statSync(b).size > statSync(a).size ? b : a));
const prometheuses = all.find((f) => f.endsWith('monitoring.coreos.com_prometheuses.yaml')) ?? largest;
await compare(`single CRD ${basename(prometheuses)}`, [prometheuses]);
await slowestSingle(all);
console.log(`section wall time ${((performance.now() - started) / 1000).toFixed(1)} s`);
