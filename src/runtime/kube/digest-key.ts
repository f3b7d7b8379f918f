/**
 * The operator's digest key: the secret under which the values of sensitive fields (a Secret's data) are
 * digested in the last-handled state (essence.ts `conceal`). It must be the same for every replica and
 * every restart (else every object would look changed), and unknown to anyone who can read the objects'
 * annotations (else a short secret could be guessed by trying values against its digest). So it lives in
 * a Secret of the operator's own namespace, made by the first replica that needs it (32 random bytes) and
 * read by the others: readable only by who may read Secrets there.
 */
import { randomBytes } from 'node:crypto';
import { isPlainObject } from '../json.js';
import { KubeError, type KubeClient } from './client.js';
import { StartupError } from './discovery.js';
import { messageOf } from '../error-message.js';

/** The Secret's name, in the operator's namespace (the Lease's: leader-identity.ts `leaseNamespace`). */
export const DIGEST_KEY_SECRET = 'kopfgen-digest-key';

/** The key in the Secret's data. */
const DATA_KEY = 'key';

function secretsPath(namespace: string, name = ''): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets${name ? `/${encodeURIComponent(name)}` : ''}`;
}

function keyOf(secret: unknown): Uint8Array | undefined {
  const data = isPlainObject(secret) && isPlainObject(secret.data) ? secret.data : undefined;
  const value = data?.[DATA_KEY];
  if (typeof value !== 'string') return undefined;
  const key = Buffer.from(value, 'base64');
  return key.length >= 32 ? key : undefined;
}

/**
 * The key from `<namespace>/kopfgen-digest-key`, created when absent (a replica that loses the race to
 * create it reads the winner's). Throws a StartupError naming the Secret and the permission when it can
 * neither be read nor created.
 */
export async function digestKey(client: Pick<KubeClient, 'request'>, namespace: string): Promise<Uint8Array> {
  const where = `Secret ${namespace}/${DIGEST_KEY_SECRET}`;
  const fail = (error: unknown): never => {
    const hint =
      error instanceof KubeError && error.status === 403
        ? `: grant get and create on secrets in namespace ${namespace} (kopfgen manifests does), or give the operator a digestKey`
        : '';
    throw new StartupError(
      `the digest key for sensitive fields (a Secret's data) could not be read or made in ${where}: ${messageOf(error)}${hint}`,
    );
  };
  /** The key the Secret holds; undefined when there is no such Secret. */
  const read = async (): Promise<Uint8Array | undefined> => {
    let secret: unknown;
    try {
      secret = await client.request('GET', secretsPath(namespace, DIGEST_KEY_SECRET));
    } catch (error) {
      if (error instanceof KubeError && error.status === 404) return undefined;
      return fail(error);
    }
    const key = keyOf(secret);
    if (!key)
      throw new StartupError(
        `${where} holds no key of 32 bytes or more in data.${DATA_KEY}: delete it to have it made again`,
      );
    return key;
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    const found = await read();
    if (found) return found;
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: DIGEST_KEY_SECRET, namespace, labels: { 'app.kubernetes.io/managed-by': 'kopfgen' } },
      type: 'Opaque',
      data: { [DATA_KEY]: randomBytes(32).toString('base64') },
    };
    try {
      const made = keyOf(await client.request('POST', secretsPath(namespace), { body }));
      if (made) return made;
    } catch (error) {
      // 409: another replica made it first: read theirs
      if (!(error instanceof KubeError && error.status === 409)) fail(error);
    }
  }
  return fail(new Error('it was deleted again as it was made'));
}
