#!/usr/bin/env node
/**
 * The `kopfgen` command. Thin: parses arguments with commander, then hands over to
 * `generate.ts`, `watch.ts`, `init.ts` and the runtime's `run.ts`.
 *
 * Exit codes: 0 ok (warnings allowed); 1 error diagnostics, or `--check` found out-of-date
 * files; 2 usage: bad arguments or options, or an invalid configuration file; 3 an internal
 * error (a bug in kopfgen). With `--format json` every run, whatever its end, prints one object.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { COMMAND_LINE, type Diagnostic } from '../diagnostics.js';
import type { InitFlags } from './init.js';
import type { ManifestsFlags } from './manifests.js';
import type { RunOptions } from './run.js';
import type { GenerateFlags } from './options.js';
import { jsonReport, type Streams } from './report.js';
import type { Reload } from './watch-mode.js';
import { rangeCountProblem } from '../runtime/shard/ranges.js';

// Each command loads what it uses when it runs (below, in its action): `kopfgen run` starts an operator
// without the generator's modules (yaml, the pipeline, ts-morph's stub merge) in its memory.

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
export { EXIT_INTERNAL } from './report.js';

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

const EXIT_CODES_HELP = `
Exit codes:
  0  success (warnings allowed); --check: everything up to date
  1  error diagnostics (nothing was written), or --check found files out of date
  2  usage: unknown option, bad value, invalid configuration file
  3  internal error (a bug in kopfgen; nothing was written)`;

/**
 * The fix command `--check` suggests: this very invocation without `--check`, and without
 * `--format` (a person runs it; the JSON is for the tool that ran the check).
 */
function fixCommand(argv: string[]): string {
  const quoted = argv
    .filter((a, i) => a !== '--check' && a !== '--format' && argv[i - 1] !== '--format' && !a.startsWith('--format='))
    .map((a) => (/^[\w./=,:@+-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`));
  return ['kopfgen', ...quoted].join(' ');
}

async function generateCommand(
  inputs: string[],
  flags: GenerateFlags,
  argv: string[],
  streams: Streams,
): Promise<number> {
  const { UsageError, resolveRun } = await import('./options.js');
  if (flags.check && flags.watch) throw new UsageError('--check and --watch cannot be combined');
  const [{ loadConfig }, { Reporter }, { runGenerate }, { realPipeline }] = await Promise.all([
    import('../config/load.js'),
    import('./report.js'),
    import('./generate-command.js'),
    import('./pipeline.js'),
  ]);
  const cwd = process.cwd();
  const loaded = await loadConfig(cwd, flags.config);
  const reporter = new Reporter(streams, flags.format ?? 'text', flags.quiet ?? false);
  if (loaded.diagnostics.length > 0) {
    reporter.finish({
      command: flags.check ? 'check' : 'generate',
      exitCode: EXIT_USAGE,
      diagnostics: loaded.diagnostics,
      cache: 'off',
      timeMs: 0,
    });
    return EXIT_USAGE;
  }
  const run = resolveRun(cwd, inputs, flags, loaded);
  // `init` and `--watch` are loaded when used: a one-off generate starts without them (and the manifests).
  if (run.watch)
    return (await import('./watch-mode.js')).watchLoop(run, reloader(cwd, inputs, flags), realPipeline, streams);
  const report = await runGenerate(run, realPipeline, reporter, fixCommand(argv));
  reporter.finish(report);
  return report.exitCode;
}

/** For `--watch`: the same flags over a re-read configuration. */
function reloader(cwd: string, inputs: string[], flags: GenerateFlags): Reload {
  return async () => {
    const [{ loadConfig }, { resolveRun }, { displayPath }] = await Promise.all([
      import('../config/load.js'),
      import('./options.js'),
      import('../io/fs.js'),
    ]);
    const loaded = await loadConfig(cwd, flags.config);
    if (loaded.diagnostics.length > 0) return { diagnostics: loaded.diagnostics };
    try {
      return { run: resolveRun(cwd, inputs, flags, loaded), diagnostics: [] };
    } catch (e) {
      const file = loaded.path ? displayPath(cwd, loaded.path) : 'kopfgen.config.json';
      return {
        diagnostics: [
          { severity: 'error', code: 'KG305', message: (e as Error).message, file, line: 1, col: 1, pointer: '' },
        ],
      };
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
    .argument(
      '[inputs...]',
      'CRD files (.yaml, .yml, .json), directories (recursive), globs, or - for standard input; default: "inputs" from the configuration',
    )
    .addOption(
      new Option(
        '--target <target>',
        'what to generate: typescript (for kopfgen/runtime) or kopf (a Python package for kopf operators) (default: "typescript")',
      ).choices(['typescript', 'kopf']),
    )
    .option('-o, --out <dir>', 'directory of generated files (default: "generated")')
    .option('--stubs <dir>', 'directory of handler stubs, merged into, never overwritten (default: "handlers")')
    .option('--no-stubs', 'do not create or update handler stubs')
    .option(
      '--handlers <Kind=ids>',
      'handler ids for a kind, e.g. MyResource=myapp,cleanup (repeatable; MyResource= for none)',
      collect,
    )
    .option(
      '-c, --config <file>',
      'configuration file (default: kopfgen.config.json/.yaml or "kopfgen" in package.json)',
    )
    .option('--check', 'write nothing; exit 1 and print diffs if any output is missing, stale or extra')
    .option('-w, --watch', 'regenerate whenever a CRD or the configuration changes, until interrupted')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('-q, --quiet', 'print only warnings and errors')
    .option('--no-cache', 'ignore and do not update the content-hash cache in .kopfgen-cache/')
    .option(
      '--from-cluster [context]',
      "read the CRDs installed in a cluster (the kubeconfig's current context, or the one named); the arguments are CRD names",
    )
    .option('-l, --selector <selector>', 'with --from-cluster: the CRDs with these labels, e.g. app=my-operator')
    .option(
      '--kubeconfig <file>',
      'with --from-cluster: kubeconfig file (default: KUBECONFIG, ~/.kube/config, in-cluster)',
    )
    .addHelpText(
      'after',
      `${EXIT_CODES_HELP}\n\nExamples:\n  kopfgen generate crds/ --out src/generated --stubs src/handlers\n  kopfgen generate --check            # in CI, with kopfgen.config.json\n  kopfgen generate --watch\n  kopfgen generate crds/ --handlers MyResource=myapp,cleanup --format json\n  helm template my-chart | kopfgen generate -\n  kopfgen generate myresources.example.com --from-cluster --out src/generated`,
    )
    .action(async (inputs: string[], flags: GenerateFlags) =>
      setExit(await generateCommand(inputs, flags, argv, streams)),
    );
  program
    .command('init')
    .description(
      'scaffold an operator project (package.json, tsconfig, example CRD, generated code, stubs, CI); in an existing one, add what is missing',
    )
    .argument('[dir]', 'target directory, created if missing', '.')
    .addOption(
      new Option(
        '--target <target>',
        'typescript (an operator on kopfgen/runtime) or kopf (a Python operator on kopf) (default: "typescript")',
      ).choices(['typescript', 'kopf']),
    )
    .option('-q, --quiet', 'print only errors')
    .option('-f, --force', 'overwrite files that exist (package.json is merged either way)')
    .action(async (dir: string, flags: InitFlags) => {
      const [{ runInit }, { realPipeline }] = await Promise.all([import('./init.js'), import('./pipeline.js')]);
      setExit(await runInit(dir, streams, flags, realPipeline));
    });
  program
    .command('run')
    .description('run the operator: load a module that registers handlers, watch its resources until SIGTERM/SIGINT')
    .argument(
      '<module>',
      'module that imports your handlers: .js/.mjs/.cjs, or .ts/.mts/.cts through tsx, e.g. src/operator.ts',
    )
    .option('--check', "type-check the module first with the project's TypeScript (tsc); do not start on errors")
    .option('-n, --namespace <ns>', 'watch one namespace (default: all)')
    .option('--concurrency <n>', 'objects handled at once (default: 16)', positiveInt)
    .option('--kubeconfig <file>', 'kubeconfig file (default: KUBECONFIG, ~/.kube/config, in-cluster)')
    .option(
      '--marks-prefix <domain>',
      'prefix of the finalizer and annotations the operator writes, e.g. billing.example.com (default: kopfgen.dev); one per operator sharing a CRD',
    )
    .addOption(
      new Option('--log-level <level>', 'log level').choices(['debug', 'info', 'warn', 'error']).default('info'),
    )
    .addOption(
      new Option('--log-format <format>', 'log lines: text, or one JSON object per line')
        .choices(['text', 'json'])
        .default('text'),
    )
    .option('--leader-election', 'campaign for a Lease; only the leader handles (default: on in a cluster)')
    .option('--no-leader-election', 'handle without a Lease (one replica only)')
    .option('--leader-election-id <name>', 'the Lease name (default: kopfgen- and a hash of the handlers)')
    .option('--leader-election-namespace <ns>', "the Lease's namespace (default: the service account's)")
    .option(
      '--field-manager <name>',
      "field manager of ctx.client's server-side applies (default: --leader-election-id, else kopfgen)",
    )
    .option(
      '--lease-duration <s>',
      'seconds a standby waits before taking over an unrenewed lease (default: 15)',
      positiveInt,
    )
    .option(
      '--renew-deadline <s>',
      'seconds the leader may fail to renew before it stops handling (default: 10)',
      positiveInt,
    )
    .option('--retry-period <s>', 'seconds between lease attempts (default: 2)', positiveInt)
    .option(
      '--shards <k>',
      'share the objects among replicas: K hash ranges of the uid, each held through a Lease (default: off, one leader)',
      shardCount,
    )
    .option(
      '--success-events',
      'post a Normal Event for each handler success too, as kopf does (default: failures only)',
    )
    .option(
      '--cache-sync-timeout <s>',
      'seconds the startup checks and initial lists may take before exit 1 (default: 60)',
      positiveInt,
    )
    .option(
      '--watch-idle-timeout <s>',
      'seconds of silence after which a watch connection is reopened (default: 60)',
      positiveInt,
    )
    .option(
      '--drain-timeout <s>',
      'seconds running handlers may take to finish after SIGTERM before they are abandoned (default: 20)',
      positiveInt,
    )
    .option('--health-port <port>', '/healthz, /readyz and /metrics on this port; 0: off', portNumber, 8080)
    .option('--health-host <host>', 'address the health server listens on (default: all)')
    .option(
      '--webhook-port <port>',
      'HTTPS port of the admission and conversion webhooks, when the module registers any (default: 9443); 0: off',
      portNumber,
    )
    .option('--webhook-host <host>', 'address the webhook server listens on (default: all)')
    .option(
      '--webhook-cert-dir <dir>',
      "serve tls.crt/tls.key from this directory (a mounted Secret, e.g. cert-manager's), re-read on rotation; default: self-signed, the CA kept in a Secret",
    )
    .option(
      '--webhook-service <name>',
      "the Service the API server calls the webhooks through (in the operator's namespace); the operator writes the caBundle for it",
    )
    .option(
      '--webhook-url <url>',
      'development: the URL a local API server calls the webhooks at, e.g. https://127.0.0.1:9443',
    )
    .option('--webhook-name <name>', 'name of the webhook configurations and prefix of the CA Secret')
    .option(
      '--webhook-cleanup',
      'on a clean stop, withdraw the webhooks (but persistent ones) from the configurations the operator wrote (one replica, development)',
    )
    .option(
      '--webhook-client-ca <file>',
      "ask callers for a client certificate verified against this PEM CA; admission callbacks get it as ctx.sslpeer (kopf's cafile)",
    )
    .action(async (module: string, flags: RunFlags) => {
      // Loaded on demand: the Kubernetes client is not needed to generate code.
      const { runOperator } = await import('./run.js');
      const write = (line: string) => void streams.stderr.write(`${line}\n`);
      setExit(await runOperator(module, { ...flags, write, exit: (code) => process.exit(code) }));
    });
  program
    .command('manifests')
    .description("write RBAC (least privilege) and a Deployment for the operator module's resources")
    .argument('<module>', 'the module `kopfgen run` loads (registers the handlers), e.g. dist/operator.js')
    .option('-o, --out <dir>', 'directory of the manifests (default: "deploy")')
    .option('-n, --namespace <ns>', 'watch and grant one namespace (Roles), the operator runs there (default: all)')
    .option('--name <name>', 'name of the ServiceAccount, roles and Deployment (default: from the resources)')
    .option('--image <image>', 'container image (default: <name>:latest)')
    .option('--image-module <path>', "the module's path inside the image (default: <module> relative to here)")
    .option('--health-port <port>', '/healthz and /readyz port (default: 8080)', positiveInt)
    .option('--webhook-port <port>', "the webhook server's port in the pod (default: 9443)", positiveInt)
    .addOption(
      new Option('--webhook-certs <issuer>', 'who issues the webhook certificate (default: cert-manager)').choices([
        'cert-manager',
        'self-signed',
      ]),
    )
    .option(
      '--webhook-url <url>',
      'development: point the webhook configurations at this URL (a local API server), e.g. https://127.0.0.1:9443',
    )
    .option(
      '--replicas <n>',
      'pods of the Deployment; a PodDisruptionBudget when more than 1 (default: 2)',
      positiveInt,
    )
    .option(
      '--shards <k>',
      'the replicas share the objects in K hash ranges (`kopfgen run --shards K`; Leases get `list`)',
      positiveInt,
    )
    .option('--check', 'write nothing; exit 1 and print diffs if any manifest is missing, stale or extra')
    .option('-q, --quiet', 'print only errors')
    .addHelpText(
      'after',
      `${EXIT_CODES_HELP}\n\nExamples:
  kopfgen manifests dist/operator.js --image registry.example.com/my-operator:0.1.0
  kopfgen manifests dist/operator.js -n team-a --check
  kopfgen manifests dist/operator.js --replicas 3 --shards 32`,
    )
    .action(async (module: string, flags: ManifestsFlags) => {
      // Loaded on demand, as `run`: loading the module loads the runtime.
      const { runManifests } = await import('./manifests.js');
      setExit(await runManifests(module, flags, streams, fixCommand(argv)));
    });
  return program;
}

/** The flags of `kopfgen run`: the run options a command line can set (a type-only import: run.js loads on demand). */
type RunFlags = Omit<RunOptions, 'registry' | 'until' | 'write' | 'exit'>;

function portNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('expected a port number (0 turns it off)');
  return n;
}

/** `--shards`: the number of hash ranges (shard/ranges.ts says which counts are allowed). */
function shardCount(value: string): number {
  const problem = rangeCountProblem(Number(value));
  if (problem) throw new InvalidArgumentError(problem);
  return Number(value);
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
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return EXIT_OK;
      return failed(
        argv,
        streams,
        EXIT_USAGE,
        {
          severity: 'error',
          code: 'KG950',
          message: e.message.replace(/^error: /, ''),
          file: 'kopfgen',
          line: 1,
          col: 1,
          pointer: '',
        },
        false,
      );
    }
    const { UsageError } = await import('./options.js');
    if (e instanceof UsageError) {
      return failed(argv, streams, EXIT_USAGE, {
        severity: 'error',
        code: e.code,
        message: e.message,
        file: e.file,
        line: 1,
        col: 1,
        pointer: '',
      });
    }
    const { failureReport } = await import('./generate-command.js');
    const failure = failureReport(e, process.cwd());
    return failed(argv, streams, failure.exitCode, failure.diagnostics[0]);
  }
}

/**
 * A run that ended outside a command's own report: one line on stderr (commander has already
 * printed its own for a usage error: `echo` false) and, with `--format json`, the one JSON object.
 */
function failed(argv: string[], streams: Streams, exitCode: number, diagnostic: Diagnostic, echo = true): number {
  if (echo)
    streams.stderr.write(
      `kopfgen: error: ${diagnostic.code === 'KG950' || diagnostic.file === COMMAND_LINE ? diagnostic.message : `${diagnostic.file}: ${diagnostic.message}`}\n`,
    );
  if (wantsJson(argv)) {
    const command = argv.includes('--check') ? 'check' : argv[0] === 'init' ? 'init' : 'generate';
    streams.stdout.write(
      JSON.stringify(jsonReport({ command, exitCode, diagnostics: [diagnostic], cache: 'off', timeMs: 0 })) + '\n',
    );
  }
  return exitCode;
}

/** `--format json` or `--format=json` anywhere on the command line (commander may have failed before reading it). */
function wantsJson(argv: readonly string[]): boolean {
  return argv.some((a, i) => a === '--format=json' || (a === '--format' && argv[i + 1] === 'json'));
}

function isEntryPoint(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

/** The process around `main`: real streams, the exit code, and a closed pipe that is not a crash. */
export function runCli(): void {
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

if (isEntryPoint()) runCli();
