/**
 * List then watch one resource, for ever, as an explicit state machine (kube-rs `watcher`):
 * `transition(state, input)` is pure, takes what the last request came to and returns the
 * next state, the steps for the store and, maybe, a line to log; `watchResource` performs the
 * request each state asks for and feeds the answer back.
 *
 *   Listing  --page (more)-->  Listing           --page (last)-->  Watching(rv)   + listed(uids)
 *   Watching --event-->        Watching(rv')     --ended-->        Watching(rv)
 *   Watching --410 Gone-->     Listing           --other failure--> Backoff -> Watching(rv)
 *   Listing  --failure-->      Backoff -> Listing (from the first page)
 *
 * Guarantees: every object the server holds is delivered (as `apply`) after each (re)list,
 * followed by `listed` with the uids that exist, so the consumer learns what vanished while
 * no watch ran; a watch resumes from the last resourceVersion seen (events or bookmarks), so
 * no change is skipped; nothing here dedupes: the store drops states it already knows.
 * Liveness: watches ask for bookmarks and end on the server's side before the idle limit; a
 * connection silent past the idle limit (open, no byte: a dead path) fails like a dropped one
 * and resumes; the reporter tells the probes and metrics what was seen when.
 */
import type { Logger } from './api/context.js';
import type { ResourceDescriptor } from './api/define.js';
import type { KubernetesObject } from './api/kube-types.js';
import { isKubernetesObject, isPlainObject } from './json.js';
import { KubeError, resourcePath, type KubeClient } from './kube/client.js';
import { messageOf } from './error-message.js';

/** What the store receives (kube-rs `watcher::Event`). */
export type WatcherStep =
  | { kind: 'apply'; object: KubernetesObject; event?: 'ADDED' | 'MODIFIED' }
  | { kind: 'delete'; object: KubernetesObject }
  /** After each (re)list: the uids that exist now; any other known object is gone. */
  | { kind: 'listed'; uids: Set<string> };

export interface WatchConsumer {
  /** An object as listed (no `event`) or as a watch event delivered it (ADDED/MODIFIED). */
  upsert(body: KubernetesObject, event?: 'ADDED' | 'MODIFIED'): void;
  delete(body: KubernetesObject): void;
  listed(uids: Set<string>): void;
}

export type WatcherState =
  /** `unpaginated`: one whole list, after a continue token expired (client-go's pager FullListIfExpired). */
  | { phase: 'listing'; continueToken?: string; uids: Set<string>; failures: number; unpaginated?: boolean }
  | { phase: 'watching'; resourceVersion: string; failures: number }
  | { phase: 'backoff'; delayMs: number; then: ListingState | WatchingState };

type ListingState = Extract<WatcherState, { phase: 'listing' }>;
type WatchingState = Extract<WatcherState, { phase: 'watching' }>;

export interface ListPage {
  items: KubernetesObject[];
  continueToken?: string;
  resourceVersion: string;
}

export type WatcherInput =
  | { kind: 'page'; page: ListPage }
  | { kind: 'event'; event: unknown }
  /** The server ended the watch cleanly (its timeout). */
  | { kind: 'ended' }
  | { kind: 'failed'; error: unknown }
  | { kind: 'waited' };

export interface Transition {
  state: WatcherState;
  steps: WatcherStep[];
  note?: { level: 'info' | 'warn'; message: string };
}

/** The identity stamped on listed items, which lack apiVersion/kind (handlers and Events want them). */
export interface WatchedKind {
  apiVersion: string;
  kind: string;
  /** For notes only. */
  path: string;
}

export const initialState = (failures = 0): ListingState => ({ phase: 'listing', uids: new Set(), failures });

const LIST_BACKOFF_MAX_MS = 30_000;
const WATCH_BACKOFF_MAX_MS = 10_000;

function listPage(state: ListingState, page: ListPage, watched: WatchedKind): Transition {
  const steps: WatcherStep[] = [];
  const uids = new Set(state.uids); // a copy per page: the state passed in stays as it was
  for (const item of page.items) {
    uids.add(String(item.metadata?.uid));
    steps.push({ kind: 'apply', object: { apiVersion: watched.apiVersion, kind: watched.kind, ...item } });
  }
  if (page.continueToken) return { state: { ...state, continueToken: page.continueToken, uids }, steps };
  steps.push({ kind: 'listed', uids });
  return { state: { phase: 'watching', resourceVersion: page.resourceVersion, failures: 0 }, steps };
}

/** One line of the watch stream: ADDED/MODIFIED/DELETED/BOOKMARK move the resourceVersion on; ERROR ends it. */
function watchEvent(state: WatchingState, event: unknown, watched: WatchedKind): Transition {
  const type = isPlainObject(event) ? event.type : undefined;
  const object = isPlainObject(event) ? event.object : undefined;
  if (type === 'ERROR') {
    const status = isPlainObject(object) ? object : {};
    if (status.code === 410) {
      return { state: initialState(state.failures), steps: [], note: gone(watched) };
    }
    return watchFailed(state, new Error(`watch error event: ${JSON.stringify(object)}`), watched);
  }
  if (!isKubernetesObject(object)) return { state, steps: [] };
  const rv = object.metadata?.resourceVersion;
  const next = rv ? { ...state, resourceVersion: rv } : state;
  if (type === 'ADDED' || type === 'MODIFIED') return { state: next, steps: [{ kind: 'apply', object, event: type }] };
  if (type === 'DELETED') return { state: next, steps: [{ kind: 'delete', object }] };
  return { state: next, steps: [] }; // BOOKMARK: only the resourceVersion matters
}

function gone(watched: WatchedKind): Transition['note'] {
  return { level: 'info', message: `watch of ${watched.path}: 410 Gone, relisting` };
}

function watchFailed(state: WatchingState, error: unknown, watched: WatchedKind): Transition {
  if (error instanceof KubeError && error.status === 410) {
    return { state: initialState(state.failures), steps: [], note: gone(watched) };
  }
  const failures = state.failures + 1;
  const delayMs = Math.min(WATCH_BACKOFF_MAX_MS, 100 * 2 ** failures);
  const note =
    `watch of ${watched.path} dropped, resuming from resourceVersion ${state.resourceVersion}: ` + messageOf(error);
  const then = { ...state, failures };
  return { state: { phase: 'backoff', delayMs, then }, steps: [], note: { level: 'warn', message: note } };
}

/** The pure step of the machine; an input a state does not expect leaves it unchanged. */
export function transition(state: WatcherState, input: WatcherInput, watched: WatchedKind): Transition {
  switch (state.phase) {
    case 'listing':
      if (input.kind === 'page') return listPage(state, input.page, watched);
      if (
        input.kind === 'failed' &&
        state.continueToken &&
        input.error instanceof KubeError &&
        input.error.status === 410
      ) {
        // The continue token expired (etcd compacted past the list's revision): paging again from page 1
        // could expire again under the same load, so, as client-go's pager, one unpaginated list, at once.
        const note = `listing ${watched.path}: the continue token expired (410), listing again in one request`;
        const next = { ...initialState(state.failures), unpaginated: true };
        return { state: next, steps: [], note: { level: 'info', message: note } };
      }
      if (input.kind === 'failed') {
        const failures = state.failures + 1;
        const delayMs = Math.min(LIST_BACKOFF_MAX_MS, 250 * 2 ** failures);
        const note = `listing ${watched.path} failed, retrying: ${messageOf(input.error)}`;
        const then = initialState(failures);
        return { state: { phase: 'backoff', delayMs, then }, steps: [], note: { level: 'warn', message: note } };
      }
      return { state, steps: [] };
    case 'watching':
      if (input.kind === 'event') return watchEvent(state, input.event, watched);
      // A clean end (the server's timeout): watch again from where we are.
      if (input.kind === 'ended') return { state: { ...state, failures: 0 }, steps: [] };
      if (input.kind === 'failed') return watchFailed(state, input.error, watched);
      return { state, steps: [] };
    case 'backoff':
      return input.kind === 'waited' ? { state: state.then, steps: [] } : { state, steps: [] };
  }
}

/** What the watch loop tells the operator's probes and metrics (side effects only, never decisions). */
export interface WatchReporter {
  /** Something arrived: a list page, an event, a bookmark, or a watch request answered 200. */
  seen(): void;
  /** The (re)list finished: the consumer knows every object. */
  listed(): void;
  /** A watch connection ended other than cleanly (dropped, idle, 410) and is reopened. */
  restarted(): void;
}

export interface WatchOptions {
  namespace?: string;
  pageSize?: number;
  /**
   * Server-side watch timeout; the watch is simply reopened after it. Default: a random 50-75 % of
   * `idleSeconds` (client-go picks a random 5-10 min), so a healthy quiet watch ends cleanly before
   * the idle limit and replicas do not reconnect in step.
   */
  timeoutSeconds?: number;
  /**
   * A watch connection that brings nothing (no event, no bookmark, no end) for this long is taken as
   * dead, destroyed, and the watch resumes from the last resourceVersion (default 60).
   */
  idleSeconds?: number;
  signal: AbortSignal;
  logger: Logger;
  reporter?: WatchReporter;
  /**
   * KEP-5866's `shardSelector` (shard/ranges.ts), sent with every list and watch request: a 1.36+ server
   * with the feature sends only the objects of those hash ranges; any other ignores it and sends all, so
   * the consumer filters as well (shard/range-filter.ts), told by `listMetadata` whether it was honoured.
   */
  shardSelector?: () => string | undefined;
  /** Each list page's `metadata` (its `shardInfo` says whether the shard selector was applied). */
  listMetadata?: (metadata: Record<string, unknown>) => void;
}

export const DEFAULT_IDLE_SECONDS = 60;

/** The server-side timeout of one watch request (see WatchOptions.timeoutSeconds). */
export function watchTimeoutSeconds(idleSeconds: number, random: () => number = Math.random): number {
  return Math.max(1, Math.floor(idleSeconds * (0.5 + 0.25 * random())));
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** Ends a watch stream from inside its line callback once the machine has left `watching`. */
class LeftWatching extends Error {}

function deliver(consumer: WatchConsumer, steps: WatcherStep[]): void {
  for (const step of steps) {
    if (step.kind === 'apply') consumer.upsert(step.object, step.event);
    else if (step.kind === 'delete') consumer.delete(step.object);
    else consumer.listed(step.uids);
  }
}

async function fetchPage(
  client: KubeClient,
  path: string,
  state: ListingState,
  options: WatchOptions,
): Promise<WatcherInput> {
  try {
    const query = {
      limit: state.unpaginated ? undefined : (options.pageSize ?? 500),
      continue: state.continueToken,
      shardSelector: options.shardSelector?.(),
    };
    const page: unknown = await client.request('GET', path, { query, timeoutMs: 60_000 });
    const meta = isPlainObject(page) && isPlainObject(page.metadata) ? page.metadata : {};
    options.listMetadata?.(meta);
    const items = isPlainObject(page) && Array.isArray(page.items) ? page.items.filter(isKubernetesObject) : [];
    const continueToken = typeof meta.continue === 'string' && meta.continue ? meta.continue : undefined;
    return { kind: 'page', page: { items, continueToken, resourceVersion: String(meta.resourceVersion ?? '') } };
  } catch (error) {
    return { kind: 'failed', error };
  }
}

/** Runs until `options.signal` aborts. */
export async function watchResource(
  client: KubeClient,
  resource: ResourceDescriptor,
  consumer: WatchConsumer,
  options: WatchOptions,
): Promise<void> {
  const { signal, logger } = options;
  const path = resourcePath(resource, options.namespace);
  const watched: WatchedKind = { apiVersion: `${resource.group}/${resource.version}`, kind: resource.kind, path };
  const idleSeconds = options.idleSeconds ?? DEFAULT_IDLE_SECONDS;
  const reporter = options.reporter;
  let state: WatcherState = initialState();
  const feed = (input: WatcherInput): void => {
    const before = state.phase;
    const next = transition(state, input, watched);
    state = next.state;
    if (next.note) logger[next.note.level](next.note.message);
    deliver(consumer, next.steps);
    if (input.kind === 'page' || input.kind === 'event') reporter?.seen();
    if (next.steps.some((step) => step.kind === 'listed')) reporter?.listed();
    if (before === 'watching' && state.phase !== 'watching') reporter?.restarted();
  };
  /** Performs the request the state asks for and feeds its answer back. */
  const perform = async (current: WatcherState): Promise<void> => {
    if (current.phase === 'listing') {
      const input = await fetchPage(client, path, current, options);
      if (!signal.aborted) feed(input);
    } else if (current.phase === 'backoff') {
      await sleep(current.delayMs, signal);
      feed({ kind: 'waited' });
    } else {
      const timeoutSeconds = options.timeoutSeconds ?? watchTimeoutSeconds(idleSeconds);
      const query = {
        watch: 1,
        resourceVersion: current.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds,
        shardSelector: options.shardSelector?.(),
      };
      const onLine = (event: unknown) => {
        feed({ kind: 'event', event });
        if (state.phase !== 'watching') throw new LeftWatching();
      };
      try {
        const idleMs = Math.max(idleSeconds, timeoutSeconds + 5) * 1000;
        await client.stream(path, query, onLine, signal, idleMs, () => reporter?.seen());
        feed({ kind: 'ended' });
      } catch (error) {
        if (!signal.aborted && !(error instanceof LeftWatching)) feed({ kind: 'failed', error });
      }
    }
  };
  while (!signal.aborted) await perform(state);
}
