/**
 * A login hook's connection (api/login.ts) as the KubeClient's cluster configuration: the server, CA and
 * verification of the first login, and credentials that log in again when the API server refused them
 * (`expire`, called by the client on a 401) or their `expiration` has passed; one login at a time, however
 * many requests wait for it (client-go's exec authenticator refreshes the same way on a 401).
 */
import type { ConnectionInfo, LoginContext, RegisteredLogin } from '../api/login.js';
import type { Logger } from '../api/context.js';
import { messageOf } from '../error-message.js';
import type { AuthMaterial, Credentials } from './credentials.js';
import type { ClusterConfig } from './kubeconfig.js';

/** The request headers and client certificate of a connection. */
export function materialOf(info: ConnectionInfo): AuthMaterial {
  const headers: Record<string, string> = {};
  if (info.token !== undefined) headers.Authorization = `Bearer ${info.token}`;
  else if (info.username !== undefined)
    headers.Authorization = `Basic ${Buffer.from(`${info.username}:${info.password ?? ''}`).toString('base64')}`;
  const material: AuthMaterial = { headers };
  if (info.certificate) {
    material.cert = Buffer.from(info.certificate.cert);
    material.key = Buffer.from(info.certificate.key);
  }
  return material;
}

/**
 * The first connection the hooks give, in registration order (kopf: the first that returns one); a hook
 * that throws fails the login, naming it.
 */
export async function logIn(logins: readonly RegisteredLogin[], context: LoginContext): Promise<ConnectionInfo> {
  for (const login of logins) {
    let info: ConnectionInfo | undefined;
    try {
      info = await login.fn(context);
    } catch (error) {
      throw new Error(`login hook ${login.id} failed: ${messageOf(error)}`, { cause: error });
    }
    if (info !== undefined) {
      context.logger.info(`login hook ${login.id} succeeded: ${info.server}`);
      return info;
    }
  }
  throw new Error(`no login hook returned a connection (${logins.map((l) => l.id).join(', ')})`);
}

/** Credentials over `login`: the first connection's, renewed by `login` when expired or refused. */
export function loginCredentials(
  first: ConnectionInfo,
  login: () => Promise<ConnectionInfo>,
  now = Date.now,
): Credentials {
  let current = first;
  let material = materialOf(first);
  let stale = false;
  let running: Promise<void> | undefined;
  const expired = () => stale || (current.expiration !== undefined && current.expiration.getTime() <= now());
  const renew = async () => {
    current = await login();
    material = materialOf(current);
    stale = false;
  };
  return {
    async get() {
      while (expired()) await (running ??= renew().finally(() => (running = undefined)));
      return material;
    },
    expire(refused) {
      // the answer to a request sent before the last renewal says nothing of the current material
      if (refused === material) stale = true;
    },
  };
}

/** The cluster configuration of a first login, or the one line that says why it cannot be used. */
export function loginConfig(
  first: ConnectionInfo,
  login: () => Promise<ConnectionInfo>,
  source: string,
): ClusterConfig | string {
  let server: URL;
  try {
    server = new URL(first.server);
  } catch {
    return `${source}: the server ${JSON.stringify(first.server)} is not a URL`;
  }
  if (server.protocol !== 'https:' && server.protocol !== 'http:')
    return `${source}: the server ${first.server} is neither https nor http`;
  return {
    server,
    tls: {
      ...(first.ca === undefined ? {} : { ca: Buffer.from(first.ca) }),
      ...(first.insecure ? { rejectUnauthorized: false } : {}),
    },
    credentials: loginCredentials(first, login),
    namespace: first.namespace ?? 'default',
    source,
    context: 'login',
  };
}

/** Logs in through the registry's hooks: the configuration, or a line for the start's error. */
export async function loginClusterConfig(
  logins: readonly RegisteredLogin[],
  logger: Logger,
): Promise<ClusterConfig | string> {
  let retry = 0;
  const login = () => logIn(logins, { logger, retry: retry++ });
  let first: ConnectionInfo;
  try {
    first = await login();
  } catch (error) {
    return messageOf(error);
  }
  return loginConfig(first, login, `login hook`);
}
