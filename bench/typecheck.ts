/**
 * What the generated code and the runtime's declarations cost the user's type-checker, three ways:
 *
 *  1. A project generated from one small CRD by `kopfgen init` (one handler module, the `init`
 *     project's compiler options) against an empty project with the same options, each checked by
 *     a cold `tsc` in a fresh process (`tsc-project.ts`): the compiler's own total time, heap,
 *     files, lines of declarations, types and instantiations (target: within 1.2x the empty
 *     project). Beside it the same project naming a built-in kind (`kopfgen/runtime/builtins`),
 *     and the project with the code before a change (`KOPFGEN_BENCH_BASE`).
 *  2. The generated modules of the whole corpus against openapi-typescript's output of the same
 *     CRDs (`wrapper.ts`), the same way (target: within 1.0x its time and heap).
 *  3. The corpus generated with stubs, type-checked under strict in this process (CPU time, best
 *     and median): the generated modules alone; the same plus one `onField` (and `onUpdate`)
 *     registration per resource, which makes TypeScript compute the resource's field paths and
 *     field types; and, when `KOPFGEN_BENCH_BASE_RUNTIME` names another runtime's `index.d.ts`
 *     (e.g. an older checkout's declarations), the probes against that runtime, for a before/after
 *     ratio. The runtime is the built declarations (`dist/src/runtime/index.d.ts`, or
 *     `KOPFGEN_BENCH_RUNTIME`), as a user's project sees it.
 *
 * `KOPFGEN_BENCH_TSC_ROUNDS` sets the interleaved rounds of 1 and 2 (default 7).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { generate } from '../src/generate.js';
import { readInputs } from '../src/io/read.js';
import { readStubTemplates } from '../src/io/stub-templates.js';
import { writeFilesAtomic } from '../src/io/write.js';
import { STRICT_OPTIONS } from '../test/helpers/golden-support.js';
import { median, rounds, row, userProject } from './tsc-project.js';
import { wrapperModules, yamlFiles } from './wrapper.js';

const TSC_ROUNDS = Number(process.env.KOPFGEN_BENCH_TSC_ROUNDS ?? 7);
const RUNS = 5;
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = process.argv[2];

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

/** `kopfgen init` of the checkout at `checkout`, as a project kopfgen is installed in. */
function initProject(work: string, name: string, checkout: string): string {
  const project = join(work, name);
  execFileSync(process.execPath, [join(checkout, 'dist/src/cli/main.js'), 'init', project, '--quiet'], {
    encoding: 'utf8',
  });
  return userProject(project, checkout);
}

/** A built-in kind's handler beside the init project's, as docs/topics/other-objects.md shows it. */
const AUDIT = `import { defineHandler } from 'kopfgen/runtime';
import { builtins } from 'kopfgen/runtime/builtins';

defineHandler(builtins.configMaps, 'audit').onUpdate(({ body, logger }) => {
  logger.info(\`\${body.metadata?.name}: \${Object.keys(body.data ?? {}).join(', ')}\`);
});
`;

const base = process.env.KOPFGEN_BENCH_BASE ? resolve(process.env.KOPFGEN_BENCH_BASE) : undefined;
const work = mkdtempSync(join(tmpdir(), 'kopfgen-bench-tsc-'));
try {
  // 1. One small CRD against nothing.
  const empty = userProject(join(work, 'empty'), REPO, { 'src/operator.ts': 'export {};\n' });
  const one = initProject(work, 'one', REPO);
  const withBuiltin = initProject(work, 'builtin', REPO);
  writeFileSync(join(withBuiltin, 'src/audit.ts'), AUDIT);
  writeFileSync(join(withBuiltin, 'src/operator.ts'), "import './handlers/myresources.js';\nimport './audit.js';\n");
  const small = [
    { label: 'empty project (the yardstick)', dir: empty },
    { label: 'kopfgen init: one small CRD, one handler module', dir: one },
    { label: '+ a handler for a built-in kind (ConfigMap)', dir: withBuiltin },
    ...(base ? [{ label: 'kopfgen init, before', dir: initProject(work, 'before', base) }] : []),
  ];
  const smallRuns = rounds(
    small.map((p) => p.dir),
    TSC_ROUNDS,
  );
  console.log(
    `cold tsc --noEmit, the init project's options, a fresh process each (best of ${TSC_ROUNDS} interleaved; the compiler's own total time; target <= 1.2x the empty project):`,
  );
  small.forEach((p, i) => console.log(row(p.label, smallRuns[i], smallRuns[0])));

  // 2. The corpus's generated modules against openapi-typescript's output of the same CRDs.
  const generatedProject = (name: string, checkout: string) => {
    const project = userProject(join(work, name), checkout);
    execFileSync(
      process.execPath,
      [join(checkout, 'dist/src/cli/main.js'), 'generate', resolve(dir), '--out', 'src/generated', '--no-stubs'],
      { cwd: project, encoding: 'utf8' },
    );
    return project;
  };
  /**
   * What bounds the corpus's figures: the generated type declarations alone, the handler sections
   * (descriptors, handler constants, error classes), the conversion and schema data modules,
   * `index.ts` and the runtime's declarations taken out (`kopfgen/runtime` is then only the types the declarations name). The difference to
   * openapi-typescript's output is the shape of the emitted types (a named interface per object).
   */
  const declarationsOnly = (from: string) => {
    const files: Record<string, string> = {};
    const walk = (rel: string) => {
      for (const name of readdirSync(join(from, rel))) {
        const path = join(rel, name);
        if (statSync(join(from, path)).isDirectory()) walk(path);
        else if (path !== 'src/generated/index.ts' && /(?<!\.conversion|\.schemas)\.ts$/.test(path))
          files[path] = readFileSync(join(from, path), 'utf8')
            .replace(/^export const \w+ = defineResource<[^>]*>\(\{[^]*?\n\}\);\n/gm, '')
            .replace(/^export const \w+ = defineHandler<.*\n/gm, '')
            .replace(/^export class \w+ extends (?:Temporary|Permanent)Error<\w+> \{\}\n/gm, '')
            .replace(
              /^import \{[^}]*\} from "kopfgen\/runtime";\n/m,
              'import { handlerStatus } from "kopfgen/runtime";\n',
            );
      }
    };
    walk('src');
    const stub = join(work, 'runtime-types');
    userProject(stub, REPO, {
      'package.json': '{ "name": "kopfgen", "type": "module", "exports": { "./runtime": "./index.d.ts" } }\n',
      'index.d.ts': `${readFileSync(join(REPO, 'dist/src/runtime/api/kube-types.d.ts'), 'utf8')}\nexport declare const handlerStatus: unique symbol;\n`,
    });
    return userProject(join(work, 'declarations'), stub, files);
  };
  const wrapped: Record<string, string> = {};
  for await (const module of wrapperModules(yamlFiles(resolve(dir)))) wrapped[`src/${module.name}.ts`] = module.text;
  const corpus = [
    { label: 'openapi-typescript output (the yardstick)', dir: userProject(join(work, 'wrapper'), REPO, wrapped) },
    { label: 'kopfgen generated modules', dir: generatedProject('corpus', REPO) },
    { label: '  their type declarations alone (what bounds it)', dir: declarationsOnly(join(work, 'corpus')) },
    ...(base ? [{ label: 'kopfgen generated modules, before', dir: generatedProject('corpus-before', base) }] : []),
  ];
  const corpusRuns = rounds(
    corpus.map((p) => p.dir),
    Math.max(3, Math.ceil(TSC_ROUNDS / 2)),
  );
  console.log(
    `\nthe corpus, the same way (best of ${corpusRuns[0].length}; target <= 1.0x openapi-typescript's time and heap):`,
  );
  corpus.forEach((p, i) => console.log(row(p.label, corpusRuns[i], corpusRuns[0])));
} finally {
  rmSync(work, { recursive: true, force: true });
}

// 3. The handler API's own types, in this process.
const read = await readInputs([dir]);
const result = generate(read.sources, {
  stubs: { dir: 'handlers', templates: readStubTemplates() },
  generatedImportBase: '../generated',
});
const root = mkdtempSync(join(tmpdir(), 'kopfgen-bench-tsc-probes-'));
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
  const baseRuntime =
    process.env.KOPFGEN_BENCH_BASE_RUNTIME ?? (base ? join(base, 'dist/src/runtime/index.d.ts') : undefined);
  const variants: { label: string; roots: string[]; runtime: string }[] = [
    { label: 'generated + stubs', roots: modules, runtime },
    { label: `+ ${probe.resources}×(onField, onUpdate)`, roots: withProbes, runtime },
    ...(baseRuntime
      ? [{ label: `+ probes, runtime at ${baseRuntime}`, roots: withProbes, runtime: resolve(baseRuntime) }]
      : []),
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
    `\nin this process (strict, CPU time; JSDoc parsed, which tsc itself skips) over ${generated.length} generated modules, ${stubs.length} stub files:`,
  );
  variants.forEach((v, i) =>
    console.log(
      `  ${v.label.padEnd(48)} best ${times[i].reduce((a, b) => Math.min(a, b)).toFixed(0)} ms, median ${median(times[i]).toFixed(0)} ms (×${(median(times[i]) / median(times[0])).toFixed(2)} of the first); ${last[i].types} types (×${(last[i].types / last[0].types).toFixed(2)}), ${last[i].instantiations} instantiations (×${(last[i].instantiations / last[0].instantiations).toFixed(2)}); ${last[i].errors} errors`,
    ),
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
