/**
 * Startup checks against the cluster: the API answers, and its discovery serves each
 * registered resource. A failure is a StartupError with one line naming what is missing.
 */
import type { ResourceDescriptor } from '../api/define.js';
import { isPlainObject } from '../json.js';
import { describe, KubeError, type KubeClient } from './client.js';
import { messageOf } from '../error-message.js';

/** The cluster or a resource is not reachable: the operator cannot start. */
export class StartupError extends Error {}

export async function checkCluster(client: KubeClient): Promise<void> {
  try {
    await client.request('GET', '/version', { timeoutMs: 10_000 });
  } catch (error) {
    throw new StartupError(`cannot reach the Kubernetes API at ${client.server.origin}: ${messageOf(error)}`);
  }
}

/** The names of the resources a discovery document lists. */
function servedNames(document: unknown): string[] {
  const resources = isPlainObject(document) && Array.isArray(document.resources) ? document.resources : [];
  return resources.flatMap((r: unknown) => (isPlainObject(r) && typeof r.name === 'string' ? [r.name] : []));
}

export async function checkResource(client: KubeClient, resource: ResourceDescriptor): Promise<void> {
  const path = `/apis/${resource.group}/${resource.version}`;
  let served: string[] = [];
  try {
    served = servedNames(await client.request(`GET`, path, { timeoutMs: 10_000 }));
  } catch (error) {
    if (!(error instanceof KubeError && error.status === 404)) {
      throw new StartupError(`cannot read ${path}: ${messageOf(error)}`);
    }
  }
  if (!served.includes(resource.plural)) {
    throw new StartupError(
      `the cluster does not serve ${describe(resource)} (kind ${resource.kind}): ` +
        `is the CRD ${resource.plural}.${resource.group} installed with version ${resource.version}?`,
    );
  }
}
