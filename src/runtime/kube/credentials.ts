/**
 * A kubeconfig user's credentials as request headers (and, from an exec plugin, a client certificate),
 * the way client-go's transport applies them:
 *  - client-certificate/-key: TLS, read once (kubeconfig.ts puts them on the connection);
 *  - token: `Authorization: Bearer`; tokenFile: the file re-read at most once a minute (client-go's
 *    cached token source; a projected service account token rotates under the operator);
 *  - username/password: basic auth;
 *  - exec: the plugin run with KUBERNETES_EXEC_INFO, its ExecCredential cached until its
 *    expirationTimestamp (none: for the process' life), as client-go's exec authenticator;
 *  - auth-provider oidc: its id-token; gcp and azure (removed from kubectl 1.26) are refused;
 *  - `as`, `as-groups`: impersonation headers.
 */
import { isAbsolute, join } from 'node:path';
import { isPlainObject } from '../json.js';
import { messageOf } from '../error-message.js';

/** What one request carries: headers, and a client certificate when a plugin gave one. */
export interface AuthMaterial {
  headers: Record<string, string>;
  cert?: Buffer;
  key?: Buffer;
}

export interface Credentials {
  /** The current headers; may read a file or run the exec plugin (then cached as described above). */
  get(): Promise<AuthMaterial>;
  /**
   * The API server refused `refused` (401): if it is still the current material, the next `get()` gets new
   * (a login hook logs in again, login-credentials.ts); a refusal of material already renewed changes
   * nothing. Absent: nothing to renew, the refusal stands.
   */
  expire?(refused: AuthMaterial): void;
}

/** Reads `<key>-data` or the file `<key>` of the user entry: bytes, nothing, or a problem. */
export type ReadBytes = (key: string, what: string) => Buffer | undefined | string;

/** A user entry of a kubeconfig: its name, its `user:` mapping, and the directory of its file. */
export interface UserEntry {
  name: string;
  body: Record<string, unknown>;
  dir: string;
}

const TOKEN_FILE_TTL_MS = 60_000;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

export interface UserCredentials {
  credentials: Credentials;
  cert?: Buffer;
  key?: Buffer;
}

function impersonation(body: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  const as = text(body.as);
  if (as !== undefined) headers['Impersonate-User'] = as;
  const groups = Array.isArray(body['as-groups']) ? body['as-groups'].filter((g) => typeof g === 'string') : [];
  // node joins an array header's values into one comma-separated line, which the API server splits again
  if (groups.length) headers['Impersonate-Group'] = groups.join(', ');
  return headers;
}

const fixed = (material: AuthMaterial): Credentials => ({ get: () => Promise.resolve(material) });

/** The credentials of one user entry, or a problem naming the user. */
export function credentialsOf(user: UserEntry, read: ReadBytes): UserCredentials | string {
  const body = user.body;
  const base = impersonation(body);
  const cert = read('client-certificate', 'client certificate');
  if (typeof cert === 'string') return cert;
  const key = read('client-key', 'client key');
  if (typeof key === 'string') return key;
  if ((cert === undefined) !== (key === undefined))
    return `the user ${user.name} has a client certificate without its key, or a key without its certificate`;
  const tls = { cert, key };
  const token = text(body.token);
  if (token !== undefined)
    return { ...tls, credentials: fixed({ headers: { ...base, Authorization: `Bearer ${token}` } }) };
  const tokenFile = text(body.tokenFile) ?? text(body['token-file']);
  if (tokenFile !== undefined) {
    return { ...tls, credentials: fileToken(isAbsolute(tokenFile) ? tokenFile : join(user.dir, tokenFile), base) };
  }
  const username = text(body.username);
  if (username !== undefined) {
    const basic = Buffer.from(`${username}:${typeof body.password === 'string' ? body.password : ''}`).toString(
      'base64',
    );
    return { ...tls, credentials: fixed({ headers: { ...base, Authorization: `Basic ${basic}` } }) };
  }
  if (isPlainObject(body.exec)) {
    const plugin = execPlugin(user.name, body.exec, base);
    return typeof plugin === 'string' ? plugin : { ...tls, credentials: plugin };
  }
  const provider = body['auth-provider'];
  if (isPlainObject(provider)) {
    const name = text(provider.name) ?? '?';
    const config = isPlainObject(provider.config) ? provider.config : {};
    const idToken = text(config['id-token']);
    if (name === 'oidc' && idToken !== undefined)
      return { ...tls, credentials: fixed({ headers: { ...base, Authorization: `Bearer ${idToken}` } }) };
    return (
      `the user ${user.name} authenticates with the auth-provider ${name}, which kopfgen does not support ` +
      '(kubectl removed gcp and azure in 1.26): use an exec credential plugin (gke-gcloud-auth-plugin, kubelogin)'
    );
  }
  return { ...tls, credentials: fixed({ headers: base }) };
}

/** A token file, re-read when a minute has passed since the last read. */
function fileToken(file: string, base: Record<string, string>): Credentials {
  let cached: { token: string; at: number } | undefined;
  return {
    async get() {
      if (!cached || Date.now() - cached.at > TOKEN_FILE_TTL_MS) {
        const { readFile } = await import('node:fs/promises');
        const token = (await readFile(file, 'utf8')).trim();
        cached = { token, at: Date.now() };
      }
      return { headers: { ...base, Authorization: `Bearer ${cached.token}` } };
    },
  };
}

interface ExecConfig {
  command: string;
  args: string[];
  env: Record<string, string>;
  apiVersion: string;
  installHint?: string;
}

function execConfig(user: string, exec: Record<string, unknown>): ExecConfig | string {
  const command = text(exec.command);
  if (command === undefined) return `the exec plugin of the user ${user} names no command`;
  const args = Array.isArray(exec.args) ? exec.args.map(String) : [];
  const env: Record<string, string> = {};
  if (Array.isArray(exec.env))
    for (const item of exec.env)
      if (isPlainObject(item) && typeof item.name === 'string') env[item.name] = String(item.value ?? '');
  const apiVersion = text(exec.apiVersion) ?? 'client.authentication.k8s.io/v1';
  return { command, args, env, apiVersion, installHint: text(exec.installHint) };
}

/** The ExecCredential a plugin printed: headers and certificate, and until when they hold (ms). */
export function readExecCredential(
  output: string,
  base: Record<string, string>,
): { material: AuthMaterial; expires: number } | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    return 'printed no ExecCredential (not JSON)';
  }
  const status = isPlainObject(parsed) && isPlainObject(parsed.status) ? parsed.status : undefined;
  if (!status) return 'printed an ExecCredential without status';
  const token = text(status.token);
  const cert = text(status.clientCertificateData);
  const key = text(status.clientKeyData);
  if (token === undefined && (cert === undefined || key === undefined))
    return 'printed an ExecCredential with neither a token nor a client certificate and key';
  const headers = token === undefined ? { ...base } : { ...base, Authorization: `Bearer ${token}` };
  const expiry = text(status.expirationTimestamp);
  const expires = expiry === undefined ? Number.POSITIVE_INFINITY : Date.parse(expiry);
  const material: AuthMaterial = { headers };
  if (cert !== undefined && key !== undefined) {
    material.cert = Buffer.from(cert);
    material.key = Buffer.from(key);
  }
  return { material, expires: Number.isNaN(expires) ? 0 : expires };
}

function execPlugin(user: string, exec: Record<string, unknown>, base: Record<string, string>): Credentials | string {
  const config = execConfig(user, exec);
  if (typeof config === 'string') return config;
  let cached: { material: AuthMaterial; expires: number } | undefined;
  let running: Promise<AuthMaterial> | undefined;
  const run = async (): Promise<AuthMaterial> => {
    const { execFile } = await import('node:child_process');
    const info = JSON.stringify({
      apiVersion: config.apiVersion,
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        config.command,
        config.args,
        { env: { ...process.env, ...config.env, KUBERNETES_EXEC_INFO: info }, timeout: 60_000, maxBuffer: 1 << 20 },
        (error, stdout, stderr) => {
          if (!error) return resolve(stdout);
          const hint = config.installHint ? ` (${config.installHint.trim()})` : '';
          const why = (error as { code?: unknown }).code === 'ENOENT' ? 'not found' : stderr.trim() || messageOf(error);
          reject(new Error(`the exec plugin ${config.command} of the user ${user} failed: ${why}${hint}`));
        },
      );
    });
    const credential = readExecCredential(output, base);
    if (typeof credential === 'string')
      throw new Error(`the exec plugin ${config.command} of the user ${user} ${credential}`);
    cached = credential;
    return credential.material;
  };
  return {
    get() {
      // client-go refreshes a little before expiry; ten seconds of margin for the request in flight
      if (cached && cached.expires - 10_000 > Date.now()) return Promise.resolve(cached.material);
      running ??= run().finally(() => (running = undefined));
      return running;
    },
  };
}
