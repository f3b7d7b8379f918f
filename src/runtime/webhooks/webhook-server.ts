/**
 * The HTTPS server the API server calls: admission reviews at each registration's path
 * (configurations.ts), conversion reviews at `/convert/<plural>.<group>`. Every replica serves it,
 * leader or not (the API server calls any pod behind the Service), on a port of its own. Requests
 * are bounded: POST only, JSON only, bodies up to a limit (controller-runtime reads at most 7 MiB of
 * an admission review; a conversion review carries a whole list, so it may hold more), headers
 * within 10 s and the whole request within 60 s; a body that is not a review is a 400, a path that
 * names nothing a 404, as controller-runtime answers them. The certificate is swapped for new
 * connections when its source reports a rotation (`setSecureContext`).
 */
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../api/context.js';
import type { Registry } from '../api/registry.js';
import { messageOf } from '../error-message.js';
import { listen } from '../listen.js';
import { admissionRequest, admissionReview, BadReview, reviewAdmission } from './admission-review.js';
import type { CertificateSource, ServingMaterial } from './certificates.js';
import { conversionPath, webhookPath } from './configurations.js';
import { conversionRequest, conversionReview, reviewConversion } from './conversion-review.js';

export const ADMISSION_BODY_LIMIT = 7 * 1024 * 1024;
export const CONVERSION_BODY_LIMIT = 64 * 1024 * 1024;

export interface WebhookServerOptions {
  port: number;
  /** Default all interfaces. */
  host?: string;
  registry: Registry;
  certificates: CertificateSource;
  logger: Logger;
}

export interface WebhookServer {
  readonly port: number;
  /** `https://<host>:<port>` (127.0.0.1 for all interfaces). */
  readonly url: string;
  /** Problems for `/healthz`: the certificate, and the listening socket. */
  problems(now?: Date): string[];
  close(): Promise<void>;
}

class TooLarge extends Error {}

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) throw new TooLarge(`the body of ${declared} bytes is over the limit of ${limit}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new TooLarge(`the body is over the limit of ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? `${body}\n` : JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

function tlsOptions(material: ServingMaterial): https.ServerOptions {
  return { cert: material.cert, key: material.key, minVersion: 'TLSv1.2' };
}

export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const { registry, logger } = options;
  const admission = new Map(registry.webhooks.map((w) => [webhookPath(w), w]));
  const conversions = new Map([...registry.conversions].map(([crd, c]) => [conversionPath(crd), c]));
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'https://webhook').pathname;
    const webhook = admission.get(path);
    const conversion = conversions.get(path);
    if (!webhook && !conversion) return send(res, 404, `no webhook at ${path}`);
    if (req.method !== 'POST') return send(res, 405, 'POST only');
    const type = String(req.headers['content-type'] ?? '');
    if (!type.startsWith('application/json')) return send(res, 415, `content type ${type} is not application/json`);
    let review: unknown;
    try {
      review = JSON.parse(await readBody(req, webhook ? ADMISSION_BODY_LIMIT : CONVERSION_BODY_LIMIT));
    } catch (error) {
      if (error instanceof TooLarge) return send(res, 413, error.message);
      return send(res, 400, `the body is not JSON: ${messageOf(error)}`);
    }
    try {
      if (webhook) {
        const response = await reviewAdmission(webhook, admissionRequest(review), logger);
        return send(res, 200, admissionReview(response));
      }
      if (conversion)
        return send(res, 200, conversionReview(reviewConversion(conversion, conversionRequest(review), logger)));
    } catch (error) {
      if (error instanceof BadReview) return send(res, 400, error.message);
      throw error;
    }
  };
  const server = https.createServer(
    { ...tlsOptions(options.certificates.current()), requestTimeout: 60_000, headersTimeout: 10_000 },
    (req, res) => {
      handle(req, res).catch((error: unknown) => {
        logger.error(`webhook request ${req.url ?? ''} failed: ${messageOf(error)}`);
        if (!res.headersSent) send(res, 500, 'internal error');
        else res.destroy();
      });
    },
  );
  // A client that goes away mid-handshake must not end the operator.
  server.on('tlsClientError', (error) => logger.debug(`webhook TLS: ${messageOf(error)}`));
  options.certificates.onChange((material) => server.setSecureContext(tlsOptions(material)));
  const listening = await listen(server, 'https', options.port, options.host);
  logger.info(`serving webhooks on ${listening.url} (${admission.size} admission, ${conversions.size} conversion)`);
  return {
    port: listening.port,
    url: listening.url,
    problems: (now) => [
      ...(server.listening ? [] : ['the webhook server is not listening']),
      ...options.certificates.problems(now),
    ],
    close: () => {
      options.certificates.close();
      return listening.close();
    },
  };
}
