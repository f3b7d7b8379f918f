/**
 * `kopfgen init [dir]`: an operator project from `templates/init/`, the example CRD copied from
 * kopfgen's own `crds/`, and the generator run in-process so the project starts with its
 * generated code and handler stubs. In an existing project it adds what is missing: the scripts
 * and dependencies are merged into package.json (`init-package.ts`), every other file is written
 * only where absent and each one left alone is named; `--force` overwrites them. Everything is
 * planned first and written atomically, so a failure leaves the directory as it was.
 */
import { existsSync, promises as fs } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from '../diagnostics.js';
import { hasErrors } from '../diagnostics.js';
import { parseConfig } from '../config/load.js';
import { displayPath, listFiles, readIfExists } from '../io/fs.js';
import { writeFilesAtomic } from '../io/write.js';
import { loadFile } from '../pipeline/file-stage.js';
import { crdDescriptors } from '../manifests/crd-resources.js';
import { resolveTarget } from '../manifests/manifest-target.js';
import { renderManifests } from '../manifests/render-manifests.js';
import type { Pipeline } from './generate-command.js';
import { resolveRun } from './options.js';
import { Reporter, type Streams } from './report.js';
import { mergePackageJson } from './init-package.js';
import { scaffoldOf, type Scaffold } from './init-scaffolds.js';
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

export interface InitFlags {
  /** What the project is written in: TypeScript for kopfgen's runtime (default), or Python for kopf. */
  target?: Target;
  quiet?: boolean;
  /** Overwrite existing files (package.json is still merged, the scaffold's values winning). */
  force?: boolean;
}

/** The commands that install the new project's dependencies, run in the project. */
export function installCommands(root: string, built: boolean): string[] {
  if (ON_REGISTRY) return ['npm install'];
  const at = shellQuote(root);
  // Installed by path, kopfgen is used as it is on disk: its exports point into dist/.
  return [...(built ? [] : [`npm --prefix ${at} run build`]), `npm install ${at}`];
}

function shellQuote(s: string): string {
  return /^[\w./=,:@+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export async function runInit(dir: string, streams: Streams, flags: InitFlags, pipeline: Pipeline): Promise<number> {
  const started = performance.now();
  const quiet = flags.quiet ?? false;
  const force = flags.force ?? false;
  const cwd = process.cwd();
  const target = resolve(cwd, dir);
  const reporter = new Reporter(streams, 'text', quiet);
  const fail = (diagnostics: Diagnostic[]): number => {
    reporter.finish({ command: 'init', exitCode: 1, diagnostics, cache: 'off', timeMs: 0 });
    return 1;
  };
  const root = packageRoot();
  const scaffold = scaffoldOf(flags.target);
  const files = await templateFiles(root, target, scaffold);
  const crd = await fs.readFile(join(root, EXAMPLE_CRD), 'utf8');
  files.push({ path: EXAMPLE_CRD, content: crd });

  const generated = await generateInto(target, files, crd, pipeline, scaffold);
  if (hasErrors(generated.diagnostics)) return fail(generated.diagnostics);
  files.push(...generated.files, ...(scaffold.deploy ? deployFiles(crd) : []));

  const writes: NewFile[] = [];
  const skipped: string[] = [];
  const overwritten: string[] = [];
  let merged: ReturnType<typeof mergePackageJson> | undefined;
  for (const f of files) {
    const abs = join(target, f.path);
    const existing = await readIfExists(abs);
    if (existing === undefined) writes.push(f);
    else if (f.path === 'package.json') {
      merged = mergePackageJson(displayPath(cwd, abs), existing, f.content, force);
      if (merged.content !== undefined) writes.push({ path: f.path, content: merged.content });
    } else if (existing === f.content) continue;
    else if (force) {
      writes.push(f);
      overwritten.push(displayPath(cwd, abs));
    } else skipped.push(displayPath(cwd, abs));
  }
  if (merged && hasErrors(merged.diagnostics)) return fail(merged.diagnostics);
  await writeFilesAtomic(writes.map((f) => ({ path: join(target, f.path), content: f.content })));
  if (!quiet) {
    const where = displayPath(cwd, target);
    const created = writes.length - (merged?.content !== undefined ? 1 : 0) - overwritten.length;
    const lines = [`kopfgen: created ${created} files in ${where} (${Math.round(performance.now() - started)} ms)`];
    if (merged) {
      const added = merged.added.length > 0 ? `added ${merged.added.join(', ')}` : 'nothing to add';
      const kept = merged.kept.length > 0 ? `; kept your ${merged.kept.join(', ')}` : '';
      lines.push(`  package.json: ${added}${kept}`);
    }
    for (const path of overwritten) lines.push(`  overwrote ${path} (--force)`);
    for (const path of skipped) lines.push(`  skipped ${path}: it exists (--force overwrites)`);
    const built = existsSync(join(root, 'dist/src/index.js'));
    const install = installCommands(root, built);
    lines.push('next:');
    if (where !== '.') lines.push(`  cd ${shellQuote(where)}`);
    if (!ON_REGISTRY) lines.push('  # kopfgen is not on the npm registry yet: this installs it from this copy');
    lines.push(...install.map((c) => `  ${c}`), ...scaffold.next.map((c) => `  ${c}`));
    streams.stdout.write(`${lines.join('\n')}\n`);
  }
  return 0;
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
    typescriptVersion: ours.devDependencies?.typescript ?? '5.9.3',
    nodeTypesVersion: ours.devDependencies?.['@types/node'] ?? '20',
    pyrightVersion: ours.devDependencies?.pyright ?? '1.1.414',
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
 * (its CI checks that), made from the example CRD because the new project cannot be loaded yet.
 */
function deployFiles(crd: string): NewFile[] {
  const resources = crdDescriptors(loadFile({ file: EXAMPLE_CRD, text: crd }).models.filter((m) => m !== undefined));
  if (resources.length === 0) return [];
  const resolved = resolveTarget(resources, { module: OPERATOR_MODULE, source: OPERATOR_MODULE });
  if (resolved.target === undefined) {
    throw new Error(`the example CRD gives no valid manifests: ${resolved.problems.join('; ')}`);
  }
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

/**
 * Runs the generator on the example CRD with the template's own configuration, so the new
 * project's generated code and stubs are exactly what `npm run generate` would produce there.
 */
async function generateInto(
  target: string,
  files: NewFile[],
  crd: string,
  pipeline: Pipeline,
  scaffold: Scaffold,
): Promise<{ files: NewFile[]; diagnostics: Diagnostic[] }> {
  const configFile = files.find((f) => f.path === 'kopfgen.config.json');
  if (!configFile) throw new Error('templates/init has no kopfgen.config.json');
  const loaded = parseConfig(join(target, configFile.path), configFile.path, configFile.content, false);
  if (loaded.diagnostics.length > 0) return { files: [], diagnostics: loaded.diagnostics };
  const run = resolveRun(target, [], {}, loaded);
  const result = await pipeline.generate([{ file: EXAMPLE_CRD, text: crd }], run.options);
  const out: NewFile[] = [];
  const stubs: string[] = [];
  for (const f of result.files) {
    const root = f.role === 'stub' ? run.stubsDir : run.outDir;
    if (root === undefined) continue;
    const path = relative(target, join(root, f.path)).split(sep).join('/');
    out.push({ path, content: f.content });
    if (f.role === 'stub') stubs.push(path);
  }
  const entry = files.find((f) => f.path === scaffold.entry);
  if (entry) entry.content = entry.content.replace('{{imports}}', scaffold.imports(stubs));
  return { files: out, diagnostics: result.diagnostics };
}
