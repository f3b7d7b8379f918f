/**
 * A fault-injecting HTTP proxy between the runtime and the real API server, for faults a
 * healthy server does not produce: dropped watches, `410 Gone`, 409/429/5xx answers, slow
 * answers, and requests held in the network: buffered whole and sent on only when the test
 * releases them, however long after the client gave up (bytes already handed to TCP). The
 * runtime talks plain HTTP to the proxy (a kubeconfig the proxy writes); the proxy talks to
 * the server with the real kubeconfig's TLS and credentials.
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { configFor } from './envtest.js';
import { tempDir } from './temp-dirs.js';

export interface Fault {
  method?: string;
  path?: RegExp;
  /** Only watch requests (`watch=1`), or only others. */
  watch?: boolean;
  /** How many matching requests it applies to (default 1). */
  times?: number;
  /** Answer with this status (and a Kubernetes Status body; 429 carries Retry-After: 1). */
  status?: number;
  /** For watches: answer 200 with one ERROR event of code 410, then end. */
  gone?: boolean;
  /** Hold the request this long before forwarding it. */
  delayMs?: number;
  /** Buffer the request and forward it only on `release()`, whether or not its client still waits. */
  hold?: boolean;
}

/** A request held by a `hold` fault. */
export interface Held {
  method: string;
  path: string;
  /** The body as the client sent it. */
  body: string;
  /** Since when (epoch ms). */
  at: number;
}

export interface Seen {
  method: string;
  path: string;
  status: number;
  fault?: string;
}

export class FaultProxy {
  readonly seen: Seen[] = [];
  private readonly faults: (Fault & { left: number })[] = [];
  private readonly watches = new Set<http.ServerResponse>();
  /** Watch streams whose bytes are held back (connection open, nothing forwarded). */
  private readonly upstreams = new Map<http.ServerResponse, http.IncomingMessage>();
  private frozen = false;
  private readonly holding: (Held & { release: () => Promise<number> })[] = [];
  private constructor(
    private readonly server: http.Server,
    private readonly upstream: URL,
    private readonly agent: https.Agent,
    private readonly headers: Record<string, string>,
    readonly kubeconfig: string,
  ) {}

  static async start(kubeconfigPath: string): Promise<FaultProxy> {
    const config = configFor(kubeconfigPath);
    const { headers } = await config.credentials.get();
    const { ca, cert, key, rejectUnauthorized } = config.tls;
    const agent = new https.Agent({ ca, cert, key, rejectUnauthorized, keepAlive: true });
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const file = join(tempDir('kopfgen-proxy-'), 'kubeconfig');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: proxy',
        `clusters: [{name: proxy, cluster: {server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]`,
        'users: [{name: proxy, user: {}}]',
        'contexts: [{name: proxy, context: {cluster: proxy, user: proxy}}]',
        '',
      ].join('\n'),
    );
    const proxy = new FaultProxy(server, config.server, agent, headers, file);
    server.on('request', (req, res) => void proxy.handle(req, res));
    return proxy;
  }

  inject(fault: Fault): void {
    this.faults.push({ ...fault, left: fault.times ?? 1 });
  }

  /** Cuts every open watch connection, as a network failure or an API server restart would. */
  dropWatches(): number {
    const count = this.watches.size;
    for (const res of this.watches) res.destroy();
    this.watches.clear();
    return count;
  }

  /**
   * Freezes every watch, open or opened from now on: the connections stay open, the server's bytes
   * (events, bookmarks, its end of the stream) are no longer forwarded, as a half-dead network path
   * or a hung load balancer would do. `thaw()` forwards watches opened after it again.
   */
  freezeWatches(): number {
    this.frozen = true;
    for (const [res, answer] of this.upstreams) answer.unpipe(res);
    return this.upstreams.size;
  }

  thaw(): void {
    this.frozen = false;
  }

  /** The requests held now, oldest first. */
  held(): Held[] {
    return this.holding.map(({ method, path, body, at }) => ({ method, path, body, at }));
  }

  /**
   * Sends the held requests `which` picks (default: all) on to the API server, as late bytes arriving;
   * resolves with the status the server answered each (its client, long gone, gets nothing).
   */
  async release(which: (held: Held) => boolean = () => true): Promise<number[]> {
    const chosen = this.holding.filter(which);
    for (const item of chosen) this.holding.splice(this.holding.indexOf(item), 1);
    return Promise.all(chosen.map((item) => item.release()));
  }

  private take(req: http.IncomingMessage, isWatch: boolean): Fault | undefined {
    const fault = this.faults.find(
      (f) =>
        f.left > 0 &&
        (!f.method || f.method === req.method) &&
        (!f.path || f.path.test(req.url ?? '')) &&
        (f.watch === undefined || f.watch === isWatch),
    );
    if (fault) fault.left--;
    return fault;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const isWatch = /[?&]watch=(1|true)/.test(url);
    const fault = this.take(req, isWatch);
    const record = (status: number, name?: string) =>
      this.seen.push({ method: req.method ?? '', path: url, status, fault: name });
    if (fault?.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault?.hold) return this.hold(req, res, url);
    if (fault?.gone) {
      req.resume();
      record(200, 'gone');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        `${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'too old resource version', reason: 'Expired', code: 410 } })}\n`,
      );
      return;
    }
    if (fault?.status) {
      req.resume();
      record(fault.status, String(fault.status));
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (fault.status === 429) headers['Retry-After'] = '1';
      res.writeHead(fault.status, headers);
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          message: `injected ${fault.status}`,
          code: fault.status,
        }),
      );
      return;
    }
    const headers = { ...req.headers, ...this.headers, host: this.upstream.host };
    const upstream = https.request(
      new URL(url, this.upstream),
      { method: req.method, headers, agent: this.agent },
      (answer) => {
        record(answer.statusCode ?? 0, fault?.delayMs ? 'slow' : undefined);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (isWatch) {
          this.watches.add(res);
          this.upstreams.set(res, answer);
          res.on('close', () => {
            this.watches.delete(res);
            this.upstreams.delete(res);
            answer.destroy();
          });
        }
        if (!(isWatch && this.frozen)) answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }

  /** Reads the whole request and keeps it until `release()`; then forwards it as it was sent. */
  private async hold(req: http.IncomingMessage, res: http.ServerResponse, url: string): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const headers = { ...req.headers, ...this.headers, host: this.upstream.host };
    const method = req.method ?? 'GET';
    const release = () =>
      new Promise<number>((resolve) => {
        const upstream = https.request(
          new URL(url, this.upstream),
          { method, headers, agent: this.agent },
          (answer) => {
            const status = answer.statusCode ?? 0;
            this.seen.push({ method, path: url, status, fault: 'held' });
            if (res.writable && !res.headersSent) {
              res.writeHead(status, answer.headers);
              answer.pipe(res);
            } else answer.resume();
            resolve(status);
          },
        );
        upstream.on('error', () => {
          res.destroy();
          resolve(0);
        });
        upstream.end(body);
      });
    this.holding.push({ method, path: url, body: body.toString('utf8'), at: Date.now(), release });
  }

  async close(): Promise<void> {
    this.holding.splice(0); // never sent: the server goes away with the test
    this.dropWatches();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
    this.agent.destroy();
  }
}
