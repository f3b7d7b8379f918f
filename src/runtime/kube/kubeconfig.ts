/**
 * Where the API server is and how to reach it: the kubeconfig as client-go reads it, without
 * @kubernetes/client-node (whose config module alone loads its whole generated API: ~65 MB of an
 * operator's memory, measured by `npm run bench`).
 *
 * Which files (client-go's loading rules): `--kubeconfig`; else every file of KUBECONFIG (`:`-separated,
 * missing ones skipped) merged, the first file to set a name or `current-context` winning; else
 * `~/.kube/config`; else the in-cluster service account (KUBERNETES_SERVICE_HOST/PORT and the token,
 * CA and namespace files under /var/run/secrets/kubernetes.io/serviceaccount). Relative paths in a file
 * are relative to its directory. Of a cluster: server, certificate-authority(-data),
 * insecure-skip-tls-verify, tls-server-name; of a user: client-certificate(-data), client-key(-data),
 * token, tokenFile, username/password, exec plugins, `as`/`as-groups` (impersonation), and an `oidc`
 * auth-provider's id-token (not refreshed: kubelogin as an exec plugin refreshes). Refused with a
 * reason, never ignored: proxy-url and the removed gcp/azure auth-providers.
 *
 * Reading is a plan of values: `readKubeconfig` returns the ClusterConfig or one line saying what is
 * wrong; nothing is thrown. The YAML parser is loaded only for a file that is not JSON.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { isPlainObject } from '../json.js';
import { credentialsOf, type Credentials } from './credentials.js';
import { messageOf } from '../error-message.js';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** How to reach one API server: what KubeClient needs. */
export interface ClusterConfig {
  server: URL;
  /** TLS settings of the connection (the server's CA, the client's certificate, verification). */
  tls: TlsSettings;
  /** Auth headers (and an exec plugin's client certificate), asked for before requests; cached inside. */
  credentials: Credentials;
  /** The context's namespace (default `default`); the operator still watches all namespaces unless `-n`. */
  namespace: string;
  /** What the configuration came from, for messages: a file, `KUBECONFIG`, or `in-cluster`. */
  source: string;
  /** The context's name (`in-cluster` for the service account). */
  context: string;
}

export interface TlsSettings {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  /** false: insecure-skip-tls-verify. */
  rejectUnauthorized?: boolean;
  servername?: string;
}

export interface KubeconfigOptions {
  /** `--kubeconfig`: this file only. */
  file?: string;
  /** A context other than `current-context`. */
  context?: string;
  /** Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Default: os.homedir(). */
  home?: string;
  /** Default: SERVICE_ACCOUNT_DIR. */
  serviceAccountDir?: string;
}

export type KubeconfigResult = { config: ClusterConfig } | { problem: string };

/** One kubeconfig file's document, with the directory its relative paths start from. */
interface LoadedFile {
  file: string;
  dir: string;
  document: Record<string, unknown>;
}

/** A named entry (cluster, user, context) with the directory of the file it came from. */
interface Entry {
  name: string;
  body: Record<string, unknown>;
  dir: string;
}

interface Merged {
  clusters: Map<string, Entry>;
  users: Map<string, Entry>;
  contexts: Map<string, Entry>;
  currentContext?: string;
}

/**
 * Parses one kubeconfig text. JSON is read by JSON.parse; anything else by the `yaml` package, loaded
 * here on first use (a JSON file, or the in-cluster config, never loads it), synchronously through
 * its CommonJS build so that reading a kubeconfig stays a plain function call.
 */
function parseDocument(text: string): unknown {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed);
    } catch {
      // not JSON after all: YAML's flow style can start with `{` too
    }
  }
  const loadYaml = createRequire(import.meta.url);
  const yaml: typeof import('yaml') = loadYaml('yaml');
  return yaml.parse(text);
}

function loadFile(file: string): LoadedFile | string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return `cannot read the kubeconfig ${file}: ${messageOf(error)}`;
  }
  let document: unknown;
  try {
    document = parseDocument(text);
  } catch (error) {
    return `the kubeconfig ${file} is not valid YAML: ${messageOf(error).split('\n')[0]}`;
  }
  if (document === null || document === undefined) document = {};
  if (!isPlainObject(document)) return `the kubeconfig ${file} is not a mapping`;
  return { file, dir: dirname(file), document };
}

/** client-go's merge: the first file to set a name (or current-context) wins. */
function merge(files: LoadedFile[]): Merged | string {
  const merged: Merged = { clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const { file, dir, document } of files) {
    for (const [key, into, inner] of [
      ['clusters', merged.clusters, 'cluster'],
      ['users', merged.users, 'user'],
      ['contexts', merged.contexts, 'context'],
    ] as const) {
      const list = document[key];
      if (list === undefined || list === null) continue;
      if (!Array.isArray(list)) return `${file}: ${key} is not a list`;
      for (const [index, item] of list.entries()) {
        if (!isPlainObject(item) || typeof item.name !== 'string' || item.name === '')
          return `${file}: ${key}[${index}] has no name`;
        const body = item[inner] ?? {};
        if (!isPlainObject(body)) return `${file}: ${key}[${index}].${inner} is not a mapping`;
        if (!into.has(item.name)) into.set(item.name, { name: item.name, body, dir });
      }
    }
    const current = document['current-context'];
    if (merged.currentContext === undefined && typeof current === 'string' && current !== '')
      merged.currentContext = current;
  }
  return merged;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function pathIn(dir: string, file: string): string {
  return isAbsolute(file) ? file : join(dir, file);
}

/** The bytes of `<key>-data` (base64) or of the file `<key>` names, or a problem. */
function bytesOf(entry: Entry, key: string, what: string): Buffer | undefined | string {
  const data = text(entry.body[`${key}-data`]);
  if (data !== undefined) return Buffer.from(data, 'base64');
  const file = text(entry.body[key]);
  if (file === undefined) return undefined;
  try {
    return readFileSync(pathIn(entry.dir, file));
  } catch (error) {
    return `cannot read the ${what} of ${entry.name}: ${messageOf(error)}`;
  }
}

/** The ClusterConfig of one context of merged files. */
function fromMerged(merged: Merged, source: string, contextName: string | undefined): KubeconfigResult {
  const name = contextName ?? merged.currentContext;
  if (name === undefined) return { problem: `${source}: no current-context is set (kubectl config use-context)` };
  const context = merged.contexts.get(name);
  if (!context) {
    const known = [...merged.contexts.keys()].join(', ') || 'none';
    return { problem: `no context ${name} in the kubeconfig (contexts: ${known})` };
  }
  const clusterName = text(context.body.cluster);
  const cluster = clusterName === undefined ? undefined : merged.clusters.get(clusterName);
  if (!cluster) return { problem: `${source}: the context ${name} names no known cluster (${clusterName ?? 'none'})` };
  const userName = text(context.body.user);
  const user = userName === undefined ? undefined : merged.users.get(userName);
  if (userName !== undefined && !user)
    return { problem: `${source}: the context ${name} names no known user ${userName}` };
  const server = text(cluster.body.server);
  if (server === undefined) return { problem: `${source}: the cluster ${cluster.name} has no server` };
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return { problem: `${source}: the server of the cluster ${cluster.name} is not a URL: ${server}` };
  }
  if (text(cluster.body['proxy-url']) !== undefined)
    return { problem: `${source}: the cluster ${cluster.name} sets proxy-url, which kopfgen does not support` };
  const tls: TlsSettings = {};
  const ca = bytesOf(cluster, 'certificate-authority', 'certificate authority');
  if (typeof ca === 'string') return { problem: `${source}: ${ca}` };
  tls.ca = ca;
  if (cluster.body['insecure-skip-tls-verify'] === true) tls.rejectUnauthorized = false;
  tls.servername = text(cluster.body['tls-server-name']);
  const credentials = credentialsOf(user ?? { name: '', body: {}, dir: cluster.dir }, (key, what) =>
    user ? bytesOf(user, key, what) : undefined,
  );
  if (typeof credentials === 'string') return { problem: `${source}: ${credentials}` };
  tls.cert = credentials.cert;
  tls.key = credentials.key;
  return {
    config: {
      server: url,
      tls,
      credentials: credentials.credentials,
      namespace: text(context.body.namespace) ?? 'default',
      source,
      context: name,
    },
  };
}

/** The in-cluster configuration (client-go's rest.InClusterConfig), or why there is none. */
export function inClusterConfig(
  env: Record<string, string | undefined>,
  dir: string = SERVICE_ACCOUNT_DIR,
): KubeconfigResult {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port)
    return { problem: 'not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set' };
  const tokenFile = join(dir, 'token');
  if (!existsSync(tokenFile)) return { problem: `in a cluster, but no service account token at ${tokenFile}` };
  let ca: Buffer | undefined;
  try {
    ca = readFileSync(join(dir, 'ca.crt'));
  } catch (error) {
    return { problem: `in a cluster, but the service account's CA cannot be read: ${messageOf(error)}` };
  }
  let namespace = 'default';
  try {
    namespace = readFileSync(join(dir, 'namespace'), 'utf8').trim() || namespace;
  } catch {
    // no namespace file: client-go falls back to "default" too
  }
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const entry: Entry = { name: 'in-cluster', body: { tokenFile }, dir };
  const credentials = credentialsOf(entry, () => undefined);
  if (typeof credentials === 'string') return { problem: credentials };
  return {
    config: {
      server: new URL(`https://${hostPart}:${port}`),
      tls: { ca },
      credentials: credentials.credentials,
      namespace,
      source: 'in-cluster',
      context: 'in-cluster',
    },
  };
}

/**
 * The configuration `kopfgen run` and `generate --from-cluster` use: `--kubeconfig`, KUBECONFIG,
 * ~/.kube/config, or in-cluster, in that order (client-go's), or one line saying why there is none.
 */
export function readKubeconfig(options: KubeconfigOptions = {}): KubeconfigResult {
  const env = options.env ?? process.env;
  let files: string[];
  let source: string;
  if (options.file !== undefined) {
    files = [options.file];
    source = options.file;
  } else if (env.KUBECONFIG) {
    const listed = env.KUBECONFIG.split(delimiter).filter((file) => file !== '');
    files = listed.filter((file) => existsSync(file));
    source = listed.length === 1 ? listed[0] : `KUBECONFIG (${listed.join(delimiter)})`;
    if (files.length === 0) return { problem: `no file of KUBECONFIG exists: ${env.KUBECONFIG}` };
  } else {
    const home = join(options.home ?? homedir(), '.kube', 'config');
    if (existsSync(home)) {
      files = [home];
      source = home;
    } else {
      const inCluster = inClusterConfig(env, options.serviceAccountDir);
      if ('config' in inCluster || env.KUBERNETES_SERVICE_HOST) return inCluster;
      return {
        problem: `no kubeconfig: KUBECONFIG is not set, ${home} does not exist, and this is not a cluster's pod (--kubeconfig names one)`,
      };
    }
  }
  const loaded: LoadedFile[] = [];
  for (const file of files) {
    const one = loadFile(file);
    if (typeof one === 'string') return { problem: one };
    loaded.push(one);
  }
  const merged = merge(loaded);
  if (typeof merged === 'string') return { problem: merged };
  return fromMerged(merged, source, options.context);
}

/**
 * A configuration from a kubeconfig document held in memory (tests, tools that write one): the same
 * reading as a file's, relative paths from `dir`.
 */
export function kubeconfigFromDocument(document: unknown, dir = process.cwd(), context?: string): KubeconfigResult {
  if (!isPlainObject(document)) return { problem: 'the kubeconfig is not a mapping' };
  const merged = merge([{ file: '<kubeconfig>', dir, document }]);
  if (typeof merged === 'string') return { problem: merged };
  return fromMerged(merged, '<kubeconfig>', context);
}
