/**
 * `kopfgen init [dir]`: an operator project from `templates/init/`, the example CRD copied from
 * kopfgen's own `crds/`, and the generator run in-process so the project starts with its
 * generated code and handler stubs. In an existing project it adds what is missing: the scripts
 * and dependencies are merged into package.json (`init-package.ts`), every other file is written
 * only where absent and each one left alone is named; `--force` overwrites them. A configuration
 * the project has (found as `generate` finds it) is used and extended in its own format, never
 * doubled; the generated code and stubs are planned exactly as `generate` plans them, so an output
 * directory `generate` would refuse is refused here, before anything is written. Everything is
 * planned first and written atomically, so a failure leaves the directory as it was.
 */
import { existsSync, promises as fs, realpathSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GeneratedFile, SourceText } from '../api.js';
import type { Diagnostic } from '../diagnostics.js';
import { hasErrors } from '../diagnostics.js';
import { extendConfig, type Extension } from '../config/extend-config.js';
import { loadConfig, parseConfig, type LoadedConfig } from '../config/load.js';
import { fileDiagnostic } from '../io/file-errors.js';
import { MissingTsMorphError, TS_MORPH_VERSION } from '../io/ts-morph-load.js';
import { displayPath, listFiles, readIfExists } from '../io/fs.js';
import { planWrite, writeFilesAtomic } from '../io/write.js';
import { loadFile } from '../pipeline/file-stage.js';
import { crdDescriptors } from '../manifests/crd-resources.js';
import { resolveTarget } from '../manifests/manifest-target.js';
import { renderManifests } from '../manifests/render-manifests.js';
import type { Pipeline } from './generate-command.js';
import { resolveRun } from './options.js';
import { Reporter, type Streams } from './report.js';
import { mergePackageJson } from './init-package.js';
import { scaffoldOf, type Scaffold } from './init-scaffolds.js';
import { importBlock, stubPathsIn } from './entry-imports.js';
import type { Target } from '../api.js';

/** The package root (holding package.json, templates/ and crds/), from dist/src/cli/ or src/cli/. */
export function packageRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return here.includes(`${sep}dist${sep}`) ? resolve(here, '../../..') : resolve(here, '../..');
}

const EXAMPLE_CRD = 'crds/myresource.yaml';

/** Template names that npm would drop or that would be live config in kopfgen's own repo. */
const RENAMES: Record<string, string> = { gitignore: '.gitignore', dockerignore: '.dockerignore', _github: '.github' };

/** The built entry point: what `npm start`, the Dockerfile and the Deployment run. */
const OPERATOR_MODULE = 'dist/operator.js';

interface NewFile {
  path: string;
  content: string;
}

/**
 * kopfgen is not on the npm registry yet, so the scaffold's `"kopfgen": "^0.1.0"` cannot be
 * installed by a plain `npm install` (404): until it is, the next steps install this very copy of
 * kopfgen by path, which also installs the rest of package.json.
 */
const ON_REGISTRY = false;

/**
 * The TypeScript a new project gets: what `npm install typescript` installs today (7.x, the native
 * compiler). kopfgen's own tests type-check the scaffold with the TypeScript kopfgen builds with
 * (test/cli/init.test.ts) and with this one, installed as a newcomer installs it
 * (test/e2e/newcomer.test.ts: typecheck, test, build, `run --check`).
 */
export const SCAFFOLD_TYPESCRIPT = '7.0.2';

export interface InitFlags {
  /** What the project is written in: TypeScript for kopfgen's runtime (default), or Python for kopf. */
  target?: Target;
  quiet?: boolean;
  /** Overwrite existing files (package.json is still merged, the scaffold's values winning). */
  force?: boolean;
}

/**
 * The commands that install the new project's dependencies, run in the project. `root` is this
 * copy of kopfgen; `installed`: it is the project's own `node_modules/kopfgen` (installed from a
 * tarball, a checkout or the registry before init ran), so the package.json already names it and a
 * plain `npm install` adds the rest (installing it again by that path would make npm replace the
 * directory it reads from: ENOENT).
 */
export function installCommands(root: string, built: boolean, installed: boolean): string[] {
  if (ON_REGISTRY || installed) return ['npm install'];
  const at = shellQuote(root);
  // Installed by path, kopfgen is used as it is on disk: its exports point into dist/.
  return [...(built ? [] : [`npm --prefix ${at} run build`]), `npm install ${at}`];
}

/** Whether `root` (this copy of kopfgen) is what `target`'s node_modules/kopfgen resolves to. */
function installedIn(target: string, root: string): boolean {
  try {
    return realpathSync(join(target, 'node_modules', 'kopfgen')) === realpathSync(root);
  } catch {
    return false;
  }
}

function shellQuote(s: string): string {
  return /^[\w./=,:@+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export async function runInit(dir: string, streams: Streams, flags: InitFlags, pipeline: Pipeline): Promise<number> {
  const cwd = process.cwd();
  const target = resolve(cwd, dir);
  const reporter = new Reporter(streams, 'text', flags.quiet ?? false);
  const fail = (diagnostics: Diagnostic[], exitCode = 1): number => {
    reporter.finish({ command: 'init', exitCode, diagnostics, cache: 'off', timeMs: 0 });
    return exitCode;
  };
  // Up front, in init's own words (not --out's): the target must be a directory.
  const info = await fs.stat(target).catch(() => undefined);
  if (info && !info.isDirectory()) {
    const shown = displayPath(cwd, target);
    const message = `${shown} is a file: kopfgen init scaffolds a directory (a new one, or an existing project's); nothing was written`;
    return fail([{ severity: 'error', code: 'KG901', message, file: shown, line: 1, col: 1, pointer: '' }]);
  }
  try {
    return await scaffold(target, cwd, streams, flags, pipeline, fail);
  } catch (e) {
    const d = fileDiagnostic(e, cwd, 'the directory given to kopfgen init');
    if (d) return fail([d]);
    if (e instanceof MissingTsMorphError)
      return fail([{ severity: 'error', code: 'KG904', message: e.message, file: '.', line: 1, col: 1, pointer: '' }]);
    throw e;
  }
}

/** What the run's configuration is, and what init does to it. */
interface InitConfig {
  /** The configuration `generate` will read, as init leaves it. */
  loaded: LoadedConfig;
  /** The configuration file as shown (relative to the working directory). */
  shown: string;
  /** A found configuration: the keys init adds to it (in its own format), and its new text. */
  found?: { path: string; inPackage: boolean; extension: Extension };
  /** The inputs are init's `crds/`: the example CRD goes there (where absent). */
  example: boolean;
}

async function scaffold(
  target: string,
  cwd: string,
  streams: Streams,
  flags: InitFlags,
  pipeline: Pipeline,
  fail: (diagnostics: Diagnostic[], exitCode?: number) => number,
): Promise<number> {
  const started = performance.now();
  const force = flags.force ?? false;
  const root = packageRoot();
  const scaffold = scaffoldOf(flags.target);
  const files = await templateFiles(root, target, scaffold);
  const crd = await fs.readFile(join(root, EXAMPLE_CRD), 'utf8');

  const config = await initConfig(target, cwd, files, flags.target);
  if (config.loaded.diagnostics.length > 0) return fail(config.loaded.diagnostics, 2);
  if (config.example) files.push({ path: EXAMPLE_CRD, content: crd });
  const run = resolveRun(target, [], {}, config.loaded);
  const outside = scaffold.deploy ? outsideSources(target, run.outDir, run.stubsDir) : [];
  if (outside.length > 0) {
    // The scaffold's tsconfig.json compiles src/ (rootDir): code elsewhere would not type-check.
    const message = `your configuration puts ${outside.map((d) => displayPath(cwd, d)).join(' and ')} outside src/, which the scaffold's tsconfig.json compiles; set "out" and "stubs" below src/ (e.g. src/generated, src/handlers), or write your own tsconfig.json first; nothing was written`;
    return fail([
      {
        severity: 'error',
        code: 'KG351',
        message,
        file: config.shown.replace(/ \("kopfgen"\)$/, ''),
        line: 1,
        col: 1,
        pointer: '',
      },
    ]);
  }
  const read = await readSources(run.inputs, target, config.example ? crd : undefined, pipeline);
  if (hasErrors(read.diagnostics)) return fail(read.diagnostics);
  const result = await pipeline.generate(read.sources, run.options);
  if (hasErrors(result.diagnostics)) return fail(result.diagnostics);
  // Planned as `generate` plans: a directory it would refuse (KG322), a user's file in the way
  // (KG310) or a stub file that does not parse (KG324) refuse init up front, before any write.
  const plan = await planWrite(result.files, {
    outDir: run.outDir,
    stubsDir: run.stubsDir,
    cwd,
    manifest: true,
    guard: true,
    target: run.options.target,
    generatedPackage: run.options.generatedPackage,
    outSetting: `"out" in ${config.shown}`,
  });
  if (hasErrors(plan.diagnostics)) return fail(plan.diagnostics);
  fillImports(files, target, scaffold, run.stubsDir, result.files);
  files.push(...handlerTests(target, scaffold, run.stubsDir, result.files));
  if (scaffold.deploy) files.push(...deployFiles(read.sources));

  const writes: { path: string; content: string }[] = [];
  const skipped: string[] = [];
  const overwritten: string[] = [];
  let created = 0;
  let merged: ReturnType<typeof mergePackageJson> | undefined;
  for (const f of files) {
    const abs = join(target, f.path);
    const existing = await readIfExists(abs);
    if (f.path === 'package.json') {
      let content = existing === undefined ? f.content : undefined;
      if (existing !== undefined) {
        merged = mergePackageJson(displayPath(cwd, abs), existing, f.content, force);
        if (hasErrors(merged.diagnostics)) return fail(merged.diagnostics);
        content = merged.content;
      }
      // The configuration in this package.json's "kopfgen" key: its additions join the merge.
      if (config.found?.inPackage && config.found.path === abs && config.found.extension.added.length > 0) {
        const base = content ?? existing ?? f.content;
        content = extendConfig(abs, base, true, additionsOf(config)).text;
      }
      if (content !== undefined) writes.push({ path: abs, content });
      if (existing === undefined) created++;
    } else if (existing === undefined) {
      writes.push({ path: abs, content: f.content });
      created++;
    } else if (existing === f.content) continue;
    else if (force) {
      writes.push({ path: abs, content: f.content });
      overwritten.push(displayPath(cwd, abs));
    } else skipped.push(displayPath(cwd, abs));
  }
  if (config.found && !config.found.inPackage && config.found.extension.added.length > 0)
    writes.push({ path: config.found.path, content: config.found.extension.text });
  const planned = plan.files.filter((f) => f.change === 'create' || f.change === 'update');
  for (const f of planned) {
    writes.push({ path: f.absPath, content: f.after ?? '' });
    if (f.change === 'create' && !f.bookkeeping) created++;
  }
  await writeFilesAtomic(writes);
  for (const f of plan.files) if (f.change === 'remove') await fs.rm(f.absPath, { force: true });

  if (!(flags.quiet ?? false)) {
    const where = displayPath(cwd, target);
    const lines = [`kopfgen: created ${created} files in ${where} (${Math.round(performance.now() - started)} ms)`];
    if (config.found) {
      const added = config.found.extension.added;
      lines.push(
        `  ${config.shown}: ${added.length > 0 ? `added ${added.map((k) => `"${k}"`).join(', ')} to your configuration` : 'your configuration, used as it is'}`,
      );
    }
    if (merged) {
      const added = merged.added.length > 0 ? `added ${merged.added.join(', ')}` : 'nothing to add';
      const kept = merged.kept.length > 0 ? `; kept your ${merged.kept.join(', ')}` : '';
      lines.push(`  package.json: ${added}${kept}`);
    }
    for (const f of planned.filter((p) => p.role === 'stub' && p.change === 'update'))
      lines.push(`  ${f.displayPath}: added ${f.addedStubs.map((s) => s.name).join(', ')}`);
    for (const path of overwritten) lines.push(`  overwrote ${path} (--force)`);
    for (const path of skipped) lines.push(`  skipped ${path}: it exists (--force overwrites)`);
    const built = existsSync(join(root, 'dist/src/index.js'));
    const installed = installedIn(target, root);
    const install = installCommands(root, built, installed);
    lines.push('next:');
    if (where !== '.') lines.push(`  cd ${shellQuote(where)}`);
    if (installed) lines.push('  # kopfgen is installed: this installs the rest of package.json');
    else if (!ON_REGISTRY) lines.push('  # kopfgen is not on the npm registry yet: this installs it from this copy');
    const stubs = run.stubsDir === undefined ? 'your handlers' : `${displayPath(target, run.stubsDir)}/`;
    lines.push(...install.map((c) => `  ${c}`), ...scaffold.next(stubs).map((c) => `  ${c}`));
    streams.stdout.write(`${lines.join('\n')}\n`);
  }
  return 0;
}

/**
 * The configuration `generate` will use from the target (the same lookup, `config/load.ts`):
 * none found, the template's `kopfgen.config.json` is written; one found (a JSON or YAML file, or
 * package.json's "kopfgen" key, here or above up to the repository root) is extended in its own
 * format and the template's is not written (two would be KG303). Its `out` and `stubs` stay: the
 * project's output is where it was. Only `inputs` is added when missing (`crds/`, with the
 * example CRD), since the scaffold's `npm run generate` passes none.
 */
async function initConfig(
  target: string,
  cwd: string,
  files: NewFile[],
  language: Target | undefined,
): Promise<InitConfig> {
  const found = await loadConfig(target);
  const template = files.findIndex((f) => f.path === 'kopfgen.config.json');
  if (template < 0) throw new Error('templates/init has no kopfgen.config.json');
  if (found.path === undefined && found.diagnostics.length === 0) {
    const { content } = files[template];
    const path = join(target, 'kopfgen.config.json');
    const loaded = parseConfig(path, displayPath(cwd, path), content, false);
    return { loaded, shown: displayPath(cwd, path), example: true };
  }
  files.splice(template, 1);
  const shown = found.path === undefined ? 'kopfgen.config.json' : displayPath(cwd, found.path);
  if (found.path === undefined || found.diagnostics.length > 0) return { loaded: found, shown, example: false };
  const inPackage = basename(found.path) === 'package.json';
  if (language !== undefined && found.config.target !== undefined && found.config.target !== language) {
    const message = `${shown} says "target": "${found.config.target}"; kopfgen init --target ${language} would scaffold a project for another one: drop --target, or change "target" first`;
    const diagnostic: Diagnostic = {
      severity: 'error',
      code: 'KG352',
      message,
      file: shown,
      line: 1,
      col: 1,
      pointer: '',
    };
    return { loaded: { ...found, diagnostics: [diagnostic] }, shown, example: false };
  }
  const additions: Record<string, unknown> = {};
  // A kopf project's configuration says so, or `generate` would write TypeScript.
  if (language === 'kopf' && found.config.target === undefined) additions.target = language;
  const example = found.config.inputs === undefined;
  if (example) additions.inputs = [relative(found.dir, join(target, 'crds')).split(sep).join('/') || '.'];
  const text = (await readIfExists(found.path)) ?? '';
  const extension = extendConfig(found.path, text, inPackage, additions);
  const loaded = { ...found, config: { ...found.config, ...additions } };
  return {
    loaded,
    shown: inPackage ? `${shown} ("kopfgen")` : shown,
    found: { path: found.path, inPackage, extension },
    example,
  };
}

/** The output and stubs directories outside `src/`, when the scaffold's tsconfig.json (rootDir `src`) is to be written. */
function outsideSources(target: string, outDir: string, stubsDir: string | undefined): string[] {
  if (existsSync(join(target, 'tsconfig.json'))) return [];
  const src = join(target, 'src') + sep;
  return [outDir, ...(stubsDir === undefined ? [] : [stubsDir])].filter((d) => !(d + sep).startsWith(src));
}

function additionsOf(config: InitConfig): Record<string, unknown> {
  const { inputs, target } = config.loaded.config;
  return { ...(target === 'kopf' ? { target } : {}), inputs };
}

/**
 * The inputs' CRDs as `generate` will read them; `example`: the example CRD, which init is about
 * to write to `crds/myresource.yaml` when absent, is read from the template meanwhile.
 */
async function readSources(
  inputs: string[],
  target: string,
  example: string | undefined,
  pipeline: Pipeline,
): Promise<{ sources: SourceText[]; diagnostics: Diagnostic[] }> {
  if (example === undefined) return pipeline.read(inputs, target);
  const exampleAbs = join(target, EXAMPLE_CRD);
  const onDisk = existsSync(dirname(exampleAbs))
    ? await pipeline.read(inputs, target)
    : { sources: [], diagnostics: [] };
  const shown = relative(target, exampleAbs).split(sep).join('/');
  const sources = onDisk.sources.some((s) => s.file === shown)
    ? onDisk.sources
    : [...onDisk.sources, { file: shown, text: example }];
  // An empty crds/ is no error here: the example is about to be written there.
  return { sources, diagnostics: onDisk.diagnostics.filter((d) => d.code !== 'KG102') };
}

/** The scaffold's entry module imports every stub file, so the handlers register (its marked block, entry-imports.ts). */
function fillImports(
  files: NewFile[],
  target: string,
  scaffold: Scaffold,
  stubsDir: string | undefined,
  generated: GeneratedFile[],
): void {
  const entry = files.find((f) => f.path === scaffold.entry);
  const block = importBlock(scaffold, stubPathsIn(target, stubsDir, generated));
  if (entry) entry.content = entry.content.replace('{{imports}}', block);
}

/** One unit test file per stub file (the scaffold's `testOf`); written only where absent, like every scaffold file. */
function handlerTests(
  target: string,
  scaffold: Scaffold,
  stubsDir: string | undefined,
  generated: GeneratedFile[],
): NewFile[] {
  if (stubsDir === undefined) return [];
  const stubs = relative(target, stubsDir).split(sep).join('/');
  const modules = generated.filter((f) => f.role === 'generated');
  return generated
    .filter((f) => f.role === 'stub')
    .flatMap((stub) => {
      const test = scaffold.testOf(stub, stubs, modules);
      return test ? [{ path: test.path, content: test.content }] : [];
    });
}

/** Every file under the scaffold's templates (templates/init, templates/init-kopf), with `{{name}}`-style placeholders filled in. */
async function templateFiles(root: string, target: string, scaffold: Scaffold): Promise<NewFile[]> {
  const templates = join(root, 'templates', scaffold.templates);
  const ours = JSON.parse(await fs.readFile(join(root, 'package.json'), 'utf8')) as {
    version: string;
    devDependencies?: Record<string, string>;
  };
  const values: Record<string, string> = {
    name: packageName(basename(target)),
    kopfgenVersion: ours.version,
    typescriptVersion: SCAFFOLD_TYPESCRIPT,
    nodeTypesVersion: ours.devDependencies?.['@types/node'] ?? '20',
    pyrightVersion: ours.devDependencies?.pyright ?? '1.1.414',
    // What `kopfgen generate` reads the project's TypeScript with, resolved from the project (a dev dependency).
    tsMorphVersion: ours.devDependencies?.['ts-morph'] ?? TS_MORPH_VERSION,
    // The built-in kinds' schemas the test kit's fake client checks against (testing/builtin-check.ts).
    kubernetesModelsVersion: ours.devDependencies?.['kubernetes-models'] ?? '4.5.1',
  };
  const out: NewFile[] = [];
  for (const abs of (await listFiles(templates)).sort()) {
    const path = relative(templates, abs)
      .split(sep)
      .map((seg) => RENAMES[seg] ?? seg)
      .join('/');
    const text = await fs.readFile(abs, 'utf8');
    out.push({ path, content: text.replace(/\{\{(\w+)\}\}/g, (m, key: string) => values[key] ?? m) });
  }
  return out;
}

/**
 * deploy/: exactly what `kopfgen manifests dist/operator.js` renders once the project is built
 * (its CI checks that), made from the project's CRDs because the new project cannot be loaded yet.
 */
function deployFiles(sources: SourceText[]): NewFile[] {
  const resources = crdDescriptors(
    sources.flatMap((s) => loadFile(s).models.filter((m): m is NonNullable<typeof m> => m !== undefined)),
  );
  if (resources.length === 0) return [];
  const resolved = resolveTarget(resources, { module: OPERATOR_MODULE, source: OPERATOR_MODULE });
  if (resolved.target === undefined) return [];
  return renderManifests(resources, resolved.target).map((f) => ({ path: `deploy/${f.path}`, content: f.content }));
}

/** A valid npm package name from a directory name. */
function packageName(dirName: string): string {
  const name = dirName
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '');
  return name === '' ? 'my-operator' : name;
}
