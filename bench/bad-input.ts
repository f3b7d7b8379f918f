/**
 * Bad input costs no more than good input: one large CRD (~50 MB of block YAML, as generators
 * write it; `KOPFGEN_BENCH_BAD_MB` sets the size), `kopfgen generate` of it as it is and of the
 * same text with one mistake: a stray `]` after it, or halfway through. A fresh process each, time
 * and peak RSS, and each mistake's ratio to the valid file. Before the reader read a malformed
 * file from where its fast reader stopped, the `yaml` package's full parser re-read it whole:
 * 4x the memory of the valid file, and an error per token after a mid-file mistake.
 * `KOPFGEN_BENCH_BASE=<checkout>` runs another built kopfgen on the same files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fresh, type Fresh } from './fresh.js';
import { wideCrd } from './wide-crd.js';

const megabytes = Number(process.env.KOPFGEN_BENCH_BAD_MB ?? 50);
const base = process.env.KOPFGEN_BENCH_BASE;

/** A CRD whose spec has many properties, each a small object with a description, up to `bytes`. */
function bigCrd(bytes: number): string {
  return wideCrd(
    (i) =>
      [
        `                field${i}:`,
        '                  type: object',
        `                  description: The ${i}th field, described at the length real descriptions have.`,
        '                  properties:',
        '                    name: { type: string, description: A name. }',
        '                    count: { type: integer, format: int32, minimum: 0 }',
        '                    tags: { type: array, items: { type: string } }',
      ].join('\n'),
    (_, size) => size < bytes,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'kopfgen-bad-'));
try {
  const valid = bigCrd(megabytes * 1e6);
  const lines = valid.split('\n');
  const half = lines.findIndex((l, i) => i > lines.length / 2 && l.startsWith('                field'));
  const files = {
    valid: valid,
    'a stray `]` at the end': `${valid}]\n`,
    'a stray `]` halfway': [...lines.slice(0, half), '                ]', ...lines.slice(half)].join('\n'),
  };
  for (const [name, text] of Object.entries(files))
    writeFileSync(join(dir, `${Object.keys(files).indexOf(name)}.yaml`), text);
  const run = (checkout: string, i: number): Fresh =>
    fresh(
      [
        join(checkout, 'dist/src/cli/main.js'),
        'generate',
        `${i}.yaml`,
        '--out',
        `out-${i}`,
        '--no-stubs',
        '--no-cache',
        '--quiet',
      ],
      dir,
      i === 0 ? 0 : 1,
    );
  console.log(`one CRD of ${(valid.length / 1e6).toFixed(1)} MB, a fresh process each`);
  for (const [label, checkout] of [['now', resolve('.')], ...(base ? [['before', base]] : [])]) {
    const results = Object.keys(files).map((_, i) => {
      try {
        return run(checkout, i);
      } catch (e) {
        return e as Error;
      }
    });
    const good = results[0];
    Object.keys(files).forEach((name, i) => {
      const r = results[i];
      const cell =
        r instanceof Error
          ? `failed: ${/exited (\w+)/.exec(r.message)?.[0] ?? ''} ${/(KG\d{3}[^\n]{0,60}|signal \w+|heap limit[^\n]{0,20})/.exec(r.message)?.[0] ?? ''}`
          : `${(r.ms / 1000).toFixed(1).padStart(5)} s ${r.peakMB.toFixed(0).padStart(5)} MB` +
            (good instanceof Error || i === 0
              ? ''
              : `  (${(r.ms / good.ms).toFixed(2)}x the time, ${(r.peakMB / good.peakMB).toFixed(2)}x the memory of the valid file)`);
      console.log(`  ${label.padEnd(7)} ${name.padEnd(24)} ${cell}`);
    });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
