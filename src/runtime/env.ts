/**
 * What the components of one resource's controller share: the API client, the resource, the
 * logger, the term's signal, the clock (a test may move it), the operator's marks, where Events
 * go, the backoff after failures and the metrics. With leader election the client is the term's
 * fenced client: once the lease is lost it sends no write; the start gate starts no user code.
 */
import type { Logger } from './api/context.js';
import type { ResourceDescriptor } from './api/define.js';
import type { BackoffSettings } from './error-policy.js';
import type { KubeClient } from './kube/client.js';
import type { EventInput } from './observe/event-correlator.js';
import type { Marks } from './reconcile/marks.js';

/** Takes Events to write, aggregated and rate-limited (observe/event-recorder.ts); never throws. */
export interface EventSink {
  record(input: EventInput): void;
}
import type { OperatorMetrics } from './observe/metrics.js';
import type { Attempts } from './attempts.js';
import type { CrashGuard } from './crash-journal.js';
import type { Secrecy } from './reconcile/essence.js';
import type { SelfUpdateLimits } from './reconcile/self-updates.js';
import type { TypedClient } from './effects/typed-client.js';
import type { StartGate } from './start-gate.js';
import type { Memos } from './memos.js';

export interface ResourceEnv {
  client: KubeClient;
  resource: ResourceDescriptor;
  logger: Logger;
  /** Aborted when the operator shuts down or this replica stops leading. */
  signal: AbortSignal;
  now: () => Date;
  marks: Marks;
  events: EventSink;
  backoff: BackoffSettings;
  metrics?: OperatorMetrics;
  /** The operator's registry of attempts under way (attempts.ts); absent in tests that need none. */
  attempts?: Attempts;
  /** The resource's sensitive fields and the digest key (essence.ts `conceal`); absent when it has none. */
  secrecy?: Secrecy;
  /** What the term inherited of a crash (crash-journal.ts); absent when its lease was taken cleanly. */
  crash?: CrashGuard;
  /** The per-object limit on self-caused updates (reconcile/self-updates.ts); default DEFAULT_SELF_UPDATE_LIMITS. */
  selfUpdates?: SelfUpdateLimits;
  /**
   * The handlers' typed client (effects/typed-client.ts) over `client`, with the operator's field manager
   * and declared access; default: one over `client` with the default field manager, every kind allowed.
   */
  typed?: TypedClient;
  /**
   * Asked at every start of user code for an object (start-gate.ts): the term's hold on the object's lease;
   * absent in tests that need none (every start allowed).
   */
  gate?: StartGate;
  /** Who sets the resource's `Ready` condition (registry.ts `readinessMode`); default `auto`. */
  readiness?: 'auto' | 'manual';
  /** Post a Normal Event for each handler success too (OperatorOptions.successEvents; kopf's posting). */
  successEvents?: boolean;
  /** The per-object memos (memos.ts), over the operator's; absent in tests that need none (a fresh memo each call). */
  memos?: Memos;
}
