/**
 * Where the webhook server's certificate comes from, and how it changes:
 *
 * - **files** (`tls.crt`, `tls.key`, optionally `ca.crt` in a directory: a mounted Secret, e.g.
 *   cert-manager's): read at start and polled, so a rotated certificate is served to new connections
 *   without a restart (controller-runtime's `certwatcher`, which polls too: a Secret volume is updated
 *   by swapping a symlink, which file watches miss). A pair that does not load is a warning and the
 *   previous one kept (also across a restart: the last good pair is kept on disk); `/healthz` fails
 *   only when the certificate served is past its end.
 * - **self-signed**: a CA and a serving certificate kept in one Secret of the operator's namespace,
 *   created once (create; 409 → read the one another replica created), so every replica serves a
 *   certificate of the same CA and writes the same `caBundle`. A serving certificate that does not
 *   name every host or ends within 30 days is replaced (update with the Secret's resourceVersion;
 *   409 → read again). Without a cluster (tests, benchmarks) the pair lives in memory.
 */
import { X509Certificate, createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { Logger } from '../api/context.js';
import { messageOf } from '../error-message.js';
import { KubeError, type KubeClient } from '../kube/client.js';
import type { KeyPair } from './self-signed.js';

export interface ServingMaterial {
  cert: string;
  key: string;
  /** The PEM of the CA the API server must trust (the configurations' `caBundle`), when known. */
  ca?: string;
}

export interface CertificateSource {
  current(): ServingMaterial;
  /** Called after the material changed (a rotated file). */
  onChange(listener: (material: ServingMaterial) => void): void;
  /** Problems for `/healthz`: no servable certificate (the one served is past its end). */
  problems(now?: Date): string[];
  /** Rotated pairs that did not load (each a warning; the previous pair kept serving). */
  failedRotations(): number;
  close(): void;
}

const RENEW_BEFORE_MS = 30 * 86_400_000;

/** Whether key and certificate load together (what a TLS server would refuse), as one line. */
function loadProblem(material: ServingMaterial): string | undefined {
  try {
    createSecureContext({ cert: material.cert, key: material.key });
    return undefined;
  } catch (error) {
    return messageOf(error);
  }
}

function expiryProblem(cert: string, now: Date): string | undefined {
  try {
    const end = new Date(new X509Certificate(cert).validTo);
    return end.getTime() <= now.getTime() ? `the webhook certificate expired at ${end.toISOString()}` : undefined;
  } catch (error) {
    return `the webhook certificate does not parse: ${messageOf(error)}`;
  }
}

export interface FileCertificateOptions {
  /** Holds `tls.crt` and `tls.key` (and `ca.crt` when the issuer writes it, as cert-manager does). */
  dir: string;
  /** How often the files are read again (default 10 s, controller-runtime's certwatcher interval). */
  reloadMs?: number;
  /**
   * Where the last pair that loaded is kept, for a restart while the files hold a broken one (default
   * a directory under the OS temporary directory: the generated Deployment's emptyDir at /tmp, which
   * outlives a container's restart within its pod).
   */
  lastGoodDir?: string;
  /** Hosts of the self-signed pair served when neither the files nor the last good pair load. */
  fallbackHosts?: readonly string[];
  logger: Logger;
}

async function readMaterial(dir: string): Promise<ServingMaterial> {
  const [cert, key, ca] = await Promise.all([
    readFile(join(dir, 'tls.crt'), 'utf8'),
    readFile(join(dir, 'tls.key'), 'utf8'),
    readFile(join(dir, 'ca.crt'), 'utf8').catch(() => undefined),
  ]);
  return ca === undefined ? { cert, key } : { cert, key, ca };
}

const digest = (m: ServingMaterial) =>
  createHash('sha256')
    .update(`${m.cert}\0${m.key}\0${m.ca ?? ''}`)
    .digest('hex');

/** Why `material` cannot be served now (does not load, or expired), or undefined. */
function servingProblem(material: ServingMaterial, now = new Date()): string | undefined {
  return loadProblem(material) ?? expiryProblem(material.cert, now);
}

/** Keeps the pair that loaded, owner-readable only (it holds the key); best effort. */
async function keepLastGood(dir: string, material: ServingMaterial, logger: Logger): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(join(dir, 'tls.crt'), material.cert, { mode: 0o600 });
    await writeFile(join(dir, 'tls.key'), material.key, { mode: 0o600 });
    if (material.ca !== undefined) await writeFile(join(dir, 'ca.crt'), material.ca, { mode: 0o600 });
    else await rm(join(dir, 'ca.crt'), { force: true });
  } catch (error) {
    logger.debug(`keeping the webhook certificate in ${dir}: ${messageOf(error)}`);
  }
}

/**
 * The first pair to serve when the files hold none that loads: the last pair that loaded (kept by
 * a previous start of this container), else a self-signed one, so a bad rotation is never a crash
 * loop (the liveness probe restarting a process that then refuses to start): the server serves, the
 * warning says what is wrong, and the next good pair in the files is picked up by the poll.
 */
async function fallbackMaterial(
  options: FileCertificateOptions,
  lastGoodDir: string,
  why: string,
): Promise<ServingMaterial> {
  const kept = await readMaterial(lastGoodDir).catch(() => undefined);
  if (kept && servingProblem(kept) === undefined) {
    options.logger.warn(`webhooks: ${why}; serving the last certificate that loaded (kept in ${lastGoodDir})`);
    return kept;
  }
  options.logger.warn(
    `webhooks: ${why}; no certificate that loaded before is kept: serving a self-signed one the API server does not trust until the files hold a good pair`,
  );
  const { createCa, createServing } = await import('./self-signed.js');
  const ca = await createCa('kopfgen fallback CA');
  return { ...(await createServing(ca, options.fallbackHosts ?? ['localhost', '127.0.0.1'])), ca: ca.cert };
}

/**
 * Certificates from a directory, polled for rotation (controller-runtime's certwatcher keeps the
 * last good pair too). A pair that does not load, at start or rotated in, is a warning and keeps
 * what is served; only a served certificate past its end is a problem for `/healthz`.
 */
export async function fileCertificates(options: FileCertificateOptions): Promise<CertificateSource> {
  const lastGoodDir =
    options.lastGoodDir ??
    join(tmpdir(), 'kopfgen-webhook-certs', createHash('sha256').update(options.dir).digest('hex').slice(0, 12));
  let material: ServingMaterial;
  let seen = '';
  try {
    const first = await readMaterial(options.dir);
    seen = digest(first);
    const bad = loadProblem(first);
    if (bad) throw new Error(`does not load: ${bad}`);
    material = first;
    await keepLastGood(lastGoodDir, material, options.logger);
  } catch (error) {
    material = await fallbackMaterial(
      options,
      lastGoodDir,
      `the certificate in ${options.dir} (tls.crt, tls.key) cannot be served: ${messageOf(error)}`,
    );
  }
  const listeners: ((m: ServingMaterial) => void)[] = [];
  let rotationFailures = 0;
  let reading = false;
  const poll = async () => {
    if (reading) return;
    reading = true;
    try {
      const next = await readMaterial(options.dir);
      const hash = digest(next);
      if (hash === seen) return;
      seen = hash;
      const bad = loadProblem(next);
      if (bad) {
        options.logger.warn(
          `webhooks: the rotated certificate in ${options.dir} does not load, the previous one is served: ${bad}`,
        );
        rotationFailures++;
        return;
      }
      material = next;
      const end = new X509Certificate(next.cert).validTo;
      options.logger.info(`webhook certificate reloaded from ${options.dir} (valid until ${end})`);
      await keepLastGood(lastGoodDir, next, options.logger);
      for (const listener of listeners) listener(next);
    } catch (error) {
      // Mid-rotation a file can be missing for a moment: the next poll reads the new pair.
      options.logger.debug(`reading the webhook certificate from ${options.dir}: ${messageOf(error)}`);
    } finally {
      reading = false;
    }
  };
  const timer = setInterval(() => void poll(), options.reloadMs ?? 10_000);
  timer.unref();
  return {
    current: () => material,
    onChange: (listener) => listeners.push(listener),
    problems: (now = new Date()) => [expiryProblem(material.cert, now)].filter((p) => p !== undefined),
    failedRotations: () => rotationFailures,
    close: () => clearInterval(timer),
  };
}

/** A fixed pair (self-signed), which never changes while the process runs. */
function fixedSource(material: ServingMaterial): CertificateSource {
  return {
    current: () => material,
    onChange: () => undefined,
    problems: (now = new Date()) => [expiryProblem(material.cert, now)].filter((p) => p !== undefined),
    failedRotations: () => 0,
    close: () => undefined,
  };
}

/** The hosts a serving certificate names (DNS names and IP addresses of its subjectAltName). */
export function certificateHosts(cert: string): string[] {
  const san = new X509Certificate(cert).subjectAltName ?? '';
  return san
    .split(',')
    .map((entry) => entry.trim())
    .map((entry) => entry.replace(/^DNS:/, '').replace(/^IP Address:/, ''))
    .filter(Boolean);
}

/** Whether a stored serving certificate can be served as it is: every host named, not ending soon. */
export function servingUsable(cert: string, hosts: readonly string[], now: Date): boolean {
  try {
    const named = new Set(certificateHosts(cert));
    const end = new Date(new X509Certificate(cert).validTo).getTime();
    return hosts.every((h) => named.has(h)) && end - now.getTime() > RENEW_BEFORE_MS;
  } catch {
    return false;
  }
}

export interface SelfSignedOptions {
  /** Hosts the serving certificate must name (the Service's DNS names, the development URL's host). */
  hosts: readonly string[];
  /** Where the CA is kept; without one (no cluster), the pair lives in this process only. */
  secret?: { client: KubeClient; namespace: string; name: string };
  logger: Logger;
}

interface StoredSecret {
  metadata?: { resourceVersion?: string };
  data?: Record<string, string>;
}

const b64 = (text: string) => Buffer.from(text).toString('base64');
const unb64 = (text: string | undefined) => (text === undefined ? undefined : Buffer.from(text, 'base64').toString());

function stored(secret: StoredSecret): { ca?: KeyPair; serving?: KeyPair } {
  const d = secret.data ?? {};
  const [caCert, caKey, cert, key] = [d['ca.crt'], d['ca.key'], d['tls.crt'], d['tls.key']].map(unb64);
  return {
    ca: caCert && caKey ? { cert: caCert, key: caKey } : undefined,
    serving: cert && key ? { cert, key } : undefined,
  };
}

function secretBody(name: string, namespace: string, ca: KeyPair, serving: KeyPair, resourceVersion?: string) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, ...(resourceVersion ? { resourceVersion } : {}) },
    type: 'kubernetes.io/tls',
    data: { 'ca.crt': b64(ca.cert), 'ca.key': b64(ca.key), 'tls.crt': b64(serving.cert), 'tls.key': b64(serving.key) },
  };
}

/** The self-signed pair: from the Secret (made once, shared by every replica), or in memory. */
export async function selfSignedCertificates(options: SelfSignedOptions): Promise<CertificateSource> {
  const { createCa, createServing } = await import('./self-signed.js');
  const hosts = [...new Set(options.hosts)];
  if (!options.secret) {
    const ca = await createCa('kopfgen webhook CA');
    const serving = await createServing(ca, hosts);
    return fixedSource({ ...serving, ca: ca.cert });
  }
  const { client, namespace, name } = options.secret;
  const path = `/api/v1/namespaces/${namespace}/secrets/${name}`;
  for (let attempt = 0; attempt < 5; attempt++) {
    let secret: StoredSecret | undefined;
    try {
      secret = await client.request<StoredSecret>('GET', path);
    } catch (error) {
      if (!(error instanceof KubeError && error.status === 404)) throw error;
    }
    const found = secret ? stored(secret) : {};
    if (found.ca && found.serving && servingUsable(found.serving.cert, hosts, new Date()))
      return fixedSource({ ...found.serving, ca: found.ca.cert });
    const ca = found.ca ?? (await createCa(`${name} CA`));
    const serving = await createServing(ca, hosts);
    try {
      if (secret) {
        await client.request('PUT', path, {
          body: secretBody(name, namespace, ca, serving, secret.metadata?.resourceVersion),
        });
        options.logger.info(`webhook serving certificate renewed in Secret ${namespace}/${name}`);
      } else {
        await client.request('POST', `/api/v1/namespaces/${namespace}/secrets`, {
          body: secretBody(name, namespace, ca, serving),
        });
        options.logger.info(`webhook CA created in Secret ${namespace}/${name}`);
      }
      return fixedSource({ ...serving, ca: ca.cert });
    } catch (error) {
      // Another replica created or renewed it meanwhile: serve what it wrote.
      if (!(error instanceof KubeError && error.status === 409)) throw error;
    }
  }
  throw new Error(`the webhook CA Secret ${namespace}/${name} kept changing while it was read`);
}
