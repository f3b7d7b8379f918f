/**
 * Startup checks against the cluster: the API answers, and its discovery serves each
 * registered resource (`/api/v1` for the core group, `/apis/<group>/<version>` for any other). A failure is a StartupError with one line naming what is missing.
 */
import type { ResourceDescriptor } from '../api/define.js';
import { isBuiltin } from '../api/builtins.js';
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

/** The discovery document of a group version: `/api/v1` for the core group, `/apis/<group>/<version>` else. */
export function discoveryPath(resource: Pick<ResourceDescriptor, 'group' | 'version'>): string {
  return resource.group ? `/apis/${resource.group}/${resource.version}` : `/api/${resource.version}`;
}

export async function checkResource(client: KubeClient, resource: ResourceDescriptor): Promise<void> {
  const path = discoveryPath(resource);
  let served: string[] = [];
  try {
    served = servedNames(await client.request(`GET`, path, { timeoutMs: 10_000 }));
  } catch (error) {
    if (!(error instanceof KubeError && error.status === 404)) {
      throw new StartupError(`cannot read ${path}: ${messageOf(error)}`);
    }
  }
  if (!served.includes(resource.plural)) {
    // A built-in kind has no CRD to install: its group version is not served by this cluster's version.
    const hint = isBuiltin(resource)
      ? `${path} does not list ${resource.plural}: does this Kubernetes version serve ${resource.kind} in ${resource.group || 'the core group'} ${resource.version}?`
      : `is the CRD ${resource.plural}.${resource.group} installed with version ${resource.version}?`;
    throw new StartupError(`the cluster does not serve ${describe(resource)} (kind ${resource.kind}): ${hint}`);
  }
}
