#!/usr/bin/env node
/**
 * The `kopfgen` command. Thin: parses arguments with commander, then hands over to
 * `generate.ts`, `watch.ts`, `init.ts` and the runtime's `run.ts`.
 *
 * Exit codes: 0 ok (warnings allowed); 1 error diagnostics, or `--check` found out-of-date
 * files; 2 usage: bad arguments or options, or an invalid configuration file.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../config/load.js';
import { runGenerate } from './generate-command.js';
import { runInit } from './init.js';
import type { ManifestsFlags } from './manifests.js';
import { resolveRun, UsageError, type GenerateFlags } from './options.js';
import { realPipeline } from './pipeline.js';
import { Reporter, type Streams } from './report.js';
import { watchLoop, type Reload } from './watch-mode.js';
import { displayPath } from '../io/fs.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

const EXIT_CODES_HELP = `
Exit codes:
  0  success (warnings allowed); --check: everything up to date
  1  error diagnostics (nothing was written), or --check found files out of date
  2  usage: unknown option, bad value, invalid configuration file`;

/** The fix command `--check` suggests: this very invocation without `--check`. */
function fixCommand(argv: string[]): string {
  const quoted = argv.filter((a) => a !== '--check').map((a) => (/^[\w./=,:@+-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`));
  return ['kopfgen', ...quoted].join(' ');
}

async function generateCommand(inputs: string[], flags: GenerateFlags, argv: string[], streams: Streams): Promise<number> {
  if (flags.check && flags.watch) throw new UsageError('--check and --watch cannot be combined');
  const cwd = process.cwd();
  const loaded = await loadConfig(cwd, flags.config);
  const reporter = new Reporter(streams, flags.format ?? 'text', flags.quiet ?? false);
  if (loaded.diagnostics.length > 0) {
    reporter.finish({ command: flags.check ? 'check' : 'generate', exitCode: EXIT_USAGE, diagnostics: loaded.diagnostics, cache: 'off', timeMs: 0 });
    return EXIT_USAGE;
  }
  const run = resolveRun(cwd, inputs, flags, loaded);
  if (run.watch) return watchLoop(run, reloader(cwd, inputs, flags), realPipeline, streams);
  const report = await runGenerate(run, realPipeline, reporter, fixCommand(argv));
  reporter.finish(report);
  return report.exitCode;
}

/** For `--watch`: the same flags over a re-read configuration. */
function reloader(cwd: string, inputs: string[], flags: GenerateFlags): Reload {
  return async () => {
    const loaded = await loadConfig(cwd, flags.config);
    if (loaded.diagnostics.length > 0) return { diagnostics: loaded.diagnostics };
    try {
      return { run: resolveRun(cwd, inputs, flags, loaded), diagnostics: [] };
    } catch (e) {
      const file = loaded.path ? displayPath(cwd, loaded.path) : 'kopfgen.config.json';
      return { diagnostics: [{ severity: 'error', code: 'KG305', message: (e as Error).message, file, line: 1, col: 1, pointer: '' }] };
    }
  };
}

export function buildProgram(argv: string[], streams: Streams, setExit: (code: number) => void): Command {
  const program = new Command('kopfgen')
    .description('Typed Kubernetes operators in TypeScript, from the CRD down.')
    .version(VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => streams.stdout.write(s), writeErr: (s) => streams.stderr.write(s) })
    .showHelpAfterError('(run `kopfgen help` for usage)')
    .addHelpText('after', EXIT_CODES_HELP);
  program
    .command('generate')
    .description('generate TypeScript types, typed handler errors and handler stubs from CRDs')
    .argument('[inputs...]', 'CRD files, directories (recursive) or globs; default: "inputs" from the configuration')
    .option('-o, --out <dir>', 'directory of generated files (default: "generated")')
    .option('--stubs <dir>', 'directory of handler stubs, merged into, never overwritten (default: "handlers")')
    .option('--no-stubs', 'do not create or update handler stubs')
    .option('--handlers <Kind=ids>', 'handler ids for a kind, e.g. MyResource=myapp,cleanup (repeatable; MyResource= for none)', collect)
    .option('-c, --config <file>', 'configuration file (default: kopfgen.config.json/.yaml or "kopfgen" in package.json)')
    .option('--check', 'write nothing; exit 1 and print diffs if any output is missing, stale or extra')
    .option('-w, --watch', 'regenerate whenever a CRD or the configuration changes, until interrupted')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('-q, --quiet', 'print only warnings and errors')
    .option('--no-cache', 'ignore and do not update the content-hash cache in .kopfgen-cache/')
    .addHelpText('after', `${EXIT_CODES_HELP}\n\nExamples:\n  kopfgen generate crds/ --out src/generated --stubs src/handlers\n  kopfgen generate --check            # in CI, with kopfgen.config.json\n  kopfgen generate --watch\n  kopfgen generate crds/ --handlers MyResource=myapp,cleanup --format json`)
    .action(async (inputs: string[], flags: GenerateFlags) => setExit(await generateCommand(inputs, flags, argv, streams)));
  program
    .command('init')
    .description('scaffold a new operator project (package.json, tsconfig, example CRD, generated code, stubs, CI)')
    .argument('[dir]', 'target directory, created if missing', '.')
    .option('-q, --quiet', 'print only errors')
    .action(async (dir: string, flags: { quiet?: boolean }) => setExit(await runInit(dir, streams, flags.quiet ?? false, realPipeline)));
  program
    .command('run')
    .description('run the operator: load a module that registers handlers, watch its resources until SIGTERM/SIGINT')
    .argument('<module>', 'JavaScript module (or TypeScript, through tsx) that imports your handlers, e.g. dist/operator.js')
    .option('-n, --namespace <ns>', 'watch one namespace (default: all)')
    .option('--concurrency <n>', 'objects handled at once (default: 16)', positiveInt)
    .option('--kubeconfig <file>', 'kubeconfig file (default: KUBECONFIG, ~/.kube/config, in-cluster)')
    .addOption(new Option('--log-level <level>', 'log level').choices(['debug', 'info', 'warn', 'error']).default('info'))
    .addOption(new Option('--log-format <format>', 'log lines: text, or one JSON object per line').choices(['text', 'json']).default('text'))
    .option('--leader-election', 'campaign for a Lease; only the leader handles (default: on in a cluster)')
    .option('--no-leader-election', 'handle without a Lease (one replica only)')
    .option('--leader-election-id <name>', 'the Lease name (default: kopfgen- and a hash of the handlers)')
    .option('--leader-election-namespace <ns>', "the Lease's namespace (default: the service account's)")
    .option('--lease-duration <s>', 'seconds a standby waits before taking over an unrenewed lease (default: 15)', positiveInt)
    .option('--renew-deadline <s>', 'seconds the leader may fail to renew before it stops handling (default: 10)', positiveInt)
    .option('--retry-period <s>', 'seconds between lease attempts (default: 2)', positiveInt)
    .option('--cache-sync-timeout <s>', 'seconds the startup checks and initial lists may take before exit 1 (default: 60)', positiveInt)
    .option('--watch-idle-timeout <s>', 'seconds of silence after which a watch connection is reopened (default: 60)', positiveInt)
    .option('--health-port <port>', '/healthz, /readyz and /metrics on this port; 0: off', portNumber, 8080)
    .option('--health-host <host>', 'address the health server listens on (default: all)')
    .action(async (module: string, flags: RunFlags) => {
      // Loaded on demand: the Kubernetes client is not needed to generate code.
      const { runOperator } = await import('./run.js');
      setExit(await runOperator(module, { ...flags, write: (line) => streams.stderr.write(`${line}\n`) }));
    });
  program
    .command('manifests')
    .description('write RBAC (least privilege) and a Deployment for the operator module\'s resources')
    .argument('<module>', 'the module `kopfgen run` loads (registers the handlers), e.g. dist/operator.js')
    .option('-o, --out <dir>', 'directory of the manifests (default: "deploy")')
    .option('-n, --namespace <ns>', 'watch and grant one namespace (Roles), the operator runs there (default: all)')
    .option('--name <name>', 'name of the ServiceAccount, roles and Deployment (default: from the resources)')
    .option('--image <image>', 'container image (default: <name>:latest)')
    .option('--image-module <path>', 'the module\'s path inside the image (default: <module> relative to here)')
    .option('--health-port <port>', '/healthz and /readyz port (default: 8080)', positiveInt)
    .option('--check', 'write nothing; exit 1 and print diffs if any manifest is missing, stale or extra')
    .option('-q, --quiet', 'print only errors')
    .addHelpText('after', `${EXIT_CODES_HELP}\n\nExamples:
  kopfgen manifests dist/operator.js --image registry.example.com/my-operator:0.1.0
  kopfgen manifests dist/operator.js -n team-a --check`)
    .action(async (module: string, flags: ManifestsFlags) => {
      // Loaded on demand, as `run`: loading the module loads the runtime.
      const { runManifests } = await import('./manifests.js');
      setExit(await runManifests(module, flags, streams, fixCommand(argv)));
    });
  return program;
}

interface RunFlags {
  namespace?: string;
  concurrency?: number;
  kubeconfig?: string;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  logFormat?: 'text' | 'json';
  leaderElection?: boolean;
  leaderElectionId?: string;
  leaderElectionNamespace?: string;
  leaseDuration?: number;
  renewDeadline?: number;
  retryPeriod?: number;
  cacheSyncTimeout?: number;
  watchIdleTimeout?: number;
  healthPort?: number;
  healthHost?: string;
}

function portNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number (0 turns it off)');
  return n;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

/** Kept in step with package.json by a test (reading package.json at start-up would cost a file read). */
export const VERSION = '0.1.0';

export async function main(argv: string[], streams: Streams): Promise<number> {
  let exitCode = EXIT_OK;
  const program = buildProgram(argv, streams, (code) => (exitCode = code));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? EXIT_OK : EXIT_USAGE;
    }
    if (e instanceof UsageError) {
      streams.stderr.write(`kopfgen: error: ${e.message}\n`);
      return EXIT_USAGE;
    }
    streams.stderr.write(`kopfgen: error: ${e instanceof Error ? (process.env.KOPFGEN_DEBUG ? e.stack : e.message) : String(e)}\n`);
    return EXIT_FAILED;
  }
}

function isEntryPoint(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  // `kopfgen generate --check | head` must not crash when the reader goes away.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw e;
    });
  }
  main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
    (code) => (process.exitCode = code),
  );
}
