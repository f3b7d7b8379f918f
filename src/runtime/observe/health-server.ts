/**
 * One HTTP server for the probes and the metrics, as controller-runtime's manager serves `/healthz`, `/readyz`
 * (healthz.Handler: 200 "ok", else 500 listing the failed checks) and `/metrics`. The runtime gives providers
 * that answer from its own state; the server only asks them and writes the answer. Any endpoint can be off (404).
 */
import http from 'node:http';
import type { OperatorMetrics } from './metrics.js';
import { messageOf } from '../error-message.js';
import { listen } from '../listen.js';
import { DEFAULT_LOOP_TOLERANCE_SECONDS, FRESH_WAIT_MS, text, type Answer } from './health-held.js';
import { startHealthThread } from './health-thread.js';

/** What a probe provider says: ok, or the problems that make it fail (one line each). */
export interface ProbeResult {
  ok: boolean;
  problems: readonly string[];
}

export type Probe = () => ProbeResult | Promise<ProbeResult>;

export interface HealthServerOptions {
  /** 0 picks a free port (read it from `port` afterwards). */
  port: number;
  /** Default all interfaces, as the kubelet probes the pod IP. */
  host?: string;
  /** Liveness: the process and its watches are alive. Off when false or absent. */
  healthz?: Probe | false;
  /** Readiness: leader or standby, and every watch has listed. Off when false or absent. */
  readyz?: Probe | false;
  /**
   * Served as `/probes`: the user's probes (kopf's on.probe) as one JSON object, id → value; a provider
   * that throws answers 500 with the message. Off when absent.
   */
  probes?: () => Promise<Record<string, unknown>>;
  /** Served as `/metrics` in the Prometheus text format. Off when false or absent. */
  metrics?: Pick<OperatorMetrics, 'scrape' | 'contentType'> | false;
  /**
   * Serve from a worker thread (health-thread.ts), so a callback that holds the event loop (a
   * synchronous loop in a webhook callback) delays `/healthz` and `/readyz` by at most FRESH_WAIT_MS:
   * past it they answer the loop's last heartbeat while it is younger than `toleranceSeconds` (default
   * DEFAULT_LOOP_TOLERANCE_SECONDS), and fail once the loop has been silent longer. Default: in the
   * loop's own thread, where a busy loop delays every answer until it is free.
   */
  thread?: { toleranceSeconds?: number; freshWaitMs?: number; onError?: (message: string) => void };
}

export interface HealthServer {
  /** The bound port (the free one picked for port 0). */
  readonly port: number;
  readonly url: string;
  /** Stops listening and ends open connections; resolves when the port is free. */
  close(): Promise<void>;
}

/** controller-runtime's healthz text: "ok", or one `[-]` line per problem and "<name> check failed". */
async function probe(name: string, provider: Probe): Promise<Answer> {
  let result: ProbeResult;
  try {
    result = await provider();
  } catch (error) {
    result = { ok: false, problems: [`the check threw: ${messageOf(error)}`] };
  }
  if (result.ok) return text(200, 'ok\n');
  const lines = result.problems.length ? result.problems : ['not ok (no reason given)'];
  return text(500, `${lines.map((line) => `[-]${line}`).join('\n')}\n${name} check failed\n`);
}

async function answer(options: HealthServerOptions, path: string): Promise<Answer> {
  if (path === '/healthz' && options.healthz) return probe('healthz', options.healthz);
  if (path === '/readyz' && options.readyz) return probe('readyz', options.readyz);
  if (path === '/probes' && options.probes) {
    try {
      const body = JSON.stringify(await options.probes());
      return { status: 200, contentType: 'application/json', body: `${body}\n` };
    } catch (error) {
      return { status: 500, contentType: 'application/json', body: `${JSON.stringify({ error: messageOf(error) })}\n` };
    }
  }
  if (path === '/metrics' && options.metrics) {
    try {
      return { status: 200, contentType: options.metrics.contentType, body: await options.metrics.scrape() };
    } catch (error) {
      return text(500, `collecting metrics failed: ${messageOf(error)}\n`);
    }
  }
  return text(404, 'not found\n');
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const { thread } = options;
  if (thread) {
    const { healthz, readyz } = options;
    return startHealthThread({
      port: options.port,
      host: options.host,
      toleranceMs: (thread.toleranceSeconds ?? DEFAULT_LOOP_TOLERANCE_SECONDS) * 1000,
      freshWaitMs: thread.freshWaitMs ?? FRESH_WAIT_MS,
      onError: thread.onError,
      answer: (path) => answer(options, path),
      beat: async () => ({
        healthz: healthz ? await probe('healthz', healthz) : undefined,
        readyz: readyz ? await probe('readyz', readyz) : undefined,
      }),
    });
  }
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://probe').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET, HEAD' });
      res.end('method not allowed\n');
      return;
    }
    // answer() never rejects; a write to a connection the prober already closed must not crash the operator.
    void answer(options, path)
      .then((a) => {
        res.writeHead(a.status, { 'Content-Type': a.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : a.body);
      })
      .catch(() => res.destroy());
  });
  return listen(server, 'http', options.port, options.host);
}
