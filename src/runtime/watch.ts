/**
 * List then watch one resource, for ever: a watch that ends or drops resumes from the last
 * resourceVersion seen; `410 Gone` (as an HTTP status or an ERROR event) relists. Relisting
 * hands every object to the consumer again; the consumer drops what it has already seen (by
 * resourceVersion), so nothing is handled twice, and learns which objects vanished meanwhile.
 */
import type { ResourceDescriptor } from './define.js';
import { KubeError, resourcePath, type KubeClient } from './kube.js';
import type { Logger } from './context.js';

export interface WatchConsumer {
  /** An object as listed or as a watch event delivered it (ADDED/MODIFIED). */
  upsert(body: Record<string, unknown>): void;
  delete(body: Record<string, unknown>): void;
  /** After each (re)list: the uids that exist now; any other known object is gone. */
  listed(uids: Set<string>): void;
}

export interface WatchOptions {
  namespace?: string;
  pageSize?: number;
  /** Server-side watch timeout; the watch is simply reopened after it. */
  timeoutSeconds?: number;
  signal: AbortSignal;
  logger: Logger;
}

class Gone extends Error {}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
  });

async function list(client: KubeClient, resource: ResourceDescriptor, consumer: WatchConsumer, options: WatchOptions): Promise<string> {
  const uids = new Set<string>();
  let token: string | undefined;
  let rv = '';
  do {
    const page = await client.request<{ items: Record<string, unknown>[]; metadata: { resourceVersion: string; continue?: string } }>(
      'GET', resourcePath(resource, options.namespace), { query: { limit: options.pageSize ?? 500, continue: token }, timeoutMs: 60_000 });
    for (const item of page.items) {
      // List items lack apiVersion/kind; the handlers and Events want them.
      const body = { apiVersion: `${resource.group}/${resource.version}`, kind: resource.kind, ...item };
      uids.add(String((item.metadata as { uid?: string })?.uid));
      consumer.upsert(body);
    }
    token = page.metadata.continue || undefined;
    rv = page.metadata.resourceVersion;
  } while (token && !options.signal.aborted);
  consumer.listed(uids);
  return rv;
}

function onEvent(event: unknown, consumer: WatchConsumer, state: { rv: string }): void {
  const { type, object } = event as { type: string; object: Record<string, unknown> };
  if (type === 'ERROR') {
    const code = (object as { code?: number }).code;
    if (code === 410) throw new Gone(String((object as { message?: string }).message ?? 'Gone'));
    throw new Error(`watch error event: ${JSON.stringify(object)}`);
  }
  const rv = (object.metadata as { resourceVersion?: string } | undefined)?.resourceVersion;
  if (rv) state.rv = rv;
  if (type === 'ADDED' || type === 'MODIFIED') consumer.upsert(object);
  else if (type === 'DELETED') consumer.delete(object);
  // BOOKMARK: only the resourceVersion matters
}

/** Runs until `options.signal` aborts. */
export async function watchResource(client: KubeClient, resource: ResourceDescriptor, consumer: WatchConsumer, options: WatchOptions): Promise<void> {
  const { signal, logger } = options;
  const path = resourcePath(resource, options.namespace);
  let failures = 0;
  while (!signal.aborted) {
    const state = { rv: '' };
    try {
      state.rv = await list(client, resource, consumer, options);
      failures = 0;
    } catch (error) {
      if (signal.aborted) return;
      failures++;
      logger.warn(`listing ${path} failed, retrying: ${(error as Error).message}`);
      await sleep(Math.min(30_000, 250 * 2 ** failures), signal);
      continue;
    }
    while (!signal.aborted) {
      try {
        const query = { watch: 1, resourceVersion: state.rv, allowWatchBookmarks: true, timeoutSeconds: options.timeoutSeconds ?? 300 };
        await client.stream(path, query, (event) => onEvent(event, consumer, state), signal, ((options.timeoutSeconds ?? 300) + 60) * 1000);
        failures = 0; // a clean end (server timeout): watch again from where we are
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof Gone || (error instanceof KubeError && error.status === 410)) {
          logger.info(`watch of ${path}: 410 Gone, relisting`);
          break;
        }
        failures++;
        logger.warn(`watch of ${path} dropped, resuming from resourceVersion ${state.rv}: ${(error as Error).message}`);
        await sleep(Math.min(10_000, 100 * 2 ** failures), signal);
      }
    }
  }
}
