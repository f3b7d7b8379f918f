/**
 * The one error policy (kube-rs `error_policy`): what happens after a reconcile failed with an
 * error that no narrower rule handled — a write the write retry policy gave up on, a 4xx that
 * retrying cannot fix, a status subresource missing from the cluster, a failing read-back.
 * Handler errors never come here: they are outcomes (reconcile/outcome.ts), not failures.
 * Today every such failure retries the whole object after a fixed 10 s, as before.
 */
import type { KubernetesObject } from './api/kube-types.js';
import { Action } from './queue.js';

export const FAILURE_RETRY_MS = 10_000;

export interface Failure {
  error: unknown;
  uid: string;
  /** The object's newest known state, if it is still known. */
  object: KubernetesObject | undefined;
}

export function errorPolicy(failure: Failure): Action {
  void failure; // every failure is treated alike for now
  return Action.requeueAfter(FAILURE_RETRY_MS);
}
