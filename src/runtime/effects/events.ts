/** Kubernetes Events about an object's handlers (type Warning), best effort: a failure to post is only logged. */
import { hostname } from 'node:os';
import type { KubernetesObject } from '../api/kube-types.js';
import type { ResourceEnv } from '../env.js';
import type { Outcome } from '../reconcile/outcome.js';
import { objectRef } from './log.js';

/** Whether an outcome deserves an Event: failures, except an attempt cut short by the shutdown. */
export function eventWorthy(outcome: Outcome): boolean {
  return (outcome.kind === 'temporary' && !outcome.interrupted) || outcome.kind === 'permanent';
}

/** A Warning Event naming the handler and why it failed. */
export async function postEvent(env: ResourceEnv, body: KubernetesObject, id: string, outcome: Outcome): Promise<void> {
  const meta = body.metadata ?? {};
  const namespace = meta.namespace ?? 'default';
  const time = env.now().toISOString();
  const retry = outcome.kind === 'temporary' ? `, retry in ${outcome.delay}s` : '';
  const how = outcome.kind === 'permanent' ? 'permanently' : 'temporarily';
  const event = {
    apiVersion: 'v1', kind: 'Event',
    metadata: { generateName: `${meta.name}.`, namespace },
    involvedObject: {
      apiVersion: body.apiVersion, kind: body.kind, name: meta.name, namespace: meta.namespace, uid: meta.uid,
      resourceVersion: meta.resourceVersion,
    },
    type: 'Warning',
    reason: `${id}Failed`.slice(0, 128),
    message: `Handler ${id} failed ${how}: ${outcome.message}${retry}`.slice(0, 1024),
    source: { component: 'kopfgen', host: hostname() },
    reportingComponent: 'kopfgen', reportingInstance: hostname(),
    firstTimestamp: time, lastTimestamp: time, count: 1,
  };
  try {
    await env.client.request('POST', `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, { body: event });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    env.logger.warn(`could not post the Event for handler ${id} on ${objectRef(body)}: ${why}`);
  }
}
