/**
 * The operator: checks that the cluster answers and serves every registered resource, then
 * lists and watches each one and hands its objects to a Controller (store, queue, reconciler).
 * `stop()` ends the watches, lets every running handler finish and its patch be written, then
 * resolves.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from './api/context.js';
import { defaultRegistry, type Registry } from './api/registry.js';
import { Controller } from './controller.js';
import { createLogger } from './effects/log.js';
import { describe, KubeClient } from './kube/client.js';
import { checkCluster, checkResource, StartupError } from './kube/discovery.js';
import { DEFAULT_BACKOFF, type BackoffSettings } from './error-policy.js';
import { EventRecorder } from './observe/event-recorder.js';
import { Slots } from './queue.js';
import { resolveMarks, type MarksOptions } from './reconcile/marks.js';
import { watchResource } from './watcher.js';

export { StartupError };

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
  /** The finalizer and annotation keys the operator writes (kopf's settings.persistence); default `kopfgen.dev/…`. */
  marks?: MarksOptions;
  /** Per-object backoff after a failure (default 1 s doubling to 610 s). */
  backoff?: Partial<BackoffSettings>;
}

export class Operator {
  private client?: KubeClient;
  readonly logger: Logger;
  private readonly registry: Registry;
  private readonly abort = new AbortController();
  private readonly slots: Slots;
  private readonly controllers: Controller[] = [];
  private watches: Promise<void>[] = [];
  private events?: EventRecorder;

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
    const marks = resolveMarks(this.options.marks);
    if (typeof marks === 'string') throw new StartupError(marks);
    const client = (this.client ??= await KubeClient.fromDefault());
    const events = (this.events ??= new EventRecorder({ client, logger: this.logger }));
    const backoff = { ...DEFAULT_BACKOFF, ...this.options.backoff };
    await checkCluster(client);
    for (const resource of resources) await checkResource(client, resource);
    for (const resource of resources) {
      const env = { client, resource, logger: this.logger, signal: this.abort.signal, now: () => new Date(), marks, events, backoff };
      const controller = new Controller(env, this.registry.handlersFor(resource), this.slots);
      this.controllers.push(controller);
      const watching = watchResource(client, resource, controller, {
        namespace: this.options.namespace, signal: this.abort.signal, logger: this.logger, timeoutSeconds: this.options.watchTimeoutSeconds,
      });
      this.watches.push(watching);
      this.logger.info(`watching ${describe(resource)}${this.options.namespace ? ` in namespace ${this.options.namespace}` : ' in all namespaces'}`);
    }
  }

  /** Objects currently known, per resource (for tests and the benchmark). */
  known(): number {
    return this.controllers.reduce((sum, controller) => sum + controller.store.size, 0);
  }

  /** Stops watching and waits until running handlers have finished and their patches are written. */
  async stop(): Promise<void> {
    for (const controller of this.controllers) controller.stop();
    this.abort.abort();
    await Promise.allSettled(this.watches);
    await this.slots.drained();
    await this.events?.flush(5000); // Events recorded by the last handlers, a bounded wait
    this.client?.close();
  }
}
