/**
 * Writing a merge patch of an object, and reading it back: status through the `/status`
 * subresource where there is one, retried on conflicts, throttling and server errors by the
 * one write retry policy (`writeRetryDelay`), so that no outcome is lost; a warning naming any
 * field the server pruned. A request that fails for good is thrown as RequestFailed naming the
 * verb and resource, for the error policy.
 */
import type { KubernetesObject } from '../api/kube-types.js';
import type { ResourceEnv } from '../env.js';
import { isKubernetesObject, prunedFields } from '../json.js';
import { describe, KubeError, resourcePath } from '../kube/client.js';
import { RequestFailed, StatusSubresourceMissing } from '../reconcile/failures.js';
import { splitPatch, type ObjectPatch } from '../reconcile/patches.js';
import { objectRef } from './log.js';
import { messageOf } from '../error-message.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A write conflicting with a concurrent change (only for writes that carry a resourceVersion). */
export class Conflict extends Error {}

export const PATCH_ATTEMPTS = 10;

/**
 * The write retry policy: milliseconds to wait before attempt `attempt + 1`, or undefined when
 * the failure is final. Network errors (reset, timeout, refused), 409, 429 and 5xx are retried
 * with the server's Retry-After, else 200 ms doubling up to 5 s, at most PATCH_ATTEMPTS times.
 */
export function writeRetryDelay(error: unknown, attempt: number): number | undefined {
  if (attempt >= PATCH_ATTEMPTS) return undefined;
  if (!(error instanceof KubeError)) return Math.min(5000, 100 * 2 ** attempt);
  if (!(error.status === 409 || error.status === 429 || error.status >= 500)) return undefined;
  return error.retryAfter !== undefined ? error.retryAfter * 1000 : Math.min(5000, 100 * 2 ** attempt);
}

interface Named {
  name?: string;
  namespace?: string;
}

/** The failed request as RBAC names it; a 404 stays a KubeError (the object is gone, not a failure). */
function failed(env: ResourceEnv, verb: string, meta: Named, subresource: string | undefined, error: unknown): unknown {
  if (error instanceof Conflict || (error instanceof KubeError && error.status === 404)) return error;
  const resource = subresource ? `${env.resource.plural}/${subresource}` : env.resource.plural;
  const request = { verb, resource, group: env.resource.group, namespace: meta.namespace, name: meta.name };
  const status = error instanceof KubeError ? error.status : 0;
  const server =
    error instanceof KubeError && isKubernetesObject(error.body) && typeof error.body.message === 'string'
      ? error.body.message
      : messageOf(error);
  return new RequestFailed(request, status, server, { cause: error });
}

async function patchWithRetries(
  env: ResourceEnv,
  meta: Named,
  subresource: string | undefined,
  patch: ObjectPatch,
  precondition: boolean,
) {
  try {
    return await patchLoop(
      env,
      resourcePath(env.resource, meta.namespace, meta.name, subresource),
      patch,
      precondition,
    );
  } catch (error) {
    throw failed(env, 'patch', meta, subresource, error);
  }
}

async function patchLoop(env: ResourceEnv, path: string, patch: ObjectPatch, precondition: boolean) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await env.client.request<KubernetesObject>('PATCH', path, {
        body: patch,
        contentType: 'application/merge-patch+json',
      });
    } catch (error) {
      if (error instanceof KubeError && error.status === 409 && precondition) throw new Conflict(error.message);
      const wait = writeRetryDelay(error, attempt);
      if (wait === undefined) throw error;
      env.logger.warn(`patch of ${path} failed (attempt ${attempt}), retrying in ${wait} ms: ${messageOf(error)}`);
      await sleep(wait);
    }
  }
}

/** A 404 from `/status` while the object exists means the cluster's CRD has no status subresource. */
async function patchStatus(env: ResourceEnv, meta: Named, status: ObjectPatch): Promise<KubernetesObject> {
  try {
    return await patchWithRetries(env, meta, 'status', status, false);
  } catch (error) {
    if (!(error instanceof KubeError && error.status === 404)) throw error;
    try {
      await env.client.request('GET', resourcePath(env.resource, meta.namespace, meta.name));
    } catch (reading) {
      throw failed(env, 'get', meta, undefined, reading); // a 404 here too: the object is gone
    }
    throw new StatusSubresourceMissing(describe(env.resource));
  }
}

/** Writes the patch; returns the object as the server answered, or undefined when it is gone (404). */
export async function writePatch(
  env: ResourceEnv,
  body: KubernetesObject,
  patch: ObjectPatch,
): Promise<KubernetesObject | undefined> {
  const meta = body.metadata ?? {};
  const { main, status } = splitPatch(patch, env.resource.statusSubresource);
  const precondition = patch.metadata?.resourceVersion !== undefined;
  let answer: KubernetesObject | undefined;
  try {
    // Status first: should the operator stop in between, the handler runs again rather than its result being lost.
    if (status) answer = await patchStatus(env, meta, status);
    if (main) {
      answer = await patchWithRetries(env, meta, undefined, main, precondition);
    }
  } catch (error) {
    if (error instanceof KubeError && error.status === 404) return undefined;
    throw error;
  }
  if (answer) warnPruned(env, body, patch, answer);
  return answer;
}

function warnPruned(env: ResourceEnv, body: KubernetesObject, patch: ObjectPatch, answer: KubernetesObject): void {
  const written = { spec: patch.spec, status: patch.status };
  for (const field of prunedFields(written, answer)) {
    const note = `${objectRef(body)}: the API server dropped ${field} (not in the CRD's schema?)`;
    env.logger.warn(note, { resource: env.resource.plural });
  }
}

/** The object as the server has it now, or undefined when it is gone (404). */
export async function readObject(env: ResourceEnv, body: KubernetesObject): Promise<KubernetesObject | undefined> {
  const meta = body.metadata ?? {};
  try {
    const answer = await env.client.request('GET', resourcePath(env.resource, meta.namespace, meta.name));
    return isKubernetesObject(answer) ? answer : undefined;
  } catch (error) {
    if (error instanceof KubeError && error.status === 404) return undefined;
    throw failed(env, 'get', meta, undefined, error);
  }
}
