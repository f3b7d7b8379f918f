/**
 * Operator-level hooks (kopf's @kopf.on.startup / @kopf.on.cleanup): startup hooks run in order
 * before the operator watches anything, and one that throws stops the start (the process exits 1
 * with one line); cleanup hooks run in order on a graceful stop, after the running handlers have
 * finished and their patches are written. Unlike kopf, a startup hook is not retried: it is the
 * place to fail fast.
 */
import type { HookContext } from './registry.js';
import { defaultRegistry, type Registry } from './registry.js';

export interface HookOptions {
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
  registry.startup.push({ id: idOf('startup', fn, options, registry.startup.length), fn });
}

export function onCleanup(fn: Hook, options: HookOptions = {}): void {
  const registry = options.registry ?? defaultRegistry;
  registry.cleanup.push({ id: idOf('cleanup', fn, options, registry.cleanup.length), fn });
}
