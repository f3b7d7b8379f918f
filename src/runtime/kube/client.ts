/**
 * A thin HTTP layer over the Kubernetes API, configured by a ClusterConfig (kubeconfig.ts: KUBECONFIG,
 * ~/.kube/config or in-cluster; TLS settings and credentials). Plain requests do merge patches of any
 * resource and streaming watches with our own relist control, over one keep-alive agent.
 */
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { createSecureContext } from 'node:tls';
import type { ResourceDescriptor } from '../api/define.js';
import { isPlainObject } from '../json.js';
import type { AuthMaterial } from './credentials.js';
import type { WriteFence } from './fence.js';
import { readKubeconfig, type ClusterConfig } from './kubeconfig.js';

export class KubeError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'KubeError';
  }
}

/** One API call as the metrics count it: verb (GET, LIST-less methods, WATCH), status (undefined: no answer), seconds. */
export interface RequestRecord {
  verb: string;
  code: number | undefined;
  seconds: number;
}

/** kopfgen's version, as the User-Agent names it (`kopfgen --version` prints it). */
export const KOPFGEN_VERSION = '0.1.0';

/** Who the requests name as their author: the User-Agent header and the field manager of every write. */
export interface Identity {
  /** The operator's name, in the User-Agent after kopfgen's own (client-go: `binary/version (os/arch)`). */
  operator?: string;
  /** The `fieldManager` of every create, update and patch that names none (`managedFields` shows it). */
  fieldManager?: string;
}

/**
 * What forks of one client share: the keep-alive agent (and the client certificate it was made with), the
 * observer, the identity.
 */
interface Connection {
  agent?: http.Agent;
  agentCert?: Buffer;
  /** Sockets the agent opens to the server at most (a dedicated connection needs few). */
  maxSockets?: number;
  observer?: (record: RequestRecord) => void;
  /** The credentials the last request used (`requestSync` has no time to ask for fresh ones). */
  material?: AuthMaterial;
  identity?: Identity;
}

/** The User-Agent of every request: kopfgen, its version, the operator's name when given. */
export function userAgent(identity: Identity | undefined): string {
  const operator = identity?.operator?.replace(/[^\x21-\x7e ]/g, '');
  return `kopfgen/${KOPFGEN_VERSION}${operator ? ` (${operator})` : ''}`;
}

/** Methods whose request takes a `fieldManager` (create, update, patch; not delete). */
const MANAGED = new Set(['POST', 'PUT', 'PATCH']);

/**
 * The child process `requestSync` runs: one HTTP(S) request described on stdin (JSON), its status on
 * stdout. Plain Node, no module of ours: it must start fast and cannot fail to load.
 */
const SYNC_REQUEST_SCRIPT = `
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c)).on('end', () => {
  const r = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const b = (v) => (v === undefined ? undefined : Buffer.from(v, 'base64'));
  const transport = require(r.url.startsWith('https:') ? 'https' : 'http');
  const req = transport.request(r.url, {
    method: r.method, headers: r.headers, ca: b(r.ca), cert: b(r.cert), key: b(r.key),
    rejectUnauthorized: r.rejectUnauthorized, servername: r.servername, timeout: r.timeoutMs,
  }, (res) => { res.resume(); res.on('end', () => { process.stdout.write(String(res.statusCode)); }); });
  req.on('timeout', () => req.destroy(new Error('timeout')));
  req.on('error', (e) => { process.stdout.write('0 ' + e.message); });
  req.end(r.body);
});`;

const READS = new Set(['GET', 'HEAD']);

/**
 * A write refused before it left the process: this replica no longer leads (the write fence of a
 * term, see `KubeClient.fenced`). Reads still pass; nothing the cluster holds changes.
 */
export class FencedError extends KubeError {
  constructor(
    method: string,
    path: string,
    /** Why the term ended. */
    readonly reason: string,
    /** The request had been sent and was aborted unanswered when the term ended (it may have arrived). */
    readonly sent = false,
  ) {
    // status 0: no answer to retry on; the write retry policy gives up on it at once
    super(`${method} ${path} ${sent ? 'aborted after it was sent' : 'not sent'}: ${reason}`, 0, undefined);
    this.name = 'FencedError';
  }
}

export interface RequestOptions {
  body?: unknown;
  contentType?: string;
  query?: Record<string, string | number | boolean | undefined>;
  timeoutMs?: number;
  /** Aborts the request, its socket destroyed (a handler's signal: its timeout, the operator's stop). */
  signal?: AbortSignal;
  /** The request is the retry after a 401 that renewed the credentials: a second 401 stands. */
  relogged?: boolean;
}

/** A response body as text; node delivers Buffers when no encoding is set. */
async function readText(stream: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** The default bound on one request's answer. */
export const REQUEST_TIMEOUT_MS = 30_000;

/** A write's timeout cut to its term's deadline is a multiple of this (never later than the deadline). */
const TIMEOUT_STEP_MS = 100;

export class KubeClient {
  readonly server: URL;
  private readonly connection: Connection;
  /** A fenced client's requests not answered yet: aborted, sockets and all, when its term ends. */
  private readonly inFlight = new Set<http.ClientRequest>();

  constructor(
    readonly config: ClusterConfig,
    connection: Connection = {},
    private readonly fence?: WriteFence,
  ) {
    this.server = config.server;
    this.connection = connection;
    fence?.signal.addEventListener('abort', () => this.abortInFlight(), { once: true });
  }

  /**
   * The same connection under a term's write fence (fence.ts): every request but GET/HEAD first asks the
   * fence and is refused with FencedError when it names a reason; a write waits for its answer at most
   * until the fence's deadline (the renew deadline of the lease); when the fence's signal aborts, every
   * request of this client still in flight, reads included, is aborted and its socket destroyed, so no
   * answer of the term is acted on after it and no byte of it still waits in a socket of ours. A leader's
   * term writes through such a client, whatever a handler still does (client-go stops its controllers; a
   * JavaScript handler cannot be stopped, only refused). A client a typed handler API builds on this one
   * inherits all of it.
   */
  fenced(fence: WriteFence): KubeClient {
    return new KubeClient(this.config, this.connection, fence);
  }

  /**
   * The same server and credentials over a connection of its own: another keep-alive agent with at most
   * `maxSockets` sockets, the same observer and identity. The lease renewal talks through one, so requests
   * of handlers that fill the shared agent's sockets (or wait in its queue) can never delay a renewal past
   * its deadline (client-go builds the leader election's client from its own rest config for the same
   * reason).
   */
  dedicated(maxSockets = 2): KubeClient {
    const { observer, identity } = this.connection;
    return new KubeClient(this.config, { observer, identity, maxSockets }, this.fence);
  }

  /** Names the operator in every request of this client and its forks (User-Agent, field manager). */
  identify(identity: Identity): void {
    this.connection.identity = identity;
  }

  /** The field manager writes are attributed to when they name none (undefined: the server's default). */
  get fieldManager(): string | undefined {
    return this.connection.identity?.fieldManager;
  }

  private abortInFlight(): void {
    const reason = this.fence?.refuse() ?? 'the term ended';
    for (const req of this.inFlight) req.destroy(new FencedError(req.method, req.path, reason, true));
    this.inFlight.clear();
  }

  /**
   * Why a request must not be sent, and the timeout it gets: reads pass with theirs; a write is refused
   * when the fence names a reason or its deadline has passed, and otherwise waits at most until the deadline.
   */
  private admit(method: string, options: RequestOptions): { refused?: string; timeoutMs: number } {
    const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
    if (!this.fence) return { timeoutMs };
    if (this.fence.signal.aborted) return { refused: this.fence.refuse() ?? 'the term ended', timeoutMs };
    if (READS.has(method)) return { timeoutMs };
    const refused = this.fence.refuse();
    if (refused !== undefined) return { refused, timeoutMs };
    const left = this.fence.deadline() - performance.now();
    if (left <= 0) return { refused: 'the term has no time left to write (its renew deadline passed)', timeoutMs };
    if (left >= timeoutMs) return { timeoutMs };
    // Cut to the deadline in steps of TIMEOUT_STEP_MS: Node keeps one timer list per duration, and a
    // distinct duration for every request would cost a list each.
    return { timeoutMs: Math.max(1, Math.floor(left / TIMEOUT_STEP_MS) * TIMEOUT_STEP_MS) };
  }

  /** Why a request with `method` would be refused by the term's fence now, or undefined when it would be sent. */
  refusal(method: string): string | undefined {
    return this.admit(method, {}).refused;
  }

  /** Every request and watch is reported here (the metrics' API request counters). */
  observe(observer: (record: RequestRecord) => void): void {
    this.connection.observer = observer;
  }

  private report(verb: string, code: number | undefined, started: number): void {
    this.connection.observer?.({ verb, code, seconds: (performance.now() - started) / 1000 });
  }

  /**
   * One keep-alive agent with the kubeconfig's TLS settings, made again only when an exec plugin hands
   * out a new client certificate (the old agent's connections, watches among them, finish on their own).
   */
  private agentFor(material: AuthMaterial): http.Agent {
    const connection = this.connection;
    const cert = material.cert ?? this.config.tls.cert;
    if (connection.agent && connection.agentCert === cert) return connection.agent;
    connection.agentCert = cert;
    const maxSockets = connection.maxSockets ?? 64;
    if (this.server.protocol !== 'https:') return (connection.agent = new http.Agent({ keepAlive: true, maxSockets }));
    const { ca, key, rejectUnauthorized, servername } = this.config.tls;
    const keys = { ca, cert, key: material.key ?? key };
    // One TLS context for every connection of the agent: without it, each new socket parses the CA,
    // certificate and key again (in a CPU profile of the children bench, 64 sockets: ~8% of the operator's CPU).
    const tls: https.AgentOptions = { keepAlive: true, maxSockets, ...keys, secureContext: createSecureContext(keys) };
    if (rejectUnauthorized !== undefined) tls.rejectUnauthorized = rejectUnauthorized;
    if (servername !== undefined) tls.servername = servername;
    return (connection.agent = new https.Agent(tls));
  }

  /** KUBECONFIG, ~/.kube/config or in-cluster (kubeconfig.ts); throws the one line that says why not. */
  static async fromDefault(): Promise<KubeClient> {
    const read = readKubeconfig();
    if ('problem' in read) throw new Error(read.problem);
    return new KubeClient(read.config);
  }

  /** Auth headers and the agent for the next request (credentials.ts caches and refreshes them). */
  private async auth(): Promise<{ headers: Record<string, string>; agent: http.Agent; material: AuthMaterial }> {
    const material = await this.config.credentials.get();
    this.connection.material = material;
    return { headers: material.headers, agent: this.agentFor(material), material };
  }

  /**
   * One write made synchronously, for the process's last moments (an `exit` listener cannot wait for
   * I/O): a child process sends it with the credentials of the last request, under the same fence and
   * at most `timeoutMs`. Returns the HTTP status, or 0 and why when there was no answer; never throws.
   */
  requestSync(
    method: string,
    path: string,
    options: { body: unknown; contentType: string; timeoutMs?: number },
  ): { status: number; problem?: string } {
    const { refused } = this.admit(method, options);
    if (refused !== undefined) return { status: 0, problem: `not sent: ${refused}` };
    const material = this.connection.material;
    if (!material) return { status: 0, problem: 'not sent: no request has been made yet' };
    const base64 = (value: Buffer | string | undefined) =>
      value === undefined ? undefined : Buffer.from(value).toString('base64');
    const { ca, rejectUnauthorized, servername } = this.config.tls;
    const timeoutMs = options.timeoutMs ?? 5000;
    const identity = this.connection.identity;
    const manager = MANAGED.has(method) ? identity?.fieldManager : undefined;
    const request = {
      url: this.url(path, { fieldManager: manager }).href,
      method,
      headers: {
        ...material.headers,
        Accept: 'application/json',
        'Content-Type': options.contentType,
        'User-Agent': userAgent(identity),
      },
      body: JSON.stringify(options.body),
      ca: base64(ca),
      cert: base64(material.cert ?? this.config.tls.cert),
      key: base64(material.key ?? this.config.tls.key),
      rejectUnauthorized,
      servername,
      timeoutMs,
    };
    const child = spawnSync(process.execPath, ['-e', SYNC_REQUEST_SCRIPT], {
      input: JSON.stringify(request),
      encoding: 'utf8',
      timeout: timeoutMs + 2000,
    });
    const [status, ...why] = (child.stdout ?? '').split(' ');
    const code = Number(status) || 0;
    this.connection.observer?.({ verb: method, code: code || undefined, seconds: 0 });
    return code ? { status: code } : { status: 0, problem: why.join(' ') || String(child.error ?? 'no answer') };
  }

  /** The Authorization header the requests carry (startup checks read a service account token's subject). */
  async authorization(): Promise<string | undefined> {
    return (await this.config.credentials.get()).headers.Authorization;
  }

  url(path: string, query: RequestOptions['query'] = {}): URL {
    const url = new URL(this.server.pathname.replace(/\/$/, '') + path, this.server);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    return url;
  }

  private async open(
    method: string,
    path: string,
    options: RequestOptions,
  ): Promise<{ req: http.ClientRequest; res: Promise<http.IncomingMessage>; material: AuthMaterial }> {
    const identity = this.connection.identity;
    const manager =
      MANAGED.has(method) && options.query?.fieldManager === undefined ? identity?.fieldManager : undefined;
    const url = this.url(path, manager === undefined ? options.query : { ...options.query, fieldManager: manager });
    const auth = await this.auth();
    const headers: Record<string, string> = {
      ...auth.headers,
      Accept: 'application/json',
      'User-Agent': userAgent(identity),
    };
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    if (payload) {
      headers['Content-Type'] = options.contentType ?? 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    const transport = url.protocol === 'https:' ? https : http;
    let answered: (res: http.IncomingMessage) => void = () => undefined;
    const req = transport.request(url, { method, headers, agent: auth.agent }, (res) => answered(res));
    const res = new Promise<http.IncomingMessage>((resolve, reject) => {
      answered = resolve;
      req.on('error', reject);
    });
    if (options.timeoutMs)
      req.setTimeout(options.timeoutMs, () =>
        req.destroy(new Error(`${method} ${url.pathname}: no answer within ${options.timeoutMs} ms`)),
      );
    if (this.fence) {
      // tracked until its caller is done with it (request, stream: `finally`), no listener per request
      this.inFlight.add(req);
      // the term may have ended while the credentials were read
      if (this.fence.signal.aborted) this.abortInFlight();
    }
    req.end(payload);
    return { req, res, material: auth.material };
  }

  /** One request; non-2xx answers throw KubeError with the status and the server's message. */
  async request<T = Record<string, unknown>>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const { refused, timeoutMs } = this.admit(method, options);
    if (refused !== undefined) throw new FencedError(method, path, refused);
    const started = performance.now();
    let response: http.IncomingMessage;
    let text: string;
    let opened: http.ClientRequest | undefined;
    let material: AuthMaterial | undefined;
    const signal = options.signal;
    const abort = () => opened?.destroy(new Error(`${method} ${path}: aborted (${String(signal?.reason)})`));
    try {
      const { req, res, material: used } = await this.open(method, path, { ...options, timeoutMs });
      opened = req;
      material = used;
      if (signal?.aborted) abort();
      else signal?.addEventListener('abort', abort, { once: true });
      response = await res;
      text = await readText(response);
    } catch (error) {
      this.report(method, undefined, started);
      throw error;
    } finally {
      if (opened) this.inFlight.delete(opened);
      signal?.removeEventListener('abort', abort);
    }
    this.report(method, response.statusCode, started);
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON (a proxy's or load balancer's page): keep the text for the message
    }
    const status = response.statusCode ?? 0;
    if (status === 401 && this.config.credentials.expire && material && !options.relogged) {
      // Refused credentials (an expired token): renewed once, the request sent again (kopf re-logs in on 401).
      this.config.credentials.expire(material);
      return this.request<T>(method, path, { ...options, relogged: true });
    }
    if (status < 200 || status >= 300) {
      const message = isPlainObject(body) && 'message' in body ? String(body.message) : text.slice(0, 200);
      const retryAfter = Number(response.headers['retry-after']);
      throw new KubeError(
        `${method} ${path}: ${status} ${message}`,
        status,
        body,
        Number.isFinite(retryAfter) ? retryAfter : undefined,
      );
    }
    return body as T;
  }

  /**
   * A streaming GET (watch): calls `onLine` per JSON line until the server ends the stream,
   * the connection drops, or `signal` aborts. Resolves on a clean end, rejects on errors.
   * `idleMs` bounds the silence, from the request on: no answer, or no byte of the stream (event,
   * bookmark, or the server's own end) for that long destroys the request (client-go's watch
   * relies on HTTP/2 pings every ~45 s for this; over HTTP/1.1 a read timeout is the way).
   * `onOpen` is called once the server answered 200.
   */
  async stream(
    path: string,
    query: RequestOptions['query'],
    onLine: (line: unknown) => void,
    signal: AbortSignal,
    idleMs: number,
    onOpen?: () => void,
  ): Promise<void> {
    const started = performance.now();
    const { req, res, material } = await this.open('GET', path, { query });
    const abort = () => req.destroy(new Error('aborted'));
    signal.addEventListener('abort', abort, { once: true });
    // The response stream fails with its own 'aborted' error: the reason is kept to be thrown instead.
    let idle: Error | undefined;
    req.setTimeout(idleMs, () => {
      idle = new Error(`watch ${path}: nothing received for ${idleMs / 1000} s`);
      req.destroy(idle);
    });
    try {
      const response = await res.catch((error: unknown) => {
        this.report('WATCH', undefined, started);
        throw error;
      });
      this.report('WATCH', response.statusCode, started);
      if ((response.statusCode ?? 0) >= 300) {
        const status = response.statusCode ?? 0;
        // the watcher reopens after its backoff, with renewed credentials
        if (status === 401) this.config.credentials.expire?.(material);
        throw new KubeError(`watch ${path}: ${response.statusCode}`, status, await readText(response));
      }
      onOpen?.();
      let buffered = '';
      const chunks: AsyncIterable<Buffer> = response;
      for await (const chunk of chunks) {
        buffered += chunk.toString('utf8');
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          if (line) onLine(JSON.parse(line));
        }
      }
      if (!response.complete) throw new Error(`watch ${path}: connection closed mid-stream`);
    } catch (error) {
      req.destroy(); // also when onLine threw (410 Gone): do not leave the stream open
      throw idle ?? error;
    } finally {
      signal.removeEventListener('abort', abort);
      this.inFlight.delete(req);
    }
  }

  close(): void {
    this.connection.agent?.destroy();
  }
}

export function resourcePath(r: ResourceDescriptor, namespace?: string, name?: string, subresource?: string): string {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const ns = r.scope === 'Namespaced' && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const tail = name ? `/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}` : '';
  return `${base}${ns}/${r.plural}${tail}`;
}

/** `<plural>.<group>/<version>`, or `<plural>/<version>` in the core group (`configmaps/v1`). */
export function describe(r: ResourceDescriptor): string {
  return r.group ? `${r.plural}.${r.group}/${r.version}` : `${r.plural}/${r.version}`;
}
