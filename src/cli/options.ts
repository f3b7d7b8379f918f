/**
 * Turns command-line flags plus the configuration file into one resolved run. Precedence:
 * flags, then the configuration, then defaults. Handler ids override per kind.
 */
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { GenerateOptions, HandlerCause, HandlerOrigin, Target } from '../api.js';
import { handlerIdProblem, parseHandlerEntry } from '../model/handler-paths.js';
import { COMMAND_LINE } from '../diagnostics.js';
import { CONFIG_FILES, type LoadedConfig } from '../config/load.js';
import { displayPath } from '../io/fs.js';
import { STDIN_FILE, STDIN_INPUT } from '../io/read.js';
import type { ClusterSource } from './from-cluster.js';
import { splitIds } from '../config/config-schema.js';
import { readPyStubTemplates, readStubTemplates } from '../io/stub-templates.js';
import { isPyIdentifier } from '../emit-kopf/py-names.js';

export type OutputFormat = 'text' | 'json';

/** The `generate` command's flags as commander parses them. */
export interface GenerateFlags {
  /** Restricted to the targets by commander's `choices`. */
  target?: Target;
  out?: string;
  /** A directory, `false` from `--no-stubs`, or undefined when neither was given. */
  stubs?: string | false;
  handlers?: string[];
  config?: string;
  check?: boolean;
  watch?: boolean;
  /** Restricted to the two formats by commander's `choices`. */
  format?: OutputFormat;
  quiet?: boolean;
  /** `false` from `--no-cache`. */
  cache?: boolean;
  /** `--from-cluster [context]`: true without a context. */
  fromCluster?: string | true;
  /** `-l, --selector`: CRDs by label, with --from-cluster. */
  selector?: string;
  kubeconfig?: string;
}

export interface ResolvedRun {
  cwd: string;
  /** Inputs as paths relative to `cwd` (or absolute), files, directories or globs. */
  inputs: string[];
  outDir: string;
  stubsDir?: string;
  options: GenerateOptions;
  /** The configuration file, watched by `--watch`. */
  configPath?: string;
  /** The project's directory: the configuration file's, or the working directory without one. */
  projectDir: string;
  /** With `--from-cluster`: the CRDs are read from the cluster, `inputs` is empty. */
  cluster?: ClusterSource;
  check: boolean;
  watch: boolean;
  format: OutputFormat;
  quiet: boolean;
  cache: boolean;
}

export const DEFAULT_OUT = 'generated';
export const DEFAULT_STUBS = 'handlers';

/**
 * A problem with how kopfgen was invoked (exit 2): KG950, or the code of the problem when a
 * flag's value has one (`--handlers Widget=kopf` is KG201 on `<command line>`).
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly code = 'KG950',
    readonly file = 'kopfgen',
  ) {
    super(message);
  }
}

export function resolveRun(cwd: string, args: string[], flags: GenerateFlags, loaded: LoadedConfig): ResolvedRun {
  const config = loaded.config;
  const fromConfig = (p: string): string => inputRelativeTo(cwd, loaded.dir, p);
  const cluster = clusterSource(args, flags);
  const inputs = cluster ? [] : args.length > 0 ? args : (config.inputs ?? []).map(fromConfig);
  if (inputs.length === 0 && !cluster) throw new UsageError(noInputs(cwd, loaded));
  if (flags.watch && inputs.includes(STDIN_INPUT))
    throw new UsageError('--watch cannot watch standard input (-): name the files instead');
  const outDir = flags.out !== undefined ? resolve(cwd, flags.out) : resolve(loaded.dir, config.out ?? DEFAULT_OUT);
  const stubsDir = resolveStubs(cwd, flags.stubs, loaded);
  if (stubsDir !== undefined && (stubsDir === outDir || stubsDir.startsWith(outDir + sep))) {
    throw new UsageError(
      `the stubs directory must not be inside the output directory (${relative(cwd, outDir) || '.'}): generated files there are replaced, stubs are yours`,
    );
  }
  const fromFlags = parseHandlerFlags(flags.handlers ?? []);
  const handlers = { ...(config.handlers ?? {}), ...fromFlags.handlers };
  // Per kind, as the ids: a kind the flag names takes the flag's causes.
  const handlerCauses = { ...(config.handlerCauses ?? {}), ...fromFlags.causes };
  for (const kind of Object.keys(fromFlags.handlers))
    if (fromFlags.causes[kind] === undefined) delete handlerCauses[kind];
  const handlerOrigins = { ...(loaded.handlerOrigins ?? {}), ...fromFlags.origins };
  const target = flags.target ?? config.target ?? 'typescript';
  const kopf = target === 'kopf';
  const options: GenerateOptions = {
    ...(kopf ? { target } : {}),
    handlers,
    ...(Object.keys(handlerCauses).length > 0 ? { handlerCauses } : {}),
    ...(Object.keys(handlerOrigins).length > 0 ? { handlerOrigins } : {}),
    // The templates travel in the options, so the cache key (a hash of the options) changes with them.
    stubs:
      stubsDir === undefined
        ? false
        : {
            dir: relative(outDir, stubsDir).split(sep).join('/'),
            templates: kopf ? readPyStubTemplates() : readStubTemplates(),
          },
    generatedImportBase: stubsDir === undefined || kopf ? undefined : importPath(stubsDir, outDir),
    generatedPackage: stubsDir === undefined || !kopf ? undefined : pythonPackage(cwd, outDir, stubsDir),
  };
  return {
    cwd,
    inputs,
    outDir,
    stubsDir,
    options,
    configPath: loaded.path,
    projectDir: loaded.dir,
    cluster,
    check: flags.check ?? false,
    watch: flags.watch ?? false,
    format: flags.format ?? 'text',
    quiet: flags.quiet ?? false,
    cache: flags.cache ?? true,
  };
}

/** `--from-cluster`: the arguments are CRD names; names or `-l` are required, as with kopium. */
function clusterSource(args: string[], flags: GenerateFlags): ClusterSource | undefined {
  if (flags.fromCluster === undefined) {
    if (flags.selector !== undefined)
      throw new UsageError('-l/--selector selects CRDs in a cluster: add --from-cluster');
    return undefined;
  }
  if (args.length === 0 && flags.selector === undefined) {
    throw new UsageError(
      '--from-cluster reads CRDs by name or label: e.g. `kopfgen generate myresources.example.com --from-cluster` or `--from-cluster -l app=my-operator`',
    );
  }
  if (flags.watch) throw new UsageError('--watch watches files: it cannot be combined with --from-cluster');
  const context = flags.fromCluster === true ? undefined : flags.fromCluster;
  return { context, kubeconfig: flags.kubeconfig, names: args, selector: flags.selector };
}

/** "No inputs", saying where the configuration was looked for (or which one lacks "inputs"). */
function noInputs(cwd: string, loaded: LoadedConfig): string {
  const head =
    'no inputs: pass CRD files, directories or globs (e.g. `kopfgen generate crds/`, or `-` for standard input)';
  if (loaded.path) return `${head}, or set "inputs" in ${displayPath(cwd, loaded.path)}`;
  const searched = loaded.searched ?? [cwd];
  const first = searched[0];
  const last = searched[searched.length - 1];
  const where = searched.length > 1 ? `${first} or any directory above it up to ${last}` : first;
  return `${head}, or set "inputs" in kopfgen.config.json; no configuration (${CONFIG_FILES.join(', ')} or a "kopfgen" key in package.json) found in ${where}`;
}

/** `--stubs <dir>` (relative to cwd) over `stubs` in the config (relative to it) over the default; false is off. */
function resolveStubs(cwd: string, flag: string | false | undefined, loaded: LoadedConfig): string | undefined {
  if (flag === false) return undefined;
  if (flag !== undefined) return resolve(cwd, flag);
  const setting = loaded.config.stubs;
  return setting === false ? undefined : resolve(loaded.dir, setting ?? DEFAULT_STUBS);
}

/**
 * `--handlers MyResource=myapp,cleanup` (repeatable; `Kind=` for none; `id:update+resume` names
 * the causes of an id's stubs); a kind given twice gets the union. An id that cannot be one
 * (KG201, KG202) or an unknown cause (KG210) is a usage error naming the flag.
 */
export function parseHandlerFlags(values: string[]): {
  handlers: Record<string, string[]>;
  causes: Record<string, Record<string, HandlerCause[]>>;
  origins: Record<string, HandlerOrigin>;
} {
  const out: Record<string, string[]> = {};
  const causes: Record<string, Record<string, HandlerCause[]>> = {};
  const origins: Record<string, HandlerOrigin> = {};
  for (const value of values) {
    const eq = value.indexOf('=');
    const kind = eq < 0 ? '' : value.slice(0, eq).trim();
    const entries = eq < 0 ? [] : splitIds(value.slice(eq + 1)).map(parseHandlerEntry);
    const ids = entries.map((e) => e.id);
    // `Kind=` (no ids) says the kind has no handlers, like `[]` in the configuration.
    if (kind === '') {
      throw new UsageError(`--handlers expects Kind=id1,id2 (e.g. --handlers MyResource=myapp), got "${value}"`);
    }
    for (const entry of entries) {
      const problem = entry.problem ?? handlerIdProblem(entry.id);
      if (problem) throw new UsageError(`--handlers ${value}: ${problem.message}`, problem.code, COMMAND_LINE);
      if (entry.causes) (causes[kind] ??= {})[entry.id] = entry.causes;
    }
    out[kind] = [...new Set([...(out[kind] ?? []), ...ids])];
    origins[kind] = { file: COMMAND_LINE, line: 1, col: 1, pointer: '', what: `by --handlers ${value}` };
  }
  return { handlers: out, causes, origins };
}

/** A config-relative input, re-expressed relative to the working directory (globs included). */
function inputRelativeTo(cwd: string, configDir: string, input: string): string {
  if (isAbsolute(input) || configDir === cwd) return input;
  return join(relative(cwd, configDir), input);
}

/**
 * The kopf target's stubs import the generated package by its absolute name: its path from the
 * directory holding both it and the stubs directory, the directory `kopf run` puts on `sys.path`
 * when it loads a handlers file there (`generated`, or `app.generated` for `--out app/generated
 * --stubs kinds`). Each directory on that path must be a Python identifier.
 */
function pythonPackage(cwd: string, outDir: string, stubsDir: string): string {
  let root = stubsDir;
  while (root !== outDir && !outDir.startsWith(root + sep) && dirname(root) !== root) root = dirname(root);
  const segments = relative(root, outDir).split(sep);
  const bad = segments.find((s) => !isPyIdentifier(s));
  if (bad !== undefined) {
    throw new UsageError(
      `--target kopf: the stubs import the generated package as "${segments.join('.')}" (its path from ${relative(cwd, root) || '.'}, which holds both it and the stubs directory), but "${bad}" is not a Python package name; choose an output directory whose path is made of identifiers, e.g. --out generated`,
    );
  }
  return segments.join('.');
}

/** The module specifier from stub files to the generated directory, e.g. `../generated`. */
function importPath(from: string, to: string): string {
  const rel = relative(from, to).split(sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/**
 * The sources whose CRDs the project does not own (GenerateOptions.foreign): every CRD read from a
 * cluster, and files outside the project's directory or below a node_modules directory. Standard
 * input is the user's own (`helm template my-chart | kopfgen generate -`).
 */
export function foreignSources(run: Pick<ResolvedRun, 'cwd' | 'projectDir' | 'cluster'>, files: string[]): string[] {
  if (run.cluster) return [...files];
  return files.filter((file) => {
    if (file === STDIN_FILE) return false;
    const abs = resolve(run.cwd, file);
    return !abs.startsWith(run.projectDir + sep) || abs.split(sep).includes('node_modules');
  });
}
