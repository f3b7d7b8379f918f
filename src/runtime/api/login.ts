/**
 * The login hook (kopf's `@kopf.on.login`): user code says how to reach the API server instead of the
 * kubeconfig or the in-cluster service account (a token from a vault, a certificate issued at start). The
 * operator calls it once before anything else; when the API server answers 401 (the token expired or was
 * revoked) or the connection's `expiration` has passed, it calls it again and retries with what it returns,
 * as kopf re-authenticates on 401. The hooks run in registration order, the first that returns a
 * connection wins (kopf's: the first non-None); none returning one fails the start.
 *
 * Deliberately narrower than kopf's `ConnectionInfo`: a re-login renews the credentials (token, basic
 * auth, client certificate); the server, CA and namespace of the first login stay for the process's life
 * (the watches and the webhooks' configuration were set up against them).
 */
import { defaultRegistry, type LoginFn, type Registry } from './registry.js';

export type { ConnectionInfo, LoginContext, LoginFn, RegisteredLogin } from './registry.js';

export interface LoginOptions {
  /** Names the hook in logs and errors (default: the function's name, or `login-<n>`). */
  id?: string;
  /** The registry to register into (default: `defaultRegistry`). */
  registry?: Registry;
}

export function onLogin(fn: LoginFn, options: LoginOptions = {}): void {
  const registry = options.registry ?? defaultRegistry;
  registry.logins.push({ id: options.id ?? (fn.name || `login-${registry.logins.length + 1}`), fn });
}
