/**
 * One measured command in a fresh `node` process: its wall time (start-up included) and peak
 * RSS (reported by the child itself through the `child-peak.js` preload).
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PRELOAD = join(dirname(fileURLToPath(import.meta.url)), 'child-peak.js');

export interface Fresh {
  ms: number;
  peakMB: number;
}

/** `exitCode`: the exit status the command is expected to end with (1 for bad input). */
export function fresh(args: string[], cwd?: string, exitCode = 0): Fresh {
  const started = performance.now();
  const child = spawnSync(process.execPath, ['--import', PRELOAD, ...args], { cwd, encoding: 'utf8' });
  const ms = performance.now() - started;
  const peak = /KOPFGEN_BENCH_PEAK_KB (\d+)/.exec(child.stderr)?.[1];
  if (child.status !== exitCode || peak === undefined)
    throw new Error(`${args.join(' ')} exited ${child.status}: ${child.stderr.slice(-2000)}`);
  return { ms, peakMB: Number(peak) / 1024 };
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
