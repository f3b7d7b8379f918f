/**
 * What the typed handler API costs the user's `tsc`: the whole corpus generated (with stubs)
 * into a temporary project, type-checked under strict three ways, interleaved, best and median
 * of each printed (CPU time): the generated modules alone; the same plus one `onField` (and `onUpdate`)
 * registration per resource, which makes TypeScript compute the resource's field paths and
 * field types; and, when `KOPFGEN_BENCH_BASE_RUNTIME` names another runtime's `index.d.ts`
 * (e.g. an older checkout's declarations), the probes against that runtime, for a before/after
 * ratio. The runtime is the built declarations (`dist/src/runtime/index.d.ts`, or
 * `KOPFGEN_BENCH_RUNTIME`), as a user's project sees it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { generate } from '../src/generate.js';
import { readInputs } from '../src/io/read.js';
import { readStubTemplates } from '../src/io/stub-templates.js';
import { writeFilesAtomic } from '../src/io/write.js';
import { STRICT_OPTIONS } from '../test/helpers/golden-support.js';

const RUNS = 5;
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = process.argv[2];

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** One registration per resource descriptor of a generated module, importing it from there. */
function probes(files: { path: string; content: string }[]): { text: string; resources: number } {
  const imports: string[] = [];
  const calls: string[] = [];
  let n = 0;
  for (const file of files) {
    for (const m of file.content.matchAll(/export const (\w+) = defineResource<(\w+)(?:, (\w+))?>/g)) {
      const [, descriptor, resource, input] = m;
      const alias = `D${n}`;
      const types = `R${n}`;
      const writes = input === undefined ? types : `W${n}`;
      const module = `../generated/${file.path.replace(/\.ts$/, '.js')}`;
      imports.push(
        `import { ${descriptor} as ${alias}, type ${resource} as ${types}${input === undefined ? '' : `, type ${input} as W${n}`} } from ${JSON.stringify(module)};`,
      );
      calls.push(
        `defineHandler<${types}, { phase?: string }, ${writes}>(${alias}, 'probe').onField('metadata.labels', (ctx) => { void ctx.old; return { phase: 'x' }; });`,
        `defineHandler<${types}, { phase?: string }, ${writes}>(${alias}, 'probe').onUpdate((ctx) => { void ctx.new; });`,
      );
      n++;
    }
  }
  return {
    text: [`import { defineHandler } from 'kopfgen/runtime';`, ...imports, ...calls, ''].join('\n'),
    resources: n,
  };
}

function options(runtime: string): ts.CompilerOptions {
  // The type tests' strict settings, with `kopfgen/runtime` resolved to the declarations measured.
  return { ...STRICT_OPTIONS, paths: { 'kopfgen/runtime': [runtime] } };
}

/** CPU time (user + system) rather than wall time: other processes sharing the cores inflate the latter. */
/**
 * CPU time (user + system) rather than wall time: other processes sharing the cores inflate the
 * latter. Also the checker's own counts of types and instantiations, which no load can blur.
 */
function check(
  roots: string[],
  runtime: string,
): { ms: number; errors: number; types: number; instantiations: number } {
  globalThis.gc?.();
  const start = process.cpuUsage();
  const program = ts.createProgram({ rootNames: roots, options: options(runtime) });
  const errors = ts.getPreEmitDiagnostics(program).length;
  const used = process.cpuUsage(start);
  return {
    ms: (used.user + used.system) / 1000,
    errors,
    types: program.getTypeCount(),
    instantiations: program.getInstantiationCount(),
  };
}

const read = await readInputs([dir]);
const result = generate(read.sources, {
  stubs: { dir: 'handlers', templates: readStubTemplates() },
  generatedImportBase: '../generated',
});
const root = mkdtempSync(join(tmpdir(), 'kopfgen-bench-tsc-'));
try {
  const generated = result.files.filter((f) => f.role === 'generated');
  const stubs = result.files.filter((f) => f.role === 'stub');
  const probe = probes(generated);
  const files = [
    { path: join(root, 'package.json'), content: '{ "type": "module" }\n' },
    ...generated.map((f) => ({ path: join(root, 'generated', f.path), content: f.content })),
    ...stubs.map((f) => ({ path: join(root, 'handlers', f.path), content: f.content })),
    { path: join(root, 'cases', 'probes.ts'), content: probe.text },
  ];
  await writeFilesAtomic(files);
  const modules = files.map((f) => f.path).filter((p) => p.endsWith('.ts') && !p.endsWith('probes.ts'));
  const withProbes = [...modules, join(root, 'cases', 'probes.ts')];
  // The declarations, as a user's project sees the runtime (its sources would be checked too).
  const runtime = resolve(process.env.KOPFGEN_BENCH_RUNTIME ?? join(REPO, 'dist/src/runtime/index.d.ts'));
  // The runtime's declarations before: KOPFGEN_BENCH_BASE_RUNTIME, else those of the KOPFGEN_BENCH_BASE checkout.
  const baseCheckout = process.env.KOPFGEN_BENCH_BASE;
  const base =
    process.env.KOPFGEN_BENCH_BASE_RUNTIME ??
    (baseCheckout ? join(resolve(baseCheckout), 'dist/src/runtime/index.d.ts') : undefined);
  const variants: { label: string; roots: string[]; runtime: string }[] = [
    { label: 'generated + stubs', roots: modules, runtime },
    { label: `+ ${probe.resources}×(onField, onUpdate)`, roots: withProbes, runtime },
    ...(base ? [{ label: `+ probes, runtime at ${base}`, roots: withProbes, runtime: resolve(base) }] : []),
  ];
  const times = variants.map(() => [] as number[]);
  const last = variants.map(() => ({ errors: 0, types: 0, instantiations: 0 }));
  for (let run = 0; run < RUNS; run++)
    variants.forEach((v, i) => {
      const r = check(v.roots, v.runtime);
      times[i].push(r.ms);
      last[i] = r;
    });
  console.log(
    `tsc --noEmit (strict, CPU time) over ${generated.length} generated modules, ${stubs.length} stub files:`,
  );
  variants.forEach((v, i) =>
    console.log(
      `  ${v.label.padEnd(48)} best ${times[i].reduce((a, b) => Math.min(a, b)).toFixed(0)} ms, median ${median(times[i]).toFixed(0)} ms (×${(median(times[i]) / median(times[0])).toFixed(2)} of the first); ${last[i].types} types (×${(last[i].types / last[0].types).toFixed(2)}), ${last[i].instantiations} instantiations (×${(last[i].instantiations / last[0].instantiations).toFixed(2)}); ${last[i].errors} errors`,
    ),
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
