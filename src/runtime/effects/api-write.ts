/**
 * Writing a merge patch of an object, and reading it back: status through the `/status`
 * subresource where there is one, retried on throttling and server errors by the one write retry
 * policy (`writeRetryDelay`), so that no outcome is lost; a warning naming any field the server
 * pruned. Every write carries the resourceVersion of the state it was decided on (a precondition):
 * one that meets a newer state fails with 409, thrown as Conflict for the caller to read the
 * object again and decide again, so a write delayed in the network (or sent by a replica whose
 * term has ended) can never land on a state it did not see. A request that fails for good is
 * thrown as RequestFailed naming the verb and resource, for the error policy.
 */
import type { KubernetesObject } from '../api/kube-types.js';
import type { ResourceEnv } from '../env.js';
import { isKubernetesObject, prunedFields } from '../json.js';
import { describe, KubeError, resourcePath } from '../kube/client.js';
import { RequestFailed, StatusSubresourceMissing } from '../reconcile/failures.js';
import { resourceVersionOf } from '../reconcile/decide.js';
import { splitPatch, type ObjectPatch } from '../reconcile/patches.js';
import { objectRef } from './log.js';
import { messageOf } from '../error-message.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A write that met a state newer than the one it was decided on (its resourceVersion precondition failed). */
export class Conflict extends Error {}

export const PATCH_ATTEMPTS = 10;

/**
 * A request too large for the API server or etcd: 413 (the server's body limit, 3 MiB), or a 500 whose
 * message is etcd's (`etcdserver: request is too large`, gRPC's `ResourceExhausted … larger than max`).
 * Sending the same bytes again can only fail again.
 */
export function tooLarge(error: KubeError): boolean {
  if (error.status === 413) return true;
  if (error.status !== 500) return false;
  return /request is too large|ResourceExhausted|larger than max/i.test(error.message);
}

/**
 * The write retry policy: milliseconds to wait before attempt `attempt + 1`, or undefined when
 * the failure is final. Network errors (reset, timeout, refused), 409, 429 and 5xx are retried
 * with the server's Retry-After, else 200 ms doubling up to 5 s, at most PATCH_ATTEMPTS times;
 * a request too large (`tooLarge`) is final at once.
 */
export function writeRetryDelay(error: unknown, attempt: number): number | undefined {
  if (attempt >= PATCH_ATTEMPTS) return undefined;
  if (!(error instanceof KubeError)) return Math.min(5000, 100 * 2 ** attempt);
  if (!(error.status === 409 || error.status === 429 || error.status >= 500) || tooLarge(error)) return undefined;
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

/** `patch` with the precondition: the resourceVersion it was decided on, when known. */
function preconditioned(patch: ObjectPatch, resourceVersion: string | undefined): ObjectPatch {
  if (resourceVersion === undefined) return patch;
  return { ...patch, metadata: { ...patch.metadata, resourceVersion } };
}

async function patchWithRetries(env: ResourceEnv, meta: Named, subresource: string | undefined, patch: ObjectPatch) {
  try {
    return await patchLoop(env, resourcePath(env.resource, meta.namespace, meta.name, subresource), patch);
  } catch (error) {
    throw failed(env, 'patch', meta, subresource, error);
  }
}

/**
 * One patch under the write retry policy. Each attempt goes through the term's fenced client, so a
 * retry after the term ended is refused; a precondition's 409 is a Conflict, never retried as is.
 */
async function patchLoop(env: ResourceEnv, path: string, patch: ObjectPatch) {
  const precondition = patch.metadata?.resourceVersion !== undefined;
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
    return await patchWithRetries(env, meta, 'status', status);
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

/**
 * Writes the patch on the state `body` (its resourceVersion is the precondition of the first request; the
 * second, after a `/status` write, carries the resourceVersion that write answered); returns the object
 * as the server answered, or undefined when it is gone (404). Throws Conflict when the object changed
 * since `body`.
 */
export async function writePatch(
  env: ResourceEnv,
  body: KubernetesObject,
  patch: ObjectPatch,
): Promise<KubernetesObject | undefined> {
  const meta = body.metadata ?? {};
  const { main, status } = splitPatch(patch, env.resource.statusSubresource);
  let resourceVersion = patch.metadata?.resourceVersion ?? resourceVersionOf(body);
  let answer: KubernetesObject | undefined;
  try {
    // Status first: should the operator stop in between, the handler runs again rather than its result being lost.
    if (status) {
      answer = await patchStatus(env, meta, preconditioned(status, resourceVersion));
      resourceVersion = resourceVersionOf(answer) ?? resourceVersion;
    }
    if (main) answer = await patchWithRetries(env, meta, undefined, preconditioned(main, resourceVersion));
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
