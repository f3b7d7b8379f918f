/**
 * The operator's Prometheus metrics, on prom-client with a Registry of its own (never the global one), so two
 * operators in one process or one test do not clash. The runtime calls the small typed facade below and never
 * touches prom-client types; `/metrics` (health-server.ts) serves `scrape()`.
 * Names follow controller-runtime's (`controller_runtime_reconcile_total`, `…_reconcile_time_seconds`,
 * `workqueue_depth`, `rest_client_requests_total`, `leader_election_master_status`), prefixed `kopfgen_`.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** controller-runtime's reconcile_time_seconds buckets, thinned: handlers run from milliseconds to minutes. */
const HANDLER_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** client-go's rest_client_request_duration_seconds buckets. */
const API_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

export interface HandlerRun {
  resource: string;
  handler: string;
  cause: string;
  /** The outcome's kind: success, temporary, permanent, ignored (or any other word the runtime uses). */
  outcome: string;
  seconds: number;
}

export interface ApiRequest {
  /** The HTTP method (GET, POST, PATCH, …) or a finer verb (list, watch) if the caller knows it. */
  verb: string;
  /** The HTTP status, or undefined when no answer came (network error, timeout): counted as `<error>`. */
  code: number | undefined;
  seconds: number;
}

/** What happened to one Event the recorder was asked to post (event-recorder.ts). */
export type EventAction = 'created' | 'patched' | 'dropped' | 'failed';

export interface OperatorMetrics {
  /** The registry `/metrics` serves; exposed for the health server and for adding metrics, not for the runtime. */
  readonly registry: Registry;
  handlerRun(run: HandlerRun): void;
  /** A handler's attempt ended in a retry (temporary outcome or a failed write that counts as an attempt). */
  retry(labels: { resource: string; handler: string; cause: string }): void;
  queueDepth(resource: string, depth: number): void;
  /** A watch connection was reopened (dropped, 410 Gone, idle timeout, stall). */
  watchRestart(resource: string): void;
  /** A watch event or bookmark arrived (or the initial list finished): the watch age gauge restarts at 0. */
  watchEvent(resource: string, at?: Date): void;
  apiRequest(request: ApiRequest): void;
  leader(isLeader: boolean): void;
  /** An object loops on its own updates (reconcile/self-updates.ts): counted once per episode. */
  selfUpdateLoop(resource: string): void;
  /**
   * The term ended and this replica stands by: the per-resource queue depths and watch ages are dropped
   * (a standby has neither; a frozen value or a growing age would trip the leader's alerts on it).
   */
  standby(): void;
  event(action: EventAction): void;
  /** The start gate (start-gate.ts) refused to start user code for an object, by reason. */
  startRefused(reason: string): void;
  /** The number of hash ranges this replica holds now (`--shards`; 0 while it holds none). */
  rangesHeld(count: number): void;
  /** A hash range came to this replica (`in`) or left it (`out`: released or lost). */
  handover(direction: 'in' | 'out'): void;
  /** Rotated webhook certificates that did not load since start (each kept the previous pair serving). */
  webhookRotationFailures(count: number): void;
  /** The Prometheus text exposition of every metric in the registry. */
  scrape(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsOptions {
  /** Process metrics (CPU, memory, event loop lag, GC) as prom-client's collectDefaultMetrics; default on. */
  processMetrics?: boolean;
  /** The clock for the watch age gauge; tests pass a fixed one. */
  now?: () => Date;
}

export function createMetrics(options: MetricsOptions = {}): OperatorMetrics {
  const registry = new Registry();
  const now = options.now ?? (() => new Date());
  const registers = [registry];
  const runs = new Counter({
    name: 'kopfgen_handler_runs_total',
    help: 'Handler attempts by resource, handler, cause and outcome.',
    labelNames: ['resource', 'handler', 'cause', 'outcome'] as const,
    registers,
  });
  const durations = new Histogram({
    name: 'kopfgen_handler_duration_seconds',
    help: 'Time a handler attempt took, by resource, handler and cause.',
    labelNames: ['resource', 'handler', 'cause'] as const,
    buckets: HANDLER_BUCKETS,
    registers,
  });
  const retries = new Counter({
    name: 'kopfgen_handler_retries_total',
    help: 'Handler attempts that ended in a retry, by resource, handler and cause.',
    labelNames: ['resource', 'handler', 'cause'] as const,
    registers,
  });
  const depth = new Gauge({
    name: 'kopfgen_queue_depth',
    help: 'Objects waiting to be handled, by resource.',
    labelNames: ['resource'] as const,
    registers,
  });
  const restarts = new Counter({
    name: 'kopfgen_watch_restarts_total',
    help: 'Watch connections reopened, by resource.',
    labelNames: ['resource'] as const,
    registers,
  });
  // The age is computed at scrape time from the last event's time, so a stalled watch shows a growing value.
  const lastEvent = new Map<string, number>();
  const watchAge = new Gauge({
    name: 'kopfgen_watch_age_seconds',
    help: 'Seconds since the last watch event or bookmark, by resource.',
    labelNames: ['resource'] as const,
    registers,
    collect() {
      const at = now().getTime();
      for (const [resource, last] of lastEvent) this.set({ resource }, Math.max(0, (at - last) / 1000));
    },
  });
  const requests = new Counter({
    name: 'kopfgen_api_requests_total',
    help: 'Kubernetes API requests by verb and HTTP status code (<error> when no answer came).',
    labelNames: ['verb', 'code'] as const,
    registers,
  });
  const latency = new Histogram({
    name: 'kopfgen_api_request_duration_seconds',
    help: 'Kubernetes API request latency by verb.',
    labelNames: ['verb'] as const,
    buckets: API_BUCKETS,
    registers,
  });
  const loops = new Counter({
    name: 'kopfgen_self_update_loops_total',
    help: "Objects found looping on their own handlers' edits (their self-caused updates throttled), by resource.",
    labelNames: ['resource'] as const,
    registers,
  });
  const leader = new Gauge({
    name: 'kopfgen_leader',
    help: '1 while this replica holds the leader lease, 0 while it stands by.',
    registers,
  });
  const events = new Counter({
    name: 'kopfgen_events_total',
    help: 'Kubernetes Events by what the recorder did: created, patched (count bumped), dropped, failed.',
    labelNames: ['action'] as const,
    registers,
  });
  const refused = new Counter({
    name: 'kopfgen_starts_refused_total',
    help: 'Starts of user code for an object refused by the start gate (the hold on the lease lapsed), by reason.',
    labelNames: ['reason'] as const,
    registers,
  });
  const rangesHeld = new Gauge({
    name: 'kopfgen_shard_ranges_held',
    help: 'Hash ranges this replica holds (--shards); 0 for a replica holding none.',
    registers,
  });
  const handovers = new Counter({
    name: 'kopfgen_shard_handovers_total',
    help: 'Hash ranges that came to this replica (direction in) or left it (out: released or lost).',
    labelNames: ['direction'] as const,
    registers,
  });
  const rotationFailures = new Gauge({
    name: 'kopfgen_webhook_certificate_rotation_failures',
    help: 'Rotated webhook certificate pairs that did not load since start (the previous pair kept serving).',
    registers,
  });
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });

  return {
    registry,
    handlerRun({ resource, handler, cause, outcome, seconds }) {
      runs.inc({ resource, handler, cause, outcome });
      durations.observe({ resource, handler, cause }, seconds);
    },
    retry(labels) {
      retries.inc(labels);
    },
    queueDepth(resource, value) {
      depth.set({ resource }, value);
    },
    watchRestart(resource) {
      restarts.inc({ resource });
    },
    watchEvent(resource, at = now()) {
      lastEvent.set(resource, at.getTime());
    },
    apiRequest({ verb, code, seconds }) {
      requests.inc({ verb, code: code === undefined ? '<error>' : String(code) });
      latency.observe({ verb }, seconds);
    },
    leader(isLeader) {
      leader.set(isLeader ? 1 : 0);
    },
    selfUpdateLoop(resource) {
      loops.inc({ resource });
    },
    standby() {
      depth.reset();
      lastEvent.clear();
      watchAge.reset();
    },
    event(action) {
      events.inc({ action });
    },
    startRefused(reason) {
      refused.inc({ reason });
    },
    rangesHeld(count) {
      rangesHeld.set(count);
    },
    handover(direction) {
      handovers.inc({ direction });
    },
    webhookRotationFailures(count) {
      rotationFailures.set(count);
    },
    scrape: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

/**
 * Times one API call and counts it: the code is 200 on success, a failed answer's `status` (KubeError), or
 * `<error>` when none came. The runtime wraps `KubeClient.request` calls with it; the error is rethrown as is.
 */
export async function observeRequest<T>(
  metrics: Pick<OperatorMetrics, 'apiRequest'>,
  verb: string,
  call: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const done = (code: number | undefined) =>
    metrics.apiRequest({ verb, code, seconds: (performance.now() - started) / 1000 });
  try {
    const result = await call();
    done(200);
    return result;
  } catch (error) {
    const status = (error as { status?: unknown } | undefined)?.status;
    done(typeof status === 'number' && status > 0 ? status : undefined);
    throw error;
  }
}
