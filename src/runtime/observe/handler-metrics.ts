/**
 * The one call the effects make per handler attempt: a run by resource/handler/cause/outcome with its
 * duration, and a retry when the outcome asks for one (controller-runtime counts `reconcile_total` and
 * `reconcile_errors_total` the same way, once per attempt).
 */
import type { ResourceEnv } from '../env.js';

export interface AttemptRecord {
  handler: string;
  cause: string;
  /** success, temporary, permanent, ignored. */
  outcome: string;
  started: Date;
  ended: Date;
}

export function recordAttempt(env: Pick<ResourceEnv, 'metrics' | 'resource'>, attempt: AttemptRecord): void {
  const metrics = env.metrics;
  if (!metrics) return;
  const labels = { resource: env.resource.plural, handler: attempt.handler, cause: attempt.cause };
  const seconds = Math.max(0, (attempt.ended.getTime() - attempt.started.getTime()) / 1000);
  metrics.handlerRun({ ...labels, outcome: attempt.outcome, seconds });
  if (attempt.outcome === 'temporary') metrics.retry(labels);
}
