/**
 * A real API server for end-to-end tests: `KOPFGEN_E2E_KUBECONFIG` names an existing cluster,
 * else `../shared/envtest/start.sh` starts a fresh kube-apiserver + etcd for this test file.
 * Without either, `skip` says why and the tests skip.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { KubeClient } from '../../src/runtime/kube/client.js';
import { readKubeconfig, type ClusterConfig } from '../../src/runtime/kube/kubeconfig.js';
import { outsideUnitScope } from './test-scope.js';

const envtestDir = resolve(process.cwd(), '../shared/envtest');
const external = process.env.KOPFGEN_E2E_KUBECONFIG;

/** A fresh machine builds the envtest binaries on the first start (about 6 min): the start hook may take that long. */
export const START_TIMEOUT = 900_000;
/** Per test: generous, but a hung test still fails. */
export const TEST_TIMEOUT = 120_000;

export const skip: string | false =
  outsideUnitScope('a kube-apiserver') ||
  (external || existsSync(`${envtestDir}/start.sh`) ? false : 'needs ../shared/envtest (or KOPFGEN_E2E_KUBECONFIG)');

export interface Cluster {
  kubeconfig: string;
  dir?: string;
  client: KubeClient;
  /** Runs kubectl against the cluster; returns stdout. */
  kubectl(...args: string[]): string;
}

export function startCluster(): Cluster {
  let kubeconfig = external;
  let dir: string | undefined;
  if (!kubeconfig) {
    const out = execFileSync(`${envtestDir}/start.sh`, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: START_TIMEOUT - 60_000,
    });
    const env = Object.fromEntries(
      out
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    kubeconfig = env.KUBECONFIG;
    dir = env.ENVTEST_DIR;
  }
  process.env.KUBECONFIG = kubeconfig;
  const kubectl = (...args: string[]) =>
    execFileSync('kubectl', ['--kubeconfig', kubeconfig!, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { kubeconfig: kubeconfig!, dir, client: clientFor(kubeconfig!), kubectl };
}

/** The configuration a kubeconfig file gives (kubeconfig.ts, as `kopfgen run --kubeconfig` reads it); throws its problem. */
export function configFor(file: string): ClusterConfig {
  const read = readKubeconfig({ file });
  if ('problem' in read) throw new Error(read.problem);
  return read.config;
}

/** A client for a kubeconfig file. */
export function clientFor(file: string): KubeClient {
  return new KubeClient(configFor(file));
}

export function stopCluster(cluster: Cluster | undefined): void {
  if (!cluster) return;
  cluster.client.close();
  if (cluster.dir) execFileSync(`${envtestDir}/stop.sh`, [cluster.dir], { stdio: 'inherit', timeout: 60_000 });
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

/** Applies a CRD file and waits until its resources are served. */
export async function applyCrd(
  cluster: Cluster,
  file: string,
  group: string,
  version: string,
  plural: string,
): Promise<void> {
  cluster.kubectl('apply', '-f', resolve(process.cwd(), file));
  await eventually(`${plural}.${group} to be served`, async () => {
    const list = await cluster.client.request<{ resources: { name: string }[] }>('GET', `/apis/${group}/${version}`);
    return list.resources.some((r) => r.name === plural) ? true : undefined;
  });
}
