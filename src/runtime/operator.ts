/**
 * The operator: checks that the cluster answers and serves every registered resource, then
 * lists and watches each one and hands its objects to a ResourceWorker. `stop()` ends the
 * watches, lets every running handler finish and its patch be written, then resolves.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from './context.js';
import type { ResourceDescriptor } from './define.js';
import { describe, KubeClient, KubeError } from './kube.js';
import { createLogger } from './log.js';
import { defaultRegistry, type Registry } from './registry.js';
import { watchResource } from './watch.js';
import { ResourceWorker, Slots } from './worker.js';

export interface OperatorOptions {
  registry?: Registry;
  /** Watch one namespace only (default: all namespaces). */
  namespace?: string;
  /** Objects processed at once, across resources (default 16). */
  concurrency?: number;
  client?: KubeClient;
  logger?: Logger;
  /** Server-side watch timeout in seconds (default 300); the watch reopens after it. */
  watchTimeoutSeconds?: number;
}

/** The cluster or a resource is not reachable: the operator cannot start. */
export class StartupError extends Error {}

export class Operator {
  private client?: KubeClient;
  readonly logger: Logger;
  private readonly registry: Registry;
  private readonly abort = new AbortController();
  private readonly slots: Slots;
  private readonly workers: ResourceWorker[] = [];
  private watches: Promise<void>[] = [];

  constructor(private readonly options: OperatorOptions = {}) {
    this.registry = options.registry ?? defaultRegistry;
    this.client = options.client;
    this.logger = options.logger ?? createLogger();
    this.slots = new Slots(options.concurrency ?? 16);
    setMaxListeners(0, this.abort.signal); // one listener per running handler, by design
  }

  /** Verifies the cluster and resources, then starts watching; resolves once the watches run. */
  async start(): Promise<void> {
    const resources = this.registry.resources();
    if (resources.length === 0) throw new StartupError('no handlers are registered: the module registered nothing with defineHandler(...)');
    const client = (this.client ??= await KubeClient.fromDefault());
    await this.checkCluster(client);
    for (const resource of resources) await this.checkResource(client, resource);
    for (const resource of resources) {
      const env = { client, resource, logger: this.logger, signal: this.abort.signal, now: () => new Date() };
      const worker = new ResourceWorker(env, this.registry.handlersFor(resource), this.slots);
      this.workers.push(worker);
      const watching = watchResource(client, resource, worker, {
        namespace: this.options.namespace, signal: this.abort.signal, logger: this.logger, timeoutSeconds: this.options.watchTimeoutSeconds,
      });
      this.watches.push(watching);
      this.logger.info(`watching ${describe(resource)}${this.options.namespace ? ` in namespace ${this.options.namespace}` : ' in all namespaces'}`);
    }
  }

  private async checkCluster(client: KubeClient): Promise<void> {
    try {
      await client.request('GET', '/version', { timeoutMs: 10_000 });
    } catch (error) {
      throw new StartupError(`cannot reach the Kubernetes API at ${client.server.origin}: ${(error as Error).message}`);
    }
  }

  private async checkResource(client: KubeClient, resource: ResourceDescriptor): Promise<void> {
    const path = `/apis/${resource.group}/${resource.version}`;
    let served: { resources?: { name: string }[] } | undefined;
    try {
      served = await client.request(`GET`, path, { timeoutMs: 10_000 });
    } catch (error) {
      if (!(error instanceof KubeError && error.status === 404)) throw new StartupError(`cannot read ${path}: ${(error as Error).message}`);
    }
    if (!served?.resources?.some((r) => r.name === resource.plural)) {
      throw new StartupError(
        `the cluster does not serve ${describe(resource)} (kind ${resource.kind}): is the CRD ${resource.plural}.${resource.group} installed with version ${resource.version}?`,
      );
    }
  }

  /** Objects currently known, per resource (for tests and the benchmark). */
  known(): number {
    return this.workers.reduce((sum, worker) => sum + worker.objects.size, 0);
  }

  /** Stops watching and waits until running handlers have finished and their patches are written. */
  async stop(): Promise<void> {
    for (const worker of this.workers) worker.stop();
    this.abort.abort();
    await Promise.allSettled(this.watches);
    await this.slots.drained();
    this.client?.close();
  }
}
