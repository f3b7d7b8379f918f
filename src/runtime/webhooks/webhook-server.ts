/**
 * The HTTPS server the API server calls: admission reviews at each registration's path
 * (configurations.ts), conversion reviews at `/convert/<plural>.<group>`. Every replica serves it,
 * leader or not (the API server calls any pod behind the Service), on a port of its own. Requests
 * are bounded: POST only, JSON only, bodies up to a limit (controller-runtime reads at most 7 MiB of
 * an admission review; a conversion review carries a whole list, so it may hold more), the
 * slowloris bounds of WEBHOOK_TIMEOUTS; a body that is not a review is a 400, a path that
 * names nothing a 404, as controller-runtime answers them. Memory is bounded: a request reserves
 * its body's bytes in the in-flight budget (request-budget.ts) before a byte is read, and a
 * conversion review's objects are parsed one at a time (review-scan.ts) and answered as text. The
 * certificate is swapped for new connections when its source reports a rotation (`setSecureContext`).
 */
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Memo } from '../api/memo.js';
import { decidePeer, requestHeaders } from './client-certificate.js';
import type { Logger } from '../api/context.js';
import type { Registry } from '../api/registry.js';
import { messageOf } from '../error-message.js';
import { listen } from '../listen.js';
import { shapeErrors } from '../admission/schema-admission.js';
import type { JsonSchema } from '../admission/schema-data.js';
import type { KubernetesObject } from '../api/kube-types.js';
import { admissionRequest, admissionReview, BadReview, checkKind, reviewAdmission } from './admission-review.js';
import type { CertificateSource, ServingMaterial } from './certificates.js';
import { conversionPath, webhooksByPath } from './configurations.js';
import { conversionAnswerText, conversionRequest, type ReviewObjects } from './conversion-review.js';
import { scanConversionReview } from './review-scan.js';
import {
  ADMISSION_BODY_LIMIT,
  CONVERSION_BODY_LIMIT,
  DEFAULT_WEBHOOK_BUDGET,
  requestBudget,
  type BudgetOptions,
} from './request-budget.js';

export { ADMISSION_BODY_LIMIT, CONVERSION_BODY_LIMIT } from './request-budget.js';

/**
 * The server's slowloris bounds (Node's `server.headersTimeout`, `server.requestTimeout`, the TLS
 * handshake's `handshakeTimeout`): a client that sends its headers slowly is cut after `headersMs`,
 * one that sends its whole request slowly after `requestMs`, one that opens a connection and never
 * finishes the TLS handshake after `handshakeMs`; an idle keep-alive connection after `keepAliveMs`.
 * Node checks the first two every `connectionsCheckingInterval` (1 s here), so a cut comes at most
 * a second past its bound.
 */
export const WEBHOOK_TIMEOUTS = { headersMs: 10_000, requestMs: 60_000, handshakeMs: 10_000, keepAliveMs: 30_000 };

export interface WebhookServerOptions {
  port: number;
  /** Default all interfaces. */
  host?: string;
  registry: Registry;
  certificates: CertificateSource;
  logger: Logger;
  /**
   * Each custom resource's structural schemas by version, by CRD name (`<plural>.<group>`), as the
   * cluster's CRD has them: an object is checked against its version's before a mutating or
   * conversion callback reads it. A CRD not in it is not checked.
   */
  schemas?: ReadonlyMap<string, Readonly<Record<string, JsonSchema>>>;
  /** The in-flight budget (default DEFAULT_WEBHOOK_BUDGET). */
  budget?: { conversion: BudgetOptions; admission: BudgetOptions };
  /**
   * PEM CA certificate(s) callers' client certificates are verified against (client-certificate.ts):
   * the server asks for one, the admission callbacks get it as `sslpeer`. Default: none asked.
   */
  clientCa?: string;
  /** The operator's memo, given to the admission callbacks (default an empty one). */
  memo?: Memo;
}

export interface WebhookServer {
  readonly port: number;
  /** `https://<host>:<port>` (127.0.0.1 for all interfaces). */
  readonly url: string;
  /** Problems for `/healthz`: the certificate, and the listening socket. */
  problems(now?: Date): string[];
  /** Rotated certificate pairs that did not load (the metric `kopfgen_webhook_certificate_rotation_failures`). */
  failedRotations(): number;
  close(): Promise<void>;
}

class TooLarge extends Error {}

/**
 * The body in one buffer of its declared size when it declares one (no chunk list and concatenated
 * copy of a large review held at once), else chunks up to `limit`.
 */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) throw new TooLarge(`the body of ${declared} bytes is over the limit of ${limit}`);
  if (Number.isSafeInteger(declared) && declared >= 0) {
    const body = Buffer.allocUnsafe(declared);
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      if (size + chunk.length > declared) throw new TooLarge(`the body is longer than its Content-Length`);
      chunk.copy(body, size);
      size += chunk.length;
    }
    return body.subarray(0, size);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new TooLarge(`the body is over the limit of ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Writes `chunks` in order, waiting for the socket to drain between them (no copy queued whole). The
 * connection is closed after a (large) conversion answer: Node's server pauses its parser when a
 * request arrives while the previous answer is still draining, and reading that request's body then
 * resumes the socket under the paused parser (HPE_PAUSED, the connection reset, seen from a
 * keep-alive client after a few dozen conversions). A conversion pays one TLS handshake instead.
 */
async function sendChunks(res: ServerResponse, chunks: Buffer[]): Promise<void> {
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Content-Length': chunks.reduce((n, c) => n + c.length, 0),
    Connection: 'close',
  });
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i];
    chunks[i] = Buffer.alloc(0);
    if (!res.write(chunk))
      await new Promise<void>((done) => {
        const go = () => {
          res.off('drain', go);
          res.off('close', go);
          done();
        };
        res.on('drain', go);
        res.on('close', go);
      });
    if (res.destroyed) return;
  }
  res.end();
}

const pause = () => new Promise<void>((done) => setImmediate(done));

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? `${body}\n` : JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** The version of an `apiVersion` (`group/version`, or `version` for the core group). */
function versionOf(apiVersion: unknown): string | undefined {
  return typeof apiVersion === 'string' ? apiVersion.slice(apiVersion.lastIndexOf('/') + 1) : undefined;
}

function tlsOptions(material: ServingMaterial, clientCa: string | undefined): https.ServerOptions {
  const serving = { cert: material.cert, key: material.key, minVersion: 'TLSv1.2' } as const;
  // Asked, not demanded (kopf's CERT_OPTIONAL): a caller without one is served, a bad one refused in `handle`.
  return clientCa === undefined ? serving : { ...serving, ca: clientCa, requestCert: true, rejectUnauthorized: false };
}

export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const { registry, logger, clientCa } = options;
  const memo = options.memo ?? {};
  const admission = webhooksByPath(registry.webhooks);
  const conversions = new Map([...registry.conversions].map(([crd, c]) => [conversionPath(crd), c]));
  const limits = options.budget ?? DEFAULT_WEBHOOK_BUDGET;
  const budgets = { admission: requestBudget(limits.admission), conversion: requestBudget(limits.conversion) };
  const schemaOf = (crd: string, version: string | undefined) =>
    version === undefined ? undefined : options.schemas?.get(crd)?.[version];
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'https://webhook').pathname;
    const webhook = admission.get(path);
    const conversion = conversions.get(path);
    if (!webhook && !conversion) return send(res, 404, `no webhook at ${path}`);
    if (req.method !== 'POST') return send(res, 405, 'POST only');
    const tls = req.socket as TLSSocket;
    const peer = decidePeer(clientCa !== undefined, {
      certificate: clientCa === undefined ? undefined : tls.getPeerCertificate(),
      authorized: tls.authorized,
      authorizationError: tls.authorizationError,
    });
    if (peer.kind === 'refused') {
      logger.warn(`webhook request ${path} refused: ${peer.message}`);
      return send(res, 401, peer.message);
    }
    const type = String(req.headers['content-type'] ?? '');
    if (!type.startsWith('application/json')) return send(res, 415, `content type ${type} is not application/json`);
    const limit = webhook ? ADMISSION_BODY_LIMIT : CONVERSION_BODY_LIMIT;
    const declared = Number(req.headers['content-length']);
    if (declared > limit) return send(res, 413, `the body of ${declared} bytes is over the limit of ${limit}`);
    // A body of unknown length may be as long as the limit: it reserves that much.
    const reserve = Number.isSafeInteger(declared) && declared >= 0 ? declared : limit;
    const release = await (webhook ? budgets.admission : budgets.conversion).acquire(reserve);
    if (!release) {
      logger.warn(`webhook request ${path} refused: the server holds as many requests as its memory budget allows`);
      res.setHeader('Retry-After', '1');
      return send(res, 503, 'too many webhook requests in flight, try again');
    }
    // Held until the answer is written or the connection is gone. A response queued behind the one
    // before it on a keep-alive connection has no socket yet and never emits 'close' if that
    // connection dies: the socket's 'close' releases it too (and is let go with the answer, as a
    // keep-alive socket carries many requests).
    const socket = req.socket;
    const done = () => {
      socket.off('close', done);
      release();
    };
    res.once('close', done);
    socket.once('close', done);
    if (socket.destroyed) done();
    let review: unknown;
    let objects: ReviewObjects | undefined;
    try {
      const body = await readBody(req, limit);
      if (webhook) review = JSON.parse(body.toString('utf8'));
      else {
        // A conversion review's objects are parsed one at a time as they are converted (review-scan.ts).
        const scanned = scanConversionReview(body);
        review = scanned.review;
        objects = scanned.objects;
      }
    } catch (error) {
      if (error instanceof TooLarge) return send(res, 413, error.message);
      return send(res, 400, `the body is not JSON: ${messageOf(error)}`);
    }
    try {
      if (webhook) {
        const request = admissionRequest(review);
        checkKind(webhook, request);
        const crd = `${webhook.resource.plural}.${webhook.resource.group}`;
        const shape = (object: KubernetesObject) => {
          const schema = schemaOf(crd, versionOf(object.apiVersion));
          return schema ? shapeErrors(object, schema) : [];
        };
        const response = await reviewAdmission(webhook, request, logger, shape, {
          headers: requestHeaders(req.headers),
          sslpeer: peer.kind === 'verified' ? peer.certificate : undefined,
          memo,
        });
        return send(res, 200, admissionReview(response));
      }
      if (conversion) {
        const request = conversionRequest(review);
        const crd = `${conversion.plural}.${conversion.group}`;
        const shape = (object: KubernetesObject, version: string) => {
          const schema = schemaOf(crd, version);
          return schema ? shapeErrors(object, schema) : [];
        };
        const items = objects ?? { count: 0, item: () => undefined };
        return await sendChunks(res, await conversionAnswerText(conversion, request, items, logger, pause, shape));
      }
    } catch (error) {
      if (error instanceof BadReview) return send(res, 400, error.message);
      if (error instanceof SyntaxError) return send(res, 400, `the body is not JSON: ${messageOf(error)}`);
      throw error;
    }
  };
  const server = https.createServer(
    {
      ...tlsOptions(options.certificates.current(), clientCa),
      requestTimeout: WEBHOOK_TIMEOUTS.requestMs,
      headersTimeout: WEBHOOK_TIMEOUTS.headersMs,
      connectionsCheckingInterval: 1_000,
      handshakeTimeout: WEBHOOK_TIMEOUTS.handshakeMs,
    },
    (req, res) => {
      handle(req, res).catch((error: unknown) => {
        logger.error(`webhook request ${req.url ?? ''} failed: ${messageOf(error)}`);
        if (!res.headersSent) send(res, 500, 'internal error');
        else res.destroy();
      });
    },
  );
  server.keepAliveTimeout = WEBHOOK_TIMEOUTS.keepAliveMs;
  // A client that goes away mid-handshake must not end the operator.
  server.on('tlsClientError', (error) => logger.debug(`webhook TLS: ${messageOf(error)}`));
  options.certificates.onChange((material) => server.setSecureContext(tlsOptions(material, clientCa)));
  const listening = await listen(server, 'https', options.port, options.host);
  logger.info(`serving webhooks on ${listening.url} (${admission.size} admission, ${conversions.size} conversion)`);
  return {
    port: listening.port,
    url: listening.url,
    problems: (now) => [
      ...(server.listening ? [] : ['the webhook server is not listening']),
      ...options.certificates.problems(now),
    ],
    failedRotations: () => options.certificates.failedRotations(),
    close: () => {
      options.certificates.close();
      return listening.close();
    },
  };
}
