/**
 * One object held in memory behind a fake API client: PATCHes are merge patches applied to it, each
 * answered with the object as it now is and a new resourceVersion (409, as the API server, when the patch
 * names another resourceVersion); a GET answers the object; other requests (Events) answer `{}`.
 * For the reconciler, controller, timers and daemons tests; `edit` is a change someone else makes.
 */
import type { KubernetesObject } from '../../src/runtime/api/kube-types.js';
import { applyMergePatch } from '../../src/runtime/json.js';
import { KubeError, type KubeClient } from '../../src/runtime/kube/client.js';

export interface ObjectApi {
  client: KubeClient;
  /** The object as the fake server holds it now; undefined once gone. */
  current(): KubernetesObject | undefined;
  /** The bodies of the PATCHes made, in order. */
  written: Record<string, unknown>[];
  /** Someone else's merge patch (a new resourceVersion); returns the object after it. */
  edit(patch: Record<string, unknown>): KubernetesObject;
  /** The object is deleted: PATCHes answer 404 from now on. */
  remove(): void;
}

export function objectApi(initial: KubernetesObject): ObjectApi {
  let object: KubernetesObject | undefined = structuredClone(initial);
  let version = Number(initial.metadata?.resourceVersion ?? 0);
  const written: Record<string, unknown>[] = [];
  const apply = (patch: unknown): KubernetesObject => {
    if (!object) throw Object.assign(new Error('gone'), { status: 404 });
    const next = applyMergePatch(object, patch) as KubernetesObject;
    next.metadata = { ...next.metadata, resourceVersion: String(++version) };
    object = next;
    return structuredClone(next);
  };
  const client = {
    async request(method: string, _path: string, options: { body?: { metadata?: { resourceVersion?: string } } } = {}) {
      if (method === 'GET') {
        if (!object) throw new KubeError('GET: 404 gone', 404, undefined);
        return structuredClone(object);
      }
      if (method !== 'PATCH') return {};
      const precondition = options.body?.metadata?.resourceVersion;
      if (object && precondition !== undefined && precondition !== object.metadata?.resourceVersion) {
        throw new KubeError('PATCH: 409 the object has been modified', 409, undefined);
      }
      written.push(options.body ?? {});
      return apply(options.body);
    },
  } as unknown as KubeClient;
  return {
    client,
    current: () => object,
    written,
    edit: (patch) => apply(patch),
    remove: () => void (object = undefined),
  };
}
