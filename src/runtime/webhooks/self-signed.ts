/**
 * Certificates for development and for clusters without cert-manager: a CA and a serving
 * certificate it signs (kopf's `WebhookServer.build_certificate`, controller-runtime's old
 * `cert/generator`). Node has no X.509 builder, so node-forge (pure JavaScript, no dependencies,
 * pinned) builds them; it is imported here only, and this module only when the self-signed mode is
 * chosen, so an operator serving certificates from files (or no webhooks) never loads it. Keys are
 * made by Node's own crypto (RSA 2048, native and fast); forge only assembles and signs.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';

export interface KeyPair {
  cert: string;
  key: string;
}

const DAY_MS = 86_400_000;
/** The CA outlives every serving certificate it signs; the serving one is renewed before it ends. */
export const CA_DAYS = 3650;
export const SERVING_DAYS = 365;

type Forge = typeof import('node-forge');

async function loadForge(): Promise<Forge> {
  const module = await import('node-forge');
  return module.default;
}

function rsaKeys(): { publicKey: string; privateKey: string } {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

/** A positive serial of 16 random bytes (RFC 5280 §4.1.2.2: at most 20 octets, non-negative). */
function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  return bytes.toString('hex');
}

function certificate(forge: Forge, publicKey: string, commonName: string, days: number) {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey);
  cert.serialNumber = serial();
  // A little in the past, so an API server whose clock is slightly behind accepts it at once.
  cert.validity.notBefore = new Date(Date.now() - 5 * 60_000);
  cert.validity.notAfter = new Date(Date.now() + days * DAY_MS);
  cert.setSubject([{ name: 'commonName', value: commonName }]);
  return cert;
}

/** A self-signed CA (basicConstraints CA:true, keyCertSign). */
export async function createCa(commonName: string): Promise<KeyPair> {
  const forge = await loadForge();
  const keys = rsaKeys();
  const cert = certificate(forge, keys.publicKey, commonName, CA_DAYS);
  cert.setIssuer(cert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keys.privateKey), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keys.privateKey };
}

/**
 * A serving certificate for `hosts` (DNS names and IP addresses, all as subjectAltNames: Go's TLS,
 * the API server's, ignores the common name) signed by `ca`.
 */
export async function createServing(ca: KeyPair, hosts: readonly string[]): Promise<KeyPair> {
  const forge = await loadForge();
  const keys = rsaKeys();
  const caCert = forge.pki.certificateFromPem(ca.cert);
  const cert = certificate(forge, keys.publicKey, hosts[0] ?? 'kopfgen-webhook', SERVING_DAYS);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: hosts.map((host) => (isIP(host) ? { type: 7, ip: host } : { type: 2, value: host })),
    },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.key), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keys.privateKey };
}
