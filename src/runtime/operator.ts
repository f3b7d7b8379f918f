/**
 * The operator: checks what it needs of the cluster (startup-checks.ts: discovery, the CRDs, a first list,
 * access; bounded, one line per problem), then either leads at once or campaigns for a Lease
 * (controller-runtime's manager with LeaderElection): only the leader watches and handles. Each leadership is
 * a fresh term: new stores, queues and watches, started in onStartedLeading and stopped when its signal
 * aborts; the term writes through a fenced client, so once the lease is lost no write leaves the process
 * while handlers still running are told through their `signal`. `stop()` ends the term, lets running
 * handlers finish and their patches be written, then releases the lease.
 * Health: `/healthz` fails while a watch is silent past the stall limit, `/readyz` while a leader's watches
 * have not listed, `/metrics` serves the metrics facade (observe/).
 */
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Logger } from './api/context.js';
import type { Memo } from './api/memo.js';
import { Memos } from './memos.js';
import type { ResourceDescriptor } from './api/define.js';
import { defaultRegistry, type HookRetries, type Registry, type RegisteredProbe } from './api/registry.js';
import { Controller } from './controller.js';
import { createLogger, fieldsLogger } from './effects/log.js';
import type { ResourceEnv } from './env.js';
import { describe, KubeClient } from './kube/client.js';
import { TermFence } from './kube/fence.js';
import { loginClusterConfig } from './kube/login-credentials.js';
import { digestKey } from './kube/digest-key.js';
import { Attempts, describeAttempt, type AttemptInfo } from './attempts.js';
import { decodeJournal, encodeJournal, GUARDED_MS, type CrashGuard } from './crash-journal.js';
import { readinessMode, sensitiveFields } from './api/registry.js';
import { applyLimits, classify, type Outcome } from './reconcile/outcome.js';
import type { Secrecy } from './reconcile/essence.js';
import { StartupError } from './kube/discovery.js';
import { DEFAULT_CACHE_SYNC_SECONDS, startupChecks } from './kube/startup-checks.js';
import { DEFAULT_BACKOFF, type BackoffSettings } from './error-policy.js';
import { LeaderElector, type Takeover } from './leader/leader-elector.js';
import { defaultIdentity, leaseNamespace } from './leader/leader-identity.js';
import { DEFAULT_TIMINGS, type LeaderTimings } from './leader/lease-decision.js';
import { EventRecorder } from './observe/event-recorder.js';
import { startHealthServer, type HealthServer } from './observe/health-server.js';
import { createMetrics, type OperatorMetrics } from './observe/metrics.js';
import { DEFAULT_STALL_SECONDS, liveness, readiness, type Role, type WatchState } from './observe/probes.js';
import { Slots } from './queue.js';
import { AdaptiveLimit } from './adaptive-limit.js';
import { DEFAULT_MARKS, resolveMarks, type Marks, type MarksOptions } from './reconcile/marks.js';
import { watchResource, type WatchConsumer, type WatchOptions, type WatchReporter } from './watcher.js';
import { messageOf } from './error-message.js';
import { AccessTable } from './api/access.js';
import { clientSlot } from './api/operator-client.js';
import { DEFAULT_FIELD_MANAGER, TypedClient } from './effects/typed-client.js';
import { SecondaryWatch } from './secondary-watch.js';
import { startGate, type Hold } from './start-gate.js';
import { RangeFilter, ownKey } from './shard/range-filter.js';
import { RangeRouter } from './shard/range-router.js';
import { rangeCountProblem, shardSelector } from './shard/ranges.js';
import { ShardMember } from './shard/shard-member.js';
import type { WebhookOptions } from './webhooks/serve-webhooks.js';
import type { WebhookServer } from './webhooks/webhook-server.js';

export { StartupError };

export interface LeaderElectionOptions extends Partial<LeaderTimings> {
  /** The Lease's name (default: `kopfgen-` and a hash of the resources and handler ids). */
  id?: string;
  /** The Lease's namespace (default: the service account's, POD_NAMESPACE, `default`). */
  namespace?: string;
  /** This candidate (default: the pod name and a random suffix). */
  identity?: string;
}

export interface HealthOptions {
  /** 0 picks a free port (read it from `operator.health`). */
  port: number;
  host?: string;
  /** A watch silent this long fails `/healthz` (default DEFAULT_STALL_SECONDS). */
  stallSeconds?: number;
  /**
   * With webhooks, the probes are served from a worker thread: an event loop held this long (a
   * callback that spins the CPU) fails `/healthz` and `/readyz`; held less, they answer within 0.5 s
   * (default DEFAULT_LOOP_TOLERANCE_SECONDS, 30).
   */
  loopToleranceSeconds?: number;
}

export interface OperatorOptions {
  registry?: Registry;
  /** Watch one namespace only (default: all namespaces). */
  namespace?: string;
  /**
   * Objects processed at once, across resources, not counting handlers that run long. Default: adaptive,
   * from 16 between 4 and 48, growing while objects wait and writes go through, shrinking on 429s, 5xx
   * and latency far above its average or above a second (adaptive-limit.ts). A number fixes it.
   */
  concurrency?: number;
  client?: KubeClient;
  logger?: Logger;
  /** Server-side watch timeout in seconds (default: random, below the idle limit); the watch reopens after it. */
  watchTimeoutSeconds?: number;
  /** The finalizer and annotation keys the operator writes (kopf's settings.persistence); default `kopfgen.dev/…`. */
  marks?: MarksOptions;
  /** Per-object backoff after a failure (default 1 s doubling to 610 s). */
  backoff?: Partial<BackoffSettings>;
  /** A watch connection silent this long is reopened from the last resourceVersion (default 60). */
  watchIdleSeconds?: number;
  /**
   * Lease leader election: true/options on, false off. Default: on when running in a cluster
   * (KUBERNETES_SERVICE_HOST is set, as for in-cluster config), off otherwise.
   */
  leaderElection?: boolean | LeaderElectionOptions;
  /**
   * Share the objects among replicas (ARCHITECTURE.md, "Scaling out"): K hash ranges of `metadata.uid`, each
   * held through a Lease, instead of one leader for all (default: off). The Leases take `leaderElection`'s
   * namespace, identity and timings, and its id as their names' prefix; sharding holds Leases even when
   * `leaderElection` is false.
   */
  shards?: number;
  /** Bound on the startup checks and on a term's initial lists, in seconds (default 60); past it the operator fails. */
  cacheSyncTimeoutSeconds?: number;
  /** `/healthz`, `/readyz`, `/metrics` (default: no server). */
  health?: HealthOptions;
  /** Default: a registry of its own. */
  metrics?: OperatorMetrics;
  /**
   * The HTTPS server for admission callbacks (`onValidate`, `onMutate`) and conversions, served by every
   * replica (default: none; `kopfgen run` serves it on 9443 when any is registered).
   */
  webhooks?: WebhookOptions;
  /**
   * How long a term's running handlers may take to finish once it ends (a stop, a lost lease), in
   * seconds (default 20, below the 30 s terminationGracePeriodSeconds of the Deployment `kopfgen
   * manifests` writes). Past it the attempts still running are abandoned, one error line each, their
   * writes refused, and the stop goes on (the lease is released).
   */
  drainTimeoutSeconds?: number;
  /**
   * The field manager of the typed client's server-side applies (`ctx.client.apply`): the operator's
   * name, so the fields it applies are its own in managedFields (default `kopfgen`).
   */
  fieldManager?: string;
  /**
   * The key sensitive fields (a Secret's data) are digested with in the last-handled state (at least 32
   * bytes). Default: read from, or made in, the Secret `kopfgen-digest-key` of the operator's namespace
   * (the Lease's), when any handled resource has sensitive fields.
   */
  digestKey?: Uint8Array;
  /**
   * The operator's clock (default: the wall clock), as every decision reads it (a retry's delay, a
   * handler's timeout, a timer's schedule). For tests (`kopfgen/testing`'s `startOperator`): moving it
   * forward makes a delayed retry due at the object's next event instead of after the real delay.
   */
  now?: () => Date;
  /**
   * Post a Normal Event (`<id>Succeeded`) for each handler success, besides the Warning Events of
   * failures (kopf posts its success log lines as Events, `settings.posting`). Default false: every
   * success of every object would be an Event write.
   */
  successEvents?: boolean;
  /**
   * The operator's memo (kopf's `memo`, `kopf.operator(memo=…)`): given to the hooks, probes and admission
   * callbacks, and copied (shallowly) into each object's memo when the object is first handled. Default: an
   * empty one. A program that embeds the operator passes its own to share state with the handlers.
   */
  memo?: Memo;
}

/**
 * What a startup hook's failed attempt number `attempts` comes to (kopf's activities, retried as
 * handlers are): the handler outcome arithmetic (reconcile/outcome.ts) over the hook's retry options.
 */
export function hookRetry(retrying: HookRetries, error: unknown, attempts: number, started: Date, now: Date): Outcome {
  return applyLimits(classify({ ok: false, error }, retrying), retrying, attempts, started, now);
}

/**
 * Every probe's value, by id, each bounded by 10 s (its signal aborts, the wait ends): kopf's liveness
 * endpoint's probe results. A probe that throws or times out fails the whole answer, naming it.
 */
export async function runProbes(
  probes: readonly RegisteredProbe[],
  logger: Logger,
  memo: Memo = {},
): Promise<Record<string, unknown>> {
  const values: Record<string, unknown> = {};
  for (const probe of probes) {
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort(new Error('timed out after 10 s'));
        reject(new Error('timed out after 10 s'));
      }, 10_000);
    });
    try {
      values[probe.id] = await Promise.race([Promise.resolve(probe.fn({ logger, signal: abort.signal, memo })), bound]);
    } catch (error) {
      throw new Error(`probe ${probe.id} failed: ${messageOf(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }
  return values;
}

/** Sleeps `seconds`, or less when `signal` aborts. */
function sleepUnless(seconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, seconds * 1000);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The default drain timeout, seconds (OperatorOptions.drainTimeoutSeconds). */
export const DEFAULT_DRAIN_SECONDS = 20;

/** Whether leader election applies, and with which options. */
export function electionOptions(
  option: OperatorOptions['leaderElection'],
  env: Record<string, string | undefined> = process.env,
): LeaderElectionOptions | undefined {
  if (option === false) return undefined;
  if (option === true) return {};
  if (option) return option;
  return env.KUBERNETES_SERVICE_HOST ? {} : undefined;
}

/**
 * The default Lease name: replicas of one operator share it, a different operator (other resources or
 * handlers) on the same CRD gets its own, so neither waits for the other's lease.
 */
export function defaultLeaseName(registry: Registry): string {
  const parts = registry.handlers.map((h) => `${h.resource.plural}.${h.resource.group}/${h.id}/${h.cause}`).sort();
  return `kopfgen-${createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 12)}`;
}

interface Term {
  /** Counts terms, so an attempt is known to belong to its term. */
  id: number;
  controllers: Controller[];
  watches: WatchState[];
}

/**
 * What a hash range's term shares with its replica (`shards`, ARCHITECTURE.md "Scaling out"): the watches
 * (one per resource, routed by range), the owned and indexed kinds' watches (indexes stay global) and the
 * slots (`--concurrency` is per replica). The term's own: controllers, stores, queues, fenced client, drain.
 */
interface RangeWiring {
  range: number;
  /** The replica's watches of the handled resources, by `describe(resource)`. */
  routers: ReadonlyMap<string, RangeRouter>;
  secondaries: Map<string, SecondaryWatch>;
  slots: Slots;
  /** The range's hold as it is now (the start gate asks it at each start). */
  hold(): Hold;
}

export class Operator {
  private client?: KubeClient;
  readonly logger: Logger;
  readonly metrics: OperatorMetrics;
  private readonly registry: Registry;
  private readonly abort = new AbortController();
  private elector?: LeaderElector;
  private role: Role = 'starting';
  private term?: Term;
  /** With `shards`: the term of each hash range held (or draining). */
  private readonly rangeTerms = new Map<number, Term>();
  /** With `shards`: the replica's watches (ready once they listed, whatever ranges it holds). */
  private replicaWatches?: WatchState[];
  /** The leading work: the elector's run, the one term without election, or with `shards` the replica's part. */
  private running: Promise<void> = Promise.resolve();
  private server?: HealthServer;
  private webhookServer?: WebhookServer;
  private fail: (error: Error) => void = () => undefined;
  private marks: Marks = DEFAULT_MARKS;
  private readonly backoff: BackoffSettings;
  /** The running term's adaptive concurrency, fed by the answers to its writes. */
  private limit?: AdaptiveLimit;
  /** Settles with the error when the operator cannot go on (a term's lists missed the cache-sync bound). */
  readonly failed: Promise<Error>;
  /**
   * Resolves once this replica leads and every watch of its term has listed (kopf's `ready_flag` of
   * `kopf.operator`, `/readyz`'s condition): a program embedding the operator waits for it before acting.
   * Pending while it stands by.
   */
  readonly ready: Promise<void>;
  private markReady: () => void = () => undefined;
  /** Every handler attempt under way in this process, of every term (the drain, the journal, crash lines). */
  private readonly attempts = new Attempts();
  private terms = 0;
  /** Attempts abandoned at a drain deadline, over the operator's life (`kopfgen run` exits 1 after any). */
  abandoned = 0;
  /** The sensitive fields of each handled resource and the digest key, by `describe(resource)`. */
  private secrecy = new Map<string, Secrecy>();
  private readonly onExit = (code: number) => this.exiting(code);
  /** The running term's fenced client (the exit listener's crash record goes through it). */
  private termClient?: KubeClient;
  /** The leader elector's connection of its own, closed with the operator's. */
  private leaseClient?: KubeClient;
  /** The typed client of hooks and of `operatorClient()` outside a term: unfenced, the declared access. */
  private typed?: TypedClient;
  /** The operator's memo (OperatorOptions.memo): the hooks', and the root of every object's. */
  readonly memo: Memo;

  constructor(private readonly options: OperatorOptions = {}) {
    this.registry = options.registry ?? defaultRegistry;
    this.client = options.client;
    this.logger = options.logger ?? createLogger();
    this.metrics = options.metrics ?? createMetrics();
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.memo = options.memo ?? {};
    this.failed = new Promise((resolve) => (this.fail = resolve));
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    setMaxListeners(0, this.abort.signal); // one listener per running handler, by design
  }

  /** The health server, once started (its port when asked for port 0). */
  get health(): HealthServer | undefined {
    return this.server;
  }

  /** The webhook server, once started (its port when asked for port 0). */
  get webhooks(): WebhookServer | undefined {
    return this.webhookServer;
  }

  /** Checks the cluster, starts the health server, then leads or stands by; resolves once that is under way. */
  async start(): Promise<void> {
    const registered = this.registry.resources();
    if (this.registry.isEmpty())
      throw new StartupError('no handlers are registered: the module registered nothing with defineHandler(...)');
    const marks = resolveMarks(this.options.marks);
    if (typeof marks === 'string') throw new StartupError(marks);
    this.marks = marks;
    const client = (this.client ??= await this.connect());
    const fieldManager = this.options.fieldManager ?? DEFAULT_FIELD_MANAGER;
    // every request names the operator (User-Agent) and every write its field manager, the runtime's own too
    client.identify({ operator: fieldManager, fieldManager });
    client.observe((request) => {
      this.metrics.apiRequest(request);
      // Reconciles' writes are what the slots pace; lists, watches and lease renewals say little of that.
      if (request.verb === 'PATCH') this.limit?.observe(request, performance.now());
    });
    const shards = this.options.shards;
    const problem = shards === undefined ? undefined : rangeCountProblem(shards);
    if (problem) throw new StartupError(problem);
    // sharing ranges is through Leases: their names and timings are the leader election's, on or not
    const le = this.options.leaderElection;
    const election = shards === undefined ? electionOptions(le) : typeof le === 'object' ? le : {};
    const report = await startupChecks(client, registered, {
      namespace: this.options.namespace,
      leaseNamespace: election ? leaseNamespace(election.namespace) : undefined,
      leaseList: shards !== undefined,
      timeoutSeconds: this.options.cacheSyncTimeoutSeconds,
      conversions: new Set(this.registry.conversions.keys()),
      declared: this.registry.access,
    });
    this.typed = new TypedClient(client, {
      fieldManager,
      access: new AccessTable(this.registry.access, registered),
      onRetry: (message) => this.logger.warn(message),
    });
    clientSlot().base = this.typed;
    for (const warning of report.warnings) this.logger.warn(warning);
    await this.loadSecrecy(client, report.resources, election);
    await this.runHooks('startup');
    process.on('exit', this.onExit);
    if (this.options.health) this.server = await this.serveHealth(this.options.health);
    // Every replica answers the API server's reviews, leader or standby.
    if (this.options.webhooks) this.webhookServer = await this.serveWebhooks(this.options.webhooks, client, election);
    if (shards !== undefined && election && registered.length > 0) {
      this.attempts.precise(); // no lease journal per range: the exit listener tells which attempt crashed
      this.role = 'leader';
      this.running = this.share(client, election, shards, report.resources);
      return;
    }
    if (!election || registered.length === 0) {
      // no lease journal to count a crash from: the exit listener must tell which attempt crashed
      this.attempts.precise();
      this.role = 'leader';
      this.running = this.lead(client, new TermFence(), () => undefined, report.resources, this.abort.signal);
      return;
    }
    // The renewals' own connection (kube/client.ts `dedicated`): handlers' requests cannot starve them.
    const leaseClient = client.dedicated();
    this.leaseClient = leaseClient;
    const elector = new LeaderElector({
      ...election,
      client: leaseClient,
      logger: this.logger,
      name: election.id ?? defaultLeaseName(this.registry),
      journal: () => encodeJournal(this.attempts.list()),
    });
    this.elector = elector;
    this.role = 'standby';
    this.metrics.leader(false);
    this.running = elector.run(this.abort.signal, {
      onStartedLeading: (signal, takeover) =>
        this.lead(
          client,
          new TermFence([elector.fence()]),
          () => elector.lapse(),
          report.resources,
          signal,
          this.crashGuard(elector, takeover),
        ),
      onStoppedLeading: () => {
        this.role = 'standby';
        this.metrics.leader(false);
      },
    });
  }

  /**
   * The client of the login hooks (kopf's on.login; kube/login-credentials.ts), which log in again on a 401,
   * else of the kubeconfig or the in-cluster service account.
   */
  private async connect(): Promise<KubeClient> {
    if (this.registry.logins.length === 0) return KubeClient.fromDefault();
    const config = await loginClusterConfig(this.registry.logins, this.logger);
    if (typeof config === 'string') throw new StartupError(config);
    return new KubeClient(config);
  }

  /**
   * The sensitive fields of each resource (its descriptor's and its registrations'), and the digest key
   * when any has some: the option, else the key Secret in the operator's namespace.
   */
  private async loadSecrecy(
    client: KubeClient,
    resources: readonly ResourceDescriptor[],
    election: LeaderElectionOptions | undefined,
  ): Promise<void> {
    const fields = resources.map((r) => [describe(r), sensitiveFields(r, this.registry.handlers)] as const);
    if (!fields.some(([, paths]) => paths.length > 0)) return;
    const given = this.options.digestKey;
    if (given && given.length < 32) throw new StartupError('digestKey must be at least 32 bytes');
    const key = given ?? (await digestKey(client, leaseNamespace(election?.namespace)));
    for (const [resource, paths] of fields) if (paths.length > 0) this.secrecy.set(resource, { paths, key });
  }

  /**
   * What a term inherits of a crash (crash-journal.ts): after taking over a lease its holder did not
   * release, the attempts its journal names are counted as failed, and attempts are journaled before
   * they start for GUARDED_MS.
   */
  private crashGuard(elector: LeaderElector, takeover: Takeover): CrashGuard | undefined {
    if (!takeover.unreleased) return undefined;
    const suspects = decodeJournal(takeover.journal);
    const until = performance.now() + GUARDED_MS;
    this.attempts.precise(); // a crash loop is likely: tell its attempt apart from the others
    this.logger.warn(
      `took over from ${takeover.previous}, which did not release the lease (it crashed, was killed or cut off): ` +
        `${suspects.length} attempt(s) it had in flight count as failed; attempts are journaled before they start ` +
        `for ${GUARDED_MS / 1000} s`,
      { previous: takeover.previous, suspects: suspects.length },
    );
    return { suspects, guarded: () => performance.now() < until, record: () => elector.writeJournal() };
  }

  /**
   * The process is exiting (exit listeners run synchronously): outside a graceful stop, with handler
   * attempts under way, the handler did it (process.exit, an uncaught error or rejection in its code) or
   * something killed the process from inside (out of memory is fatal without this chance). One error
   * line names each attempt, the one whose code exits first (attempts.ts `current`), so a crash-looping
   * operator says which object and handler bring it down, and that one is recorded as a failed attempt.
   */
  private exiting(code: number): void {
    const running = this.attempts.list();
    if (running.length === 0) return;
    // During a stop the exit may be ours (a second signal): only an attempt's own context names it then.
    const culprit = this.attempts.current(!this.abort.signal.aborted);
    const now = Date.now();
    const age = (a: AttemptInfo) => `${Math.round((now - a.started.getTime()) / 1000)} s`;
    if (culprit) {
      this.logger.error(
        `the process exits (code ${code}) from the code of ${describeAttempt(culprit)}, running for ${age(culprit)}`,
        { code, handler: culprit.handler, namespace: culprit.namespace, name: culprit.name },
      );
      // Recorded as a failed attempt now, so the handler's retries and timeout end a crash loop.
      const reason = `the operator process exited (code ${code}) from the code of this attempt`;
      for (const write of this.attempts.crashWrite(culprit, reason) ?? []) {
        const answer = this.termClient?.requestSync(write.method, write.path, write);
        const outcome =
          answer?.status && answer.status < 300
            ? 'recorded as a failed attempt'
            : `could not be recorded (${answer?.problem ?? answer?.status ?? 'no term'}); the next leader counts it from the lease's journal when it can`;
        this.logger.error(`${describeAttempt(culprit)}: ${outcome}`, { handler: culprit.handler, name: culprit.name });
      }
    }
    for (const attempt of running) {
      if (attempt === culprit) continue;
      this.logger.error(`the process exits (code ${code}) while ${describeAttempt(attempt)} runs (${age(attempt)})`, {
        code,
        handler: attempt.handler,
        namespace: attempt.namespace,
        name: attempt.name,
      });
    }
  }

  /**
   * One term: fresh controllers and watches until `signal` aborts, then the running handlers drain, for
   * at most the drain timeout. Every request of the term goes through `client` fenced by `fence` (the
   * lease's hold, with leader election): once it closes nothing more is written and what is in flight
   * is aborted. Every start of user code asks the term's start gate (start-gate.ts) first: refused once
   * the fence would refuse a write; `lapse` ends the hold when the gate finds its deadline passed first.
   */
  private async lead(
    unfenced: KubeClient,
    fence: TermFence,
    lapse: () => void,
    resources: ResourceDescriptor[],
    signal: AbortSignal,
    crash?: CrashGuard,
    range?: RangeWiring,
  ): Promise<void> {
    setMaxListeners(0, signal);
    setMaxListeners(0, fence.signal);
    const client = unfenced.fenced(fence);
    if (!range) this.termClient = client;
    // The term's watches of owned kinds, which the typed client asks who controls a child before writing it.
    const secondaries = range ? range.secondaries : new Map<string, SecondaryWatch>();
    const controllers = (kind: string, namespace: string | undefined, name: string) =>
      secondaries.get(kind)?.controllerOf(namespace, name);
    const typed = this.typed?.over(client).with({ controllers });
    const slot = clientSlot();
    // ranges' terms run side by side: operatorClient() outside a handler answers through the unfenced client
    if (!range) {
      slot.term = typed;
      this.role = 'leader';
      this.metrics.leader(true);
    }
    const slots = range?.slots ?? this.newSlots();
    // A term's Events go through its own (fenced) client, so a replica that lost the lease posts none.
    const events = new EventRecorder({ client, logger: this.logger, metrics: this.metrics });
    const term: Term = { id: ++this.terms, controllers: [], watches: [] };
    const hold = { fence, lapse };
    const gate = startGate(range ? () => range.hold() : () => hold, (reason) => this.metrics.startRefused(reason));
    if (range) this.rangeTerms.set(range.range, term);
    else this.term = term;
    // every line of a range's term names the range (its outcome lines say which replica's share it is)
    const logger = range ? fieldsLogger(this.logger, { range: range.range }) : this.logger;
    const watching: Promise<void>[] = [];
    for (const resource of resources) {
      const env: ResourceEnv = {
        client,
        resource,
        logger,
        signal,
        now: this.options.now ?? (() => new Date()),
        metrics: this.metrics,
        marks: this.marks,
        events,
        backoff: this.backoff,
        attempts: this.attempts,
        secrecy: this.secrecy.get(describe(resource)),
        crash,
        typed,
        gate,
        readiness: readinessMode(this.registry.handlersFor(resource)),
        successEvents: this.options.successEvents,
        memos: new Memos(this.memo),
      };
      term.controllers.push(new Controller(env, this.registry.handlersFor(resource), slots));
    }
    const watch = (resource: ResourceDescriptor, consumer: WatchConsumer, namespace = this.options.namespace) => {
      const state: WatchState = { resource: describe(resource), listed: false, lastSeen: new Date() };
      term.watches.push(state);
      const listed = new Promise<void>((resolve) => {
        const reporter = this.reporter(state);
        const options = {
          namespace,
          signal,
          logger: this.logger,
          reporter: { ...reporter, listed: () => (reporter.listed(), resolve()) },
          timeoutSeconds: this.options.watchTimeoutSeconds,
          idleSeconds: this.options.watchIdleSeconds,
        };
        watching.push(watchResource(client, resource, consumer, options));
      });
      this.logger.info(
        `watching ${describe(resource)}${namespace ? ` in namespace ${namespace}` : ' in all namespaces'}`,
      );
      return listed;
    };
    // Owned and indexed kinds first: handlers start once every index holds a complete list (kopf's handlers
    // wait for their indexes too), so none reads a partial one. A range's term uses the replica's watches.
    const indexed: Promise<void>[] = [];
    for (const kind of range ? [] : this.registry.secondaryKinds()) {
      const owners = term.controllers.filter((controller) => controller.ownedKinds().has(describe(kind)));
      const indexes = this.registry.indexes.filter((index) => describe(index.resource) === describe(kind));
      for (const index of indexes) index.store.reset();
      const secondary = new SecondaryWatch(describe(kind), owners, indexes, this.logger);
      secondaries.set(describe(kind), secondary);
      const listed = watch(kind, secondary);
      if (indexes.length > 0) indexed.push(listed);
    }
    const sync = this.watchSyncBound(term, signal);
    const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    if (indexed.length > 0) await Promise.race([Promise.all(indexed), aborted]);
    if (range) {
      for (const controller of term.controllers)
        range.routers.get(describe(controller.resource))?.attach(range.range, controller);
    } else if (!signal.aborted) {
      const listings = term.controllers.map((controller) => watch(controller.resource, controller));
      void Promise.all(listings).then(() => this.markReady());
    }
    // No reconcile starts once the term ends; the ones running finish (their writes are fenced if the lease is lost).
    const stopped = new Promise<void>((resolve) => {
      const end = () => {
        let left = 0;
        for (const controller of term.controllers) left += controller.stop();
        // A lost hold (not a stop): one line saying what the next leader finds to do.
        if (!this.abort.signal.aborted && (!range || left > 0)) {
          const next = range ? 'holder' : 'leader';
          logger.warn(`${messageOf(signal.reason)}: ${left} queued start(s) left to the next ${next}`, {
            left,
          });
        }
        resolve();
      };
      if (signal.aborted) end();
      else signal.addEventListener('abort', end, { once: true });
    });
    const before = new Set(this.attempts.list());
    await stopped;
    clearTimeout(sync);
    const drained = (async () => {
      await Promise.allSettled(watching);
      // a range drains its own queues: the slots are shared with the replica's other ranges
      if (range) await Promise.all(term.controllers.map((controller) => controller.idle()));
      else await slots.drained();
      await Promise.all(term.controllers.map((controller) => controller.drained()));
    })();
    const seconds = this.options.drainTimeoutSeconds ?? DEFAULT_DRAIN_SECONDS;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, seconds * 1000, 'late')));
    if ((await Promise.race([drained, deadline])) === 'late') {
      // Attempts of earlier terms that were abandoned already are not this term's to name again.
      const abandoned = this.attempts.list().filter((attempt) => !before.has(attempt));
      this.abandoned += abandoned.length;
      for (const attempt of abandoned) {
        const ran = Math.round((Date.now() - attempt.started.getTime()) / 1000);
        this.logger.error(
          `abandoned after the drain timeout of ${seconds} s: ${describeAttempt(attempt)}, running for ${ran} s; its writes are refused`,
          { handler: attempt.handler, namespace: attempt.namespace, name: attempt.name },
        );
      }
      fence.close(`the term's drain timeout (${seconds} s) passed`);
    }
    clearTimeout(timer);
    await events.flush(5000); // Events recorded by the last handlers, a bounded wait
    fence.close('the term ended');
    if (range) {
      // its objects leave the replica's memory with its controllers
      for (const controller of term.controllers)
        range.routers.get(describe(controller.resource))?.detach(range.range, controller);
      if (this.rangeTerms.get(range.range) === term) this.rangeTerms.delete(range.range);
      return;
    }
    if (slot.term === typed) slot.term = undefined;
    this.metrics.standby(); // a standby exports no queue depth nor watch age (alerts are for the leader)
    if (this.term === term) this.term = undefined;
    if (!this.abort.signal.aborted) this.role = 'standby';
  }

  /** The slots of a term, or with `shards` of the replica: a fixed number, or the adaptive limit. */
  private newSlots(): Slots {
    const fixed = this.options.concurrency;
    const adaptive =
      fixed === undefined
        ? new AdaptiveLimit(
            undefined,
            () => slots.waiters > 0,
            () => slots.grew(),
          )
        : undefined;
    const slots: Slots = new Slots(adaptive ?? fixed ?? 16);
    this.limit = adaptive;
    return slots;
  }

  /**
   * Sharing the objects with the other replicas (`shards`, ARCHITECTURE.md "Scaling out"): the replica
   * watches each resource once (filtered by the ranges it holds: KEP-5866's `shardSelector` where the server
   * honours it, else on arrival, said once) and each owned and indexed kind once (indexes stay global);
   * it takes part in the range Leases (shard/shard-member.ts), and each range it holds is a term of its own
   * (`lead` with the range's fence and hold: its controllers, stores and fenced client), drained before a
   * hand-over. Until `this.abort`: then every range drains and is released, then the member Lease.
   */
  private async share(
    client: KubeClient,
    election: LeaderElectionOptions,
    count: number,
    resources: ResourceDescriptor[],
  ): Promise<void> {
    const signal = this.abort.signal;
    const watching: Promise<void>[] = [];
    this.replicaWatches = [];
    const routers = new Map(resources.map((resource) => [describe(resource), new RangeRouter(resource, count)]));
    const secondaries = new Map<string, SecondaryWatch>();
    const indexed: Promise<void>[] = [];
    for (const kind of this.registry.secondaryKinds()) {
      const owners = resources
        .filter((r) => this.registry.handlersFor(r).some((h) => h.child && describe(h.child) === describe(kind)))
        .flatMap((r) => routers.get(describe(r)) ?? []);
      const indexes = this.registry.indexes.filter((index) => describe(index.resource) === describe(kind));
      for (const index of indexes) index.store.reset();
      const secondary = new SecondaryWatch(describe(kind), owners, indexes, this.logger);
      secondaries.set(describe(kind), secondary);
      const listed = this.replicaWatch(client, kind, secondary, watching);
      if (indexes.length > 0) indexed.push(listed);
    }
    const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    if (indexed.length > 0) await Promise.race([Promise.all(indexed), aborted]);
    for (const [what, router] of routers) {
      const filter = new RangeFilter(router, count, () => router.held, ownKey, this.logger, what);
      let asked: string | undefined;
      const options = {
        shardSelector: () => (asked = shardSelector(router.held, count)),
        listMetadata: (metadata: Record<string, unknown>) => filter.listMetadata(metadata, asked),
      };
      void this.replicaWatch(client, router.resource, filter, watching, options, router);
    }
    // The renewals' own connection (kube/client.ts `dedicated`): handlers' requests cannot starve them.
    const leaseClient = client.dedicated();
    this.leaseClient = leaseClient;
    const slots = this.newSlots();
    const terms = new Map<number, { abort: AbortController; done: Promise<void> }>();
    const ending = new Set<Promise<void>>();
    const member: ShardMember = new ShardMember({
      client: leaseClient,
      id: election.id ?? defaultLeaseName(this.registry),
      namespace: leaseNamespace(election.namespace),
      identity: election.identity ?? defaultIdentity(),
      count,
      timings: {
        leaseDurationMs: election.leaseDurationMs ?? DEFAULT_TIMINGS.leaseDurationMs,
        renewDeadlineMs: election.renewDeadlineMs ?? DEFAULT_TIMINGS.renewDeadlineMs,
        retryPeriodMs: election.retryPeriodMs ?? DEFAULT_TIMINGS.retryPeriodMs,
      },
      logger: this.logger,
      callbacks: {
        onRangeStarted: (range, fence) => {
          const abort = new AbortController();
          const hold = () => member.holds.holdOfRange(range);
          const wiring: RangeWiring = { range, routers, secondaries, slots, hold };
          const done = this.lead(client, fence, () => hold().lapse(), resources, abort.signal, undefined, wiring);
          terms.set(range, { abort, done });
          ending.add(done);
          void done.finally(() => ending.delete(done));
          this.metrics.handover('in');
          this.metrics.rangesHeld(member.holds.held().length);
        },
        onRangeDraining: (range) => {
          const term = terms.get(range);
          term?.abort.abort(new Error(`range ${range} is handed over`));
          return term?.done ?? Promise.resolve();
        },
        onRangeStopped: (range, reason) => {
          terms.get(range)?.abort.abort(new Error(reason));
          terms.delete(range);
          this.metrics.handover('out');
          this.metrics.rangesHeld(member.holds.held().length);
        },
      },
    });
    this.metrics.rangesHeld(0);
    await member.run(signal);
    await Promise.allSettled([...ending]);
    for (const router of routers.values()) router.close();
    await Promise.allSettled(watching);
  }

  /**
   * One of a sharded replica's watches, for the replica's life (`this.abort`); a `router` can end it to
   * have it list again (a range taken starts from a fresh list). Settles once it listed the first time.
   */
  private replicaWatch(
    client: KubeClient,
    resource: ResourceDescriptor,
    consumer: WatchConsumer,
    watching: Promise<void>[],
    extra: Pick<WatchOptions, 'shardSelector' | 'listMetadata'> = {},
    router?: RangeRouter,
  ): Promise<void> {
    const signal = this.abort.signal;
    const state: WatchState = { resource: describe(resource), listed: false, lastSeen: new Date() };
    this.replicaWatches?.push(state);
    const reporter = this.reporter(state);
    let resolveListed: () => void = () => undefined;
    const listed = new Promise<void>((resolve) => (resolveListed = resolve));
    const loop = async () => {
      while (!signal.aborted) {
        const round = new AbortController();
        const end = () => round.abort();
        signal.addEventListener('abort', end, { once: true });
        if (router) router.restart = end;
        await watchResource(client, resource, consumer, {
          namespace: this.options.namespace,
          signal: round.signal,
          logger: this.logger,
          reporter: { ...reporter, listed: () => (reporter.listed(), resolveListed()) },
          timeoutSeconds: this.options.watchTimeoutSeconds,
          idleSeconds: this.options.watchIdleSeconds,
          ...extra,
        });
        signal.removeEventListener('abort', end);
      }
    };
    watching.push(loop());
    const where = this.options.namespace ? ` in namespace ${this.options.namespace}` : ' in all namespaces';
    this.logger.info(`watching ${describe(resource)}${where}`);
    return listed;
  }

  /** The watches the probes judge: the term's, or with `shards` the replica's (a replica holding nothing is ready). */
  private watchStates(): WatchState[] {
    return this.replicaWatches ?? this.term?.watches ?? [];
  }

  /** Every running term's controllers (with `shards`, one term per range held). */
  private controllers(): Controller[] {
    return [...(this.term ? [this.term] : []), ...this.rangeTerms.values()].flatMap((term) => term.controllers);
  }

  /** controller-runtime's CacheSyncTimeout: a term whose watches have not all listed in time ends the operator. */
  private watchSyncBound(term: Term, signal: AbortSignal): NodeJS.Timeout {
    const seconds = this.options.cacheSyncTimeoutSeconds ?? DEFAULT_CACHE_SYNC_SECONDS;
    return setTimeout(() => {
      const late = term.watches.filter((w) => !w.listed).map((w) => w.resource);
      if (late.length === 0 || signal.aborted) return;
      this.fail(
        new StartupError(
          `the initial list of ${late.join(', ')} did not finish within ${seconds} s (--cache-sync-timeout)`,
        ),
      );
    }, seconds * 1000);
  }

  private reporter(state: WatchState): WatchReporter {
    return {
      seen: () => {
        state.lastSeen = new Date();
        this.metrics.watchEvent(state.resource, state.lastSeen);
      },
      listed: () => {
        state.listed = true;
      },
      restarted: () => this.metrics.watchRestart(state.resource),
    };
  }

  private async serveWebhooks(
    options: WebhookOptions,
    client: KubeClient,
    election: LeaderElectionOptions | undefined,
  ): Promise<WebhookServer> {
    // Loaded only by an operator that serves webhooks: `kopfgen run` without them stays light.
    const { serveWebhooks } = await import('./webhooks/serve-webhooks.js');
    try {
      return await serveWebhooks(options, {
        client,
        registry: this.registry,
        logger: this.logger,
        namespace: leaseNamespace(election?.namespace),
        memo: this.memo,
      });
    } catch (error) {
      await this.server?.close();
      throw new StartupError(`cannot serve the webhooks on port ${options.port}: ${messageOf(error)}`);
    }
  }

  private async serveHealth(options: HealthOptions): Promise<HealthServer> {
    const stall = options.stallSeconds ?? DEFAULT_STALL_SECONDS;
    const metrics = this.metrics;
    const serving = startHealthServer({
      port: options.port,
      host: options.host,
      // A webhook callback runs on this loop for up to its timeoutSeconds (30 s at most), a synchronous
      // one without yielding: served from a worker thread, the probes answer meanwhile (a worker costs
      // about 9 MB, which an operator without webhooks does not pay).
      thread: this.options.webhooks
        ? { toleranceSeconds: options.loopToleranceSeconds, onError: (message) => this.logger.error(message) }
        : undefined,
      healthz: () => {
        const now = new Date();
        const lease = this.elector?.problem();
        const webhooks = this.webhookServer?.problems(now) ?? [];
        return liveness(this.watchStates(), now, stall, [...(lease ? [lease] : []), ...webhooks]);
      },
      readyz: () => readiness(this.role, this.watchStates()),
      probes:
        this.registry.probes.length > 0 ? () => runProbes(this.registry.probes, this.logger, this.memo) : undefined,
      metrics: {
        contentType: metrics.contentType,
        scrape: () => {
          const depths = new Map<string, number>();
          for (const controller of this.controllers()) {
            const plural = controller.resource.plural;
            depths.set(plural, (depths.get(plural) ?? 0) + controller.depth);
          }
          for (const [plural, depth] of depths) metrics.queueDepth(plural, depth);
          if (this.webhookServer) metrics.webhookRotationFailures(this.webhookServer.failedRotations());
          return metrics.scrape();
        },
      },
    });
    try {
      return await serving;
    } catch (error) {
      const where = `${options.host ?? '0.0.0.0'}:${options.port}`;
      throw new StartupError(
        `cannot serve /healthz, /readyz and /metrics on ${where} (--health-port): ${messageOf(error)}`,
      );
    }
  }

  /**
   * The registry's startup or cleanup hooks, in order. A startup hook that fails temporarily (hookRetry)
   * is called again after its delay, with `retry` counting; one that fails for good ends the start as a
   * StartupError naming it. A cleanup hook that throws is logged and the next one still runs.
   */
  private async runHooks(kind: 'startup' | 'cleanup'): Promise<void> {
    for (const hook of this.registry[kind]) {
      const signal = kind === 'startup' ? this.abort.signal : AbortSignal.timeout(60_000);
      const started = new Date();
      for (let retry = 0; ; retry++) {
        try {
          const client = this.typed ?? clientSlot().base;
          if (!client) throw new Error('the operator has no client yet');
          await hook.fn({ logger: this.logger, signal, client, retry, memo: this.memo });
          this.logger.info(`${kind} hook ${hook.id} succeeded`);
          break;
        } catch (error) {
          if (kind === 'cleanup') {
            this.logger.error(`cleanup hook ${hook.id} failed: ${messageOf(error)}`);
            break;
          }
          const outcome = hookRetry(hook.retrying ?? {}, error, retry + 1, started, new Date());
          if (outcome.kind === 'ignored') {
            this.logger.warn(`startup hook ${hook.id} failed, error ignored: ${outcome.message}`);
            break;
          }
          if (outcome.kind !== 'temporary' || signal.aborted) {
            throw new StartupError(`startup hook ${hook.id} failed: ${outcome.message ?? messageOf(error)}`);
          }
          this.logger.warn(
            `startup hook ${hook.id} failed temporarily, retry in ${outcome.delay}s: ${outcome.message}`,
          );
          await sleepUnless(outcome.delay ?? 0, signal);
        }
      }
    }
  }

  /** Whether this replica leads now (always, without leader election, once started). */
  isLeader(): boolean {
    return this.role === 'leader';
  }

  /** Objects currently known in this term (for tests and the benchmark). */
  known(): number {
    return this.controllers().reduce((sum, controller) => sum + controller.store.size, 0);
  }

  private stopped?: Promise<void>;

  /**
   * Stops watching, waits until running handlers have finished and their patches are written (at most the
   * drain timeout: past it the attempts still running are abandoned, each named on an error line, and
   * `abandoned` counts them), releases the lease, runs the cleanup hooks. A second call waits for the first.
   */
  stop(): Promise<void> {
    return (this.stopped ??= this.shutdown());
  }

  private async shutdown(): Promise<void> {
    const started = this.role !== 'starting';
    this.abort.abort();
    await this.running;
    this.role = 'starting';
    if (started) await this.runHooks('cleanup');
    await this.webhookServer?.close();
    process.off('exit', this.onExit);
    await this.server?.close();
    // operatorClient() no longer answers through a client whose connections are closed
    if (clientSlot().base === this.typed) clientSlot().base = undefined;
    this.leaseClient?.close();
    this.client?.close();
  }
}
