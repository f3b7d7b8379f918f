/**
 * What the health worker (health-worker.ts) answers for `/healthz` or `/readyz` when the operator's
 * event loop has not answered within the wait: the loop's last published answer while its heartbeat
 * is younger than the tolerance (a callback that spins the CPU for a while is not a dead process, so
 * the kubelet must not restart the pod for it), else a failure naming how long the loop has been
 * silent (a loop stuck that long is what a liveness probe exists to cure). Pure.
 */

/** An HTTP answer of the health server. */
export interface Answer {
  status: number;
  contentType: string;
  body: string;
}

export const text = (status: number, body: string): Answer => ({
  status,
  contentType: 'text/plain; charset=utf-8',
  body,
});

/**
 * How long the event loop may be silent before `/healthz` and `/readyz` fail: 30 s, the longest
 * the API server waits for one webhook call (`timeoutSeconds` is at most 30), so a callback that
 * holds the loop for as long as any webhook may run never fails liveness, and a loop held past it
 * does.
 */
export const DEFAULT_LOOP_TOLERANCE_SECONDS = 30;

/**
 * How long the worker waits for the event loop's own, fresh answer before it answers from the
 * heartbeat: the bound on how much a busy loop delays `/healthz`.
 */
export const FRESH_WAIT_MS = 500;

/**
 * `probe`: `healthz` or `readyz`. `last`: the loop's last answer for it, if any. `silentMs`: since the
 * worker last heard from the loop (monotonic).
 */
export function heldAnswer(
  probe: 'healthz' | 'readyz',
  last: Answer | undefined,
  silentMs: number,
  toleranceMs: number,
): Answer {
  if (last && silentMs <= toleranceMs) return last;
  const seconds = Math.floor(silentMs / 1000);
  const why = last
    ? `the operator's event loop has not answered for ${seconds} s (limit ${Math.floor(toleranceMs / 1000)} s)`
    : "the operator's event loop has not answered yet";
  return text(500, `[-]${why}\n${probe} check failed\n`);
}
