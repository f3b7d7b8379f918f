/**
 * What the webhook server makes of a caller's TLS connection and headers (kopf's `sslpeer` and `headers`
 * kwargs): pure, a socket's answers in, the callbacks' values or a refusal out.
 *
 * With a client CA (`WebhookOptions.clientCa`) the server asks for a certificate but does not demand one,
 * as kopf's `WebhookServer(cafile=…)` sets `ssl.CERT_OPTIONAL`: a caller without a certificate is served
 * (`sslpeer` undefined), and one whose certificate does not verify against the CA is refused (Python's
 * handshake fails then; Node completes the handshake with `rejectUnauthorized: false`, so the refusal is
 * a 401 here, before any callback).
 */
import type { PeerCertificate } from 'node:tls';
import type { IncomingHttpHeaders } from 'node:http';
import type { ClientCertificate } from '../api/admission.js';

/** The socket's answers: `getPeerCertificate()`, `authorized`, `authorizationError`. */
export interface PeerAnswers {
  certificate: PeerCertificate | Record<string, never> | undefined;
  authorized: boolean;
  authorizationError: Error | string | undefined;
}

export type PeerDecision =
  { kind: 'none' } | { kind: 'verified'; certificate: ClientCertificate } | { kind: 'refused'; message: string };

/** Node answers `{}` for a connection that sent no certificate. */
function sent(certificate: PeerAnswers['certificate']): certificate is PeerCertificate {
  return certificate !== undefined && 'fingerprint256' in certificate && typeof certificate.fingerprint256 === 'string';
}

/** A certificate's name attributes as a plain object (Node's have no prototype). */
function names(attributes: unknown): Record<string, string | readonly string[]> {
  const out: Record<string, string | readonly string[]> = {};
  if (typeof attributes !== 'object' || attributes === null) return out;
  for (const [key, value] of Object.entries(attributes)) {
    if (typeof value === 'string') out[key] = value;
    else if (Array.isArray(value)) out[key] = value.map(String);
  }
  return out;
}

/**
 * The callbacks' `sslpeer`, or a refusal. `asked`: the server has a client CA (without one nothing is
 * asked, so nothing is reported, even should a client send a certificate).
 */
export function decidePeer(asked: boolean, answers: PeerAnswers): PeerDecision {
  if (!asked || !sent(answers.certificate)) return { kind: 'none' };
  if (!answers.authorized) {
    const reason = answers.authorizationError ?? 'not signed by the client CA';
    return { kind: 'refused', message: `the client certificate does not verify: ${String(reason)}` };
  }
  const c = answers.certificate;
  return {
    kind: 'verified',
    certificate: {
      subject: names(c.subject),
      issuer: names(c.issuer),
      subjectaltname: c.subjectaltname,
      serialNumber: c.serialNumber,
      validFrom: c.valid_from,
      validTo: c.valid_to,
      fingerprint256: c.fingerprint256,
    },
  };
}

/** The callbacks' `headers`: Node's, a repeated header's values (a list only for `set-cookie`) joined. */
export function requestHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
