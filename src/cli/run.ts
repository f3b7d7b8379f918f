/**
 * `kopfgen run <module>`: load a module that registers handlers (JavaScript, or TypeScript
 * through tsx), then run the operator until SIGTERM/SIGINT. Returns the process exit code:
 * 0 after a graceful shutdown (running handlers finished, the lease released), 1 when the module,
 * the cluster, a CRD or an access is not usable (one line per problem), when the watches did
 * not list within the cache-sync timeout, or when handlers still running at the drain timeout were
 * abandoned (one line each).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { KubeClient } from '../runtime/kube/client.js';
import { loadModule, type LoadFailure } from './load-module.js';
import { readKubeconfig } from '../runtime/kube/kubeconfig.js';
import { createLogger, type Level } from '../runtime/effects/log.js';
import { DEFAULT_DRAIN_SECONDS, Operator, StartupError, type LeaderElectionOptions } from '../runtime/operator.js';
import { defaultRegistry, type Registry } from '../runtime/api/registry.js';
import { keepYoungGenerationSmall } from '../runtime/heap-settings.js';
import { leaseNamespace } from '../runtime/leader/leader-identity.js';
import type { WebhookEndpoint } from '../runtime/webhooks/configurations.js';
import type { WebhookOptions } from '../runtime/webhooks/serve-webhooks.js';

export interface RunOptions {
  /** Type-check the module with the project's TypeScript first; refuse to start on errors. */
  check?: boolean;
  /** Watch one namespace (default: all). */
  namespace?: string;
  /** Objects handled at once (default 16). */
  concurrency?: number;
  /** A kubeconfig file (default: KUBECONFIG, ~/.kube/config, in-cluster). */
  kubeconfig?: string;
  logLevel?: Level;
  /** Prefix of the finalizer and annotations the operator writes (default `kopfgen.dev`). */
  marksPrefix?: string;
  /** `json`: one JSON object per line (pino); default `text`. */
  logFormat?: 'text' | 'json';
  /** Default: on when running in a cluster (KUBERNETES_SERVICE_HOST), off otherwise. */
  leaderElection?: boolean;
  leaderElectionId?: string;
  /** Field manager of `ctx.client.apply` (default: the Lease name, which `kopfgen manifests` sets to the operator's name; else `kopfgen`). */
  fieldManager?: string;
  leaderElectionNamespace?: string;
  /** Seconds (default 15, 10, 2: controller-runtime's). */
  leaseDuration?: number;
  renewDeadline?: number;
  retryPeriod?: number;
  /**
   * Share the objects among replicas by this many hash ranges, each held through a Lease
   * (OperatorOptions.shards); the leader election flags name the Leases and their timings. Default: off.
   */
  shards?: number;
  /** Seconds the startup checks and the initial lists may take (default 60). */
  cacheSyncTimeout?: number;
  /** A watch connection silent this long is reopened (seconds, default 60). */
  watchIdleTimeout?: number;
  /** Seconds running handlers may take to finish after SIGTERM before they are abandoned (default 20). */
  drainTimeout?: number;
  /** `/healthz`, `/readyz`, `/metrics` on this port; 0 or undefined: no server (the CLI defaults to 8080). */
  healthPort?: number;
  healthHost?: string;
  /** HTTPS port of the admission and conversion webhooks, when any is registered (the CLI defaults to 9443); 0: off. */
  webhookPort?: number;
  webhookHost?: string;
  /** `tls.crt`/`tls.key` (and `ca.crt`) from this directory, re-read on rotation; else self-signed. */
  webhookCertDir?: string;
  /** The Service (in the operator's namespace) the API server calls the webhooks through. */
  webhookService?: string;
  /** The URL the API server calls the webhooks at (development: a local API server), e.g. https://127.0.0.1:9443. */
  webhookUrl?: string;
  /** The webhook configurations' name and the CA Secret's prefix. */
  webhookName?: string;
  /** On a clean stop, withdraw the webhooks (but the persistent ones) from the configurations the operator wrote. */
  webhookCleanup?: boolean;
  /** A PEM file of the CA callers' client certificates are verified against (admission `ctx.sslpeer`). */
  webhookClientCa?: string;
  /** The registry the module registers into (default: the default registry). */
  registry?: Registry;
  /** Resolves when the operator should stop; default: the first SIGTERM or SIGINT. */
  until?: Promise<unknown>;
  /** A Normal Event for each handler success (OperatorOptions.successEvents; kopf posts them). */
  successEvents?: boolean;
  /** Where diagnostics go (default: stderr). */
  write?: (line: string) => void;
  /**
   * Ends the process (the CLI passes process.exit) once the operator has stopped, with the exit code:
   * what the user's module holds (a `setInterval`, a socket) or an abandoned handler attempt must not
   * keep it alive after "stopped" (kopf's `kopf run` returns from `asyncio.run` and the interpreter
   * exits). Without it the exit code is returned.
   */
  exit?: (code: number) => void;
}

function signalled(onSecond: () => void): Promise<string> {
  return new Promise((resolveSignal) => {
    let count = 0;
    const handler = (signal: NodeJS.Signals) => {
      count++;
      if (count === 1) resolveSignal(signal);
      else onSecond(); // a second signal: stop waiting for the running handlers
    };
    process.on('SIGTERM', handler);
    process.on('SIGINT', handler);
  });
}

/**
 * Imports an operator module (load-module.ts: JavaScript, or TypeScript through tsx): importing it
 * registers its handlers. Returns the failure (one line, its position), or undefined when it loaded.
 */
export async function loadOperatorModule(modulePath: string): Promise<LoadFailure | undefined> {
  return loadModule(modulePath);
}

/**
 * `--check`'s static check of declared access (uses-check.ts) over the module's project, through
 * ts-morph's parser where the project has ts-morph; the number of calls reported.
 */
async function checkUses(modulePath: string, write: (line: string) => void): Promise<number> {
  const [{ usesCheck }, { nearestTsconfig }, { tsMorph, MissingTsMorphError }] = await Promise.all([
    import('./uses-check.js'),
    import('./type-check.js'),
    import('../io/ts-morph-load.js'),
  ]);
  let ts;
  try {
    ts = tsMorph().ts;
  } catch (e) {
    if (!(e instanceof MissingTsMorphError)) throw e;
    write(
      'kopfgen run: --check: declared access not checked: the project has no ts-morph (npm install --save-dev ts-morph)',
    );
    return 0;
  }
  const cwd = process.cwd();
  const lines = usesCheck(ts, modulePath, cwd, nearestTsconfig(dirname(resolve(cwd, modulePath))));
  for (const line of lines) write(line);
  return lines.length;
}

export async function runOperator(modulePath: string, options: RunOptions = {}): Promise<number> {
  keepYoungGenerationSmall();
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const level = options.logLevel ?? 'info';
  if (options.check) {
    const { typeCheck } = await import('./type-check.js');
    const checked = await typeCheck(modulePath);
    if (!checked.ok) {
      for (const line of checked.lines) write(line);
      write(`kopfgen run: --check: the type check failed, not starting`);
      return 1;
    }
    if (level === 'debug') write(`kopfgen run: --check: ${checked.what} type-checks`);
    const undeclared = await checkUses(modulePath, write);
    if (undeclared > 0) {
      write(
        `kopfgen run: --check: ${undeclared} client call${undeclared === 1 ? '' : 's'} of a kind no declaration covers, not starting`,
      );
      return 1;
    }
  }
  const failure = await loadOperatorModule(modulePath);
  if (failure !== undefined) {
    // compiler-style, so an editor or CI annotation jumps to the place
    write(failure.line);
    if (level === 'debug' && failure.stack) write(failure.stack);
    return 1;
  }
  const registry = options.registry ?? defaultRegistry;
  // A module with login hooks (kopf's on.login) says itself how to reach the API server: no kubeconfig read.
  const kubeconfig = registry.logins.length > 0 ? undefined : readKubeconfig({ file: options.kubeconfig });
  if (kubeconfig && 'problem' in kubeconfig) {
    write(`kopfgen run: no usable kubeconfig: ${kubeconfig.problem}`);
    return 1;
  }
  let clientCa: string | undefined;
  if (options.webhookClientCa !== undefined) {
    try {
      clientCa = readFileSync(options.webhookClientCa, 'utf8');
    } catch (error) {
      write(`kopfgen run: cannot read --webhook-client-ca ${options.webhookClientCa}: ${(error as Error).message}`);
      return 1;
    }
  }
  const client = kubeconfig ? new KubeClient(kubeconfig.config) : undefined;
  // pino is loaded only for JSON lines; the text logger is the default.
  const logger =
    options.logFormat === 'json'
      ? (await import('../runtime/observe/json-logger.js')).createJsonLogger({
          level,
          destination: options.write ? { write: (line) => write(line.trimEnd()) } : undefined,
        })
      : createLogger({ level, write: options.write });
  const operator = new Operator({
    registry: options.registry ?? defaultRegistry,
    namespace: options.namespace,
    concurrency: options.concurrency,
    client,
    logger,
    leaderElection: leaderElection(options),
    shards: options.shards,
    cacheSyncTimeoutSeconds: options.cacheSyncTimeout,
    watchIdleSeconds: options.watchIdleTimeout,
    drainTimeoutSeconds: options.drainTimeout,
    successEvents: options.successEvents,
    fieldManager: options.fieldManager ?? options.leaderElectionId,
    health: options.healthPort ? { port: options.healthPort, host: options.healthHost } : undefined,
    webhooks: webhookOptions(options, options.registry ?? defaultRegistry, clientCa),
  });
  try {
    await operator.start();
  } catch (error) {
    client?.close();
    // One line per problem, each naming the command.
    const message = error instanceof StartupError ? error.message : String((error as Error).stack);
    for (const line of message.split('\n')) write(`kopfgen run: ${line}`);
    return 1;
  }
  const ended = await Promise.race([
    (options.until ?? signalled(() => process.exit(130))).then((reason) => ({ reason })),
    operator.failed.then((error) => ({ error })),
  ]);
  if ('error' in ended) {
    write(`kopfgen run: ${ended.error.message}`);
    await operator.stop();
    return exiting(options, 1);
  }
  logger.info(
    `stopping (${String(ended.reason)}): waiting for running handlers to finish and their patches to be written`,
  );
  await operator.stop();
  if (operator.abandoned > 0) {
    // each abandoned attempt has had its line (operator.ts); what they still hold must not keep the process
    const seconds = options.drainTimeout ?? DEFAULT_DRAIN_SECONDS;
    write(
      `kopfgen run: stopped with ${operator.abandoned} handler attempt(s) abandoned after the drain timeout of ${seconds} s`,
    );
    return exiting(options, 1);
  }
  logger.info('stopped');
  return exiting(options, 0);
}

/** The exit code, after ending the process when the caller asked for that (`RunOptions.exit`). */
function exiting(options: RunOptions, code: number): number {
  options.exit?.(code);
  return code;
}

/** The webhook flags as the operator's option: served when the module registered admission callbacks or conversions. */
export function webhookOptions(options: RunOptions, registry: Registry, clientCa?: string): WebhookOptions | undefined {
  const port = options.webhookPort ?? 9443;
  if (port === 0 || (registry.webhooks.length === 0 && registry.conversions.size === 0)) return undefined;
  const namespace = leaseNamespace(options.leaderElectionNamespace);
  const endpoint: WebhookEndpoint | undefined = options.webhookUrl
    ? { url: options.webhookUrl }
    : options.webhookService
      ? { service: { name: options.webhookService, namespace } }
      : undefined;
  return {
    port,
    host: options.webhookHost,
    certificates: options.webhookCertDir ? { dir: options.webhookCertDir } : { selfSigned: true },
    endpoint,
    name: options.webhookName,
    cleanup: options.webhookCleanup,
    ...(clientCa === undefined ? {} : { clientCa }),
  };
}

/** The flags as the operator's option: on when asked, or by default when running in a cluster. */
function leaderElection(options: RunOptions): LeaderElectionOptions | false {
  const seconds = (value: number | undefined) => (value === undefined ? undefined : value * 1000);
  // sharing ranges is through Leases: --shards takes the Leases' names and timings from these flags
  const on = options.shards !== undefined || (options.leaderElection ?? Boolean(process.env.KUBERNETES_SERVICE_HOST));
  if (!on) return false;
  return {
    id: options.leaderElectionId,
    namespace: options.leaderElectionNamespace,
    leaseDurationMs: seconds(options.leaseDuration),
    renewDeadlineMs: seconds(options.renewDeadline),
    retryPeriodMs: seconds(options.retryPeriod),
  };
}
