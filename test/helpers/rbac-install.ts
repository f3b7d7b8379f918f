/**
 * An operator installed as `kopfgen manifests` renders it, on an e2e cluster: the manifests (minus the
 * Deployment) applied as the admin, a ServiceAccount token from the TokenRequest API in a kubeconfig of
 * its own, and the operator run through the CLI with the Deployment's own arguments and that token only,
 * as its pod would run it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { MANIFEST_FILES } from '../../src/manifests/render-manifests.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import { kopfgen, REPO, tempProject } from './cli-support.js';
import type { E2eSuite } from './e2e-suite.js';
import type { Body } from './e2e-objects.js';
import { freePort } from './free-port.js';

/** One installation of the generated manifests (minus the Deployment) and its ServiceAccount's kubeconfig. */
export interface Install {
  name: string;
  namespace: string;
  dir: string;
  kubeconfig: string;
  /** The Deployment container's arguments to `kopfgen`. */
  args: string[];
}

/** A kubeconfig with the envtest server and CA, authenticating with the ServiceAccount's token only. */
async function serviceAccountKubeconfig(suite: E2eSuite, dir: string, namespace: string, name: string) {
  const answer = await suite.client.request<{ status: { token: string } }>(
    'POST',
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } } },
  );
  const admin = parse(await fs.readFile(suite.cluster.kubeconfig, 'utf8')) as {
    clusters: { cluster: Record<string, string> }[];
  };
  const { server, 'certificate-authority-data': ca } = admin.clusters[0].cluster;
  const file = join(dir, 'service-account.kubeconfig');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'operator',
    clusters: [{ name: 'envtest', cluster: { server, 'certificate-authority-data': ca } }],
    users: [{ name, user: { token: answer.status.token } }],
    contexts: [{ name: 'operator', context: { cluster: 'envtest', user: name } }],
  };
  await fs.writeFile(file, JSON.stringify(config), { mode: 0o600 });
  return file;
}

/** What the ServiceAccount may do, asked as itself (SelfSubjectAccessReview). */
export async function allowed(client: KubeClient, attributes: Record<string, string>): Promise<boolean> {
  const review = await client.request<{ status: { allowed: boolean } }>(
    'POST',
    '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    {
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: attributes },
      },
    },
  );
  return review.status.allowed;
}

/** Renders the manifests of `module`, applies all but the Deployment as the admin, and gets the ServiceAccount a token. */
export async function install(suite: E2eSuite, module: string, name: string, flags: string[]): Promise<Install> {
  const dir = await tempProject();
  const rendered = await kopfgen(['manifests', module, '--out', dir, '--name', name, ...flags], REPO);
  assert.equal(rendered.code, 0, rendered.stderr);
  for (const file of [MANIFEST_FILES.namespace, MANIFEST_FILES.serviceAccount, MANIFEST_FILES.rbac]) {
    if (existsSync(join(dir, file))) suite.cluster.kubectl('apply', '-f', join(dir, file));
  }
  const deployment = parse(await fs.readFile(join(dir, MANIFEST_FILES.deployment), 'utf8')) as Body;
  const container = deployment.spec.template.spec.containers[0];
  assert.deepEqual(container.command, ['kopfgen']);
  const namespace = deployment.metadata.namespace as string;
  const kubeconfig = await serviceAccountKubeconfig(suite, dir, namespace, name);
  return { name, namespace, dir, kubeconfig, args: container.args };
}

/** A port nothing listens on now (the health server's; 8080 may be taken by a test running beside this one). */

export interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * `kopfgen <the Deployment's args>` as the Deployment's container would run it, with the pod's env; as in a
 * pod, KUBERNETES_SERVICE_HOST is set, so leader election is on by default (its Lease under the generated Role).
 */
export async function runInstalled(at: Install): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KUBECONFIG: at.kubeconfig,
    KUBERNETES_SERVICE_HOST: '127.0.0.1',
    POD_NAME: `${at.name}-0`,
    POD_NAMESPACE: at.namespace,
  };
  const port = String(await freePort());
  const args = [...at.args, '--kubeconfig', at.kubeconfig, '--health-port', port, '--health-host', '127.0.0.1'];
  return spawnNode(['dist/src/cli/main.js', ...args], env);
}

/** `node <args>` in the repository, its stdout and stderr gathered into one output. */
export function spawnNode(args: string[], env: NodeJS.ProcessEnv): Run {
  const child = spawn(process.execPath, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** SIGTERM, at most 10 s to exit, then SIGKILL. */
export async function stopRun(run: Run): Promise<void> {
  run.child.kill('SIGTERM');
  await Promise.race([run.exited, new Promise((r) => setTimeout(r, 10_000))]);
  run.child.kill('SIGKILL');
}

export const rbacDocuments = async (at: Install): Promise<Body[]> =>
  parseAllDocuments(await fs.readFile(join(at.dir, MANIFEST_FILES.rbac), 'utf8')).map((d) => d.toJS() as Body);
