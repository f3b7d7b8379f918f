/**
 * Posts Events as client-go's EventRecorder + EventBroadcaster do: `record()` decides at once (the correlator,
 * event-correlator.ts) and queues the write; one writer works the queue in order, so a count bump is never
 * written before the Event it bumps. A full queue drops new Events (the broadcaster's DropIfChannelFull).
 * Writing an Event is best effort (recordToSink): a failure is logged and counted, never thrown to the caller.
 * A patch answered 404 (the Event expired after the API server's TTL, or was deleted) creates it again with
 * the count so far; a create answered 409 means it is already there.
 */
import { hostname } from 'node:os';
import type { Logger } from '../api/context.js';
import { KubeError, type KubeClient } from '../kube/client.js';
import {
  EventCorrelator,
  type CoreEvent,
  type CorrelatorOptions,
  type EventInput,
  type EventObjectRef,
  type EventStep,
} from './event-correlator.js';
import type { OperatorMetrics } from './metrics.js';
import { messageOf } from '../error-message.js';

export interface EventRecorderOptions {
  client: Pick<KubeClient, 'request'>;
  logger: Logger;
  /** source.component and reportingComponent; default `kopfgen`. */
  component?: string;
  /** source.host and reportingInstance; default the host name (the pod's name in a cluster). */
  host?: string;
  correlation?: CorrelatorOptions;
  metrics?: Pick<OperatorMetrics, 'event'>;
  /** Events decided but not yet written beyond which new ones are dropped (client-go's queue: 1000). */
  maxQueue?: number;
  now?: () => Date;
}

/** The involvedObject of an Event about `body` (a resource as read from the API server). */
export function referenceOf(body: {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; uid: string; resourceVersion?: string };
}): EventObjectRef {
  const { name, namespace, uid, resourceVersion } = body.metadata;
  return { apiVersion: body.apiVersion, kind: body.kind, name, namespace, uid, resourceVersion };
}

const eventsPath = (namespace: string, name?: string) =>
  `/api/v1/namespaces/${encodeURIComponent(namespace)}/events${name ? `/${encodeURIComponent(name)}` : ''}`;

const describeObject = (event: CoreEvent) => {
  const o = event.involvedObject;
  return `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
};

export class EventRecorder {
  private readonly correlator: EventCorrelator;
  private readonly now: () => Date;
  private readonly maxQueue: number;
  private pending = 0;
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly options: EventRecorderOptions) {
    const component = options.component ?? 'kopfgen';
    this.correlator = new EventCorrelator({ component, host: options.host ?? hostname() }, options.correlation);
    this.now = options.now ?? (() => new Date());
    this.maxQueue = options.maxQueue ?? 1000;
  }

  /** Decides now and writes in the background; never throws. */
  record(input: EventInput): void {
    try {
      if (this.pending >= this.maxQueue) {
        this.options.metrics?.event('dropped');
        this.options.logger.debug(`Event dropped, ${this.pending} waiting to be written: ${input.reason}`);
        return;
      }
      const step = this.correlator.decide(input, this.now());
      if (step.kind === 'drop') {
        this.options.metrics?.event('dropped');
        const what = `${step.event.reason} on ${describeObject(step.event)}`;
        this.options.logger.debug(`Event dropped by the spam filter: ${what} (count ${step.event.count})`);
        return;
      }
      this.pending += 1;
      this.tail = this.tail.then(() => this.write(step)).finally(() => (this.pending -= 1));
    } catch (error) {
      this.options.logger.warn(`could not record an Event: ${messageOf(error)}`);
    }
  }

  /**
   * Resolves when every Event recorded so far is written (or has failed): true; or false when `timeoutMs`
   * passes first, so a shutdown waits a bounded time for a slow API server (each write has its own timeout).
   */
  async flush(timeoutMs?: number): Promise<boolean> {
    if (timeoutMs === undefined) return this.tail.then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([this.tail.then(() => true), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async write(step: Exclude<EventStep, { kind: 'drop' }>): Promise<void> {
    const { client, logger, metrics } = this.options;
    const { event } = step;
    try {
      if (step.kind === 'patch') {
        try {
          await client.request('PATCH', eventsPath(event.metadata.namespace, event.metadata.name), {
            body: step.patch,
            contentType: 'application/merge-patch+json',
          });
          metrics?.event('patched');
          return;
        } catch (error) {
          if (!(error instanceof KubeError && error.status === 404)) throw error;
        }
      }
      await client.request('POST', eventsPath(event.metadata.namespace), { body: event });
      metrics?.event('created');
    } catch (error) {
      if (error instanceof KubeError && error.status === 409) return;
      metrics?.event('failed');
      const what = `${event.type} Event ${event.reason} on ${describeObject(event)}`;
      logger.warn(`could not write the ${what}: ${messageOf(error)}`);
    }
  }
}
