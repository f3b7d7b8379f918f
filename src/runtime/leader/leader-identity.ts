/**
 * Who a candidate is and where its lease lives, as controller-runtime's leaderelection package
 * decides them: identity = hostname + '_' + a random suffix; namespace from the service account.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** Where a pod's service account namespace is mounted (controller-runtime's inClusterNamespacePath). */
export const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** What the defaults are read from; the process's by default, a table in tests. */
export interface Surroundings {
  env: Record<string, string | undefined>;
  hostname(): string;
  /** The file's text, or undefined when it cannot be read. */
  readFile(path: string): string | undefined;
  random(): string;
}

export const processSurroundings: Surroundings = {
  env: process.env,
  hostname,
  readFile(path) {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined; // not in a pod, or no service account mounted
    }
  },
  random: randomUUID,
};

/**
 * The pod name (POD_NAME from the downward API, else HOSTNAME, which is the pod name in a pod, else the
 * OS's hostname) plus '_' and a random suffix, as controller-runtime's `os.Hostname() + "_" + uuid`: a
 * restarted process (same pod name) is a new candidate, never mistaken for the one that held the lease.
 */
export function defaultIdentity(from: Surroundings = processSurroundings): string {
  const pod = from.env.POD_NAME?.trim() || from.env.HOSTNAME?.trim() || from.hostname();
  return `${pod}_${from.random()}`;
}

/**
 * The lease's namespace: the option, else the service account's namespace file (in a pod), else
 * POD_NAMESPACE, else 'default' (controller-runtime's getInClusterNamespace reads the same file).
 */
export function leaseNamespace(option: string | undefined, from: Surroundings = processSurroundings): string {
  return (
    option?.trim() || from.readFile(SERVICE_ACCOUNT_NAMESPACE)?.trim() || from.env.POD_NAMESPACE?.trim() || 'default'
  );
}
