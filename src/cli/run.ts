/**
 * `kopfgen run <module>`: load a module that registers handlers (JavaScript, or TypeScript
 * through tsx), then run the operator until SIGTERM/SIGINT. Returns the process exit code:
 * 0 after a graceful shutdown, 1 when the module, the cluster or a CRD is not usable.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../runtime/kube/client.js';
import { createLogger, type Level } from '../runtime/effects/log.js';
import { Operator, StartupError } from '../runtime/operator.js';
import { defaultRegistry, type Registry } from '../runtime/api/registry.js';

export interface RunOptions {
  /** Watch one namespace (default: all). */
  namespace?: string;
  /** Objects handled at once (default 16). */
  concurrency?: number;
  /** A kubeconfig file (default: KUBECONFIG, ~/.kube/config, in-cluster). */
  kubeconfig?: string;
  logLevel?: Level;
  /** Prefix of the finalizer and annotations the operator writes (default `kopfgen.dev`). */
  marksPrefix?: string;
  /** The registry the module registers into (default: the default registry). */
  registry?: Registry;
  /** Resolves when the operator should stop; default: the first SIGTERM or SIGINT. */
  until?: Promise<unknown>;
  /** Where diagnostics go (default: stderr). */
  write?: (line: string) => void;
}

const TS = /\.[cm]?tsx?$/;

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
 * Imports an operator module (JavaScript, or TypeScript through tsx): importing it registers its
 * handlers. Returns the problem as one line, or undefined when the module loaded.
 */
export async function loadOperatorModule(modulePath: string): Promise<string | undefined> {
  const file = resolve(modulePath);
  if (!existsSync(file)) return `${modulePath}: no such file`;
  try {
    if (TS.test(file)) {
      const { register } = await import('tsx/esm/api');
      register();
    }
    await import(pathToFileURL(file).href);
  } catch (error) {
    return `cannot load ${modulePath}: ${(error as Error).stack ?? String(error)}`;
  }
  return undefined;
}

export async function runOperator(modulePath: string, options: RunOptions = {}): Promise<number> {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const problem = await loadOperatorModule(modulePath);
  if (problem !== undefined) {
    write(`kopfgen run: ${problem}`);
    return 1;
  }
  let client: KubeClient;
  try {
    const config = new KubeConfig();
    if (options.kubeconfig) config.loadFromFile(options.kubeconfig);
    else config.loadFromDefault();
    client = new KubeClient(config);
  } catch (error) {
    write(`kopfgen run: no usable kubeconfig: ${(error as Error).message}`);
    return 1;
  }
  const logger = createLogger({ level: options.logLevel ?? 'info', write: options.write });
  const operator = new Operator({ registry: options.registry ?? defaultRegistry, namespace: options.namespace, concurrency: options.concurrency, client, logger, marks: { prefix: options.marksPrefix } });
  try {
    await operator.start();
  } catch (error) {
    client.close();
    write(`kopfgen run: ${error instanceof StartupError ? error.message : (error as Error).stack}`);
    return 1;
  }
  const reason = await (options.until ?? signalled(() => process.exit(130)));
  logger.info(`stopping (${String(reason)}): waiting for running handlers to finish and their patches to be written`);
  await operator.stop();
  logger.info('stopped');
  return 0;
}
