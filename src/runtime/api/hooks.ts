/**
 * Operator-level hooks (kopf's @kopf.on.startup / @kopf.on.cleanup): startup hooks run in order
 * before the operator watches anything; one that throws a TemporaryError is retried after its delay
 * (kopf retries its activities), and one that fails for good (a PermanentError, its `retries` or
 * `timeout` used up, or any other error unless `errors` says otherwise) stops the start (the process
 * exits 1 with one line). Unlike kopf, an arbitrary error ends the start by default (`errors:
 * 'permanent'`): a startup hook is the place to fail fast. Cleanup hooks run in order on a graceful
 * stop, after the running handlers have finished and their patches are written.
 */
import type { HookContext, HookRetries, ProbeContext } from './registry.js';
import { defaultRegistry, type Registry } from './registry.js';

export interface HookOptions extends HookRetries {
  /** Names the hook in logs and errors (default: the function's name, or `startup-<n>`/`cleanup-<n>`). */
  id?: string;
  /** The registry to register into (default: `defaultRegistry`). */
  registry?: Registry;
}

type Hook = (context: HookContext) => unknown;

function idOf(kind: string, fn: Hook, options: HookOptions, count: number): string {
  return options.id ?? (fn.name || `${kind}-${count + 1}`);
}

export function onStartup(fn: Hook, options: HookOptions = {}): void {
  const registry = options.registry ?? defaultRegistry;
  const { retries, timeout, backoff, errors } = options;
  const retrying = { retries, timeout, backoff, errors: errors ?? 'permanent' };
  registry.startup.push({ id: idOf('startup', fn, options, registry.startup.length), fn, retrying });
}

export function onCleanup(fn: Hook, options: Omit<HookOptions, keyof HookRetries> = {}): void {
  const registry = options.registry ?? defaultRegistry;
  registry.cleanup.push({ id: idOf('cleanup', fn, options, registry.cleanup.length), fn });
}

/**
 * A probe (kopf's @kopf.on.probe): `fn`'s value is reported under its id at `/probes` of the health
 * server (`kopfgen run --health-port`), as JSON, computed at each request. A probe that throws, or
 * whose value JSON cannot carry, makes the answer a 500 naming it; `/healthz` is not affected (a
 * probe reports, the operator's liveness stays its own).
 */
export function onProbe(
  fn: (context: ProbeContext) => unknown,
  options: Omit<HookOptions, keyof HookRetries> = {},
): void {
  const registry = options.registry ?? defaultRegistry;
  registry.probes.push({ id: idOf('probe', fn, options, registry.probes.length), fn });
}
