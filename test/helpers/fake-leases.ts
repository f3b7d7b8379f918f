/**
 * An in-memory Lease collection with the API server's optimistic concurrency (resourceVersion; 409 on a
 * stale PUT or a second POST; 404 when absent) and LIST, for the shard member's loop without a cluster.
 * `clientFor` gives a client that can be cut off (every request fails, as a partitioned replica's would).
 */
import { KubeError, type RequestOptions } from '../../src/runtime/kube/client.js';
import type { Lease } from '../../src/runtime/leader/lease-record.js';

export class FakeLeases {
  readonly leases = new Map<string, Lease>();
  private version = 0;

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    await new Promise((resolve) => setImmediate(resolve)); // an answer is never synchronous
    const match = /\/namespaces\/[^/]+\/leases(?:\/([^/?]+))?$/.exec(path);
    if (!match) throw new KubeError(`${method} ${path}: 404`, 404, undefined);
    const name = match[1] ? decodeURIComponent(match[1]) : undefined;
    const body = options.body as Lease | undefined;
    const fail = (status: number): never => {
      throw new KubeError(`${method} ${path}: ${status}`, status, undefined);
    };
    const answer = (lease: Lease): T => structuredClone(lease) as T;
    if (method === 'GET' && name === undefined)
      return { items: [...this.leases.values()].map((l) => structuredClone(l)) } as T;
    if (method === 'GET' && name) return answer(this.leases.get(name) ?? fail(404));
    if (method === 'POST' && body) return this.leases.has(body.metadata.name) ? fail(409) : answer(this.store(body));
    if (method === 'PUT' && name && body) {
      const current = this.leases.get(name) ?? fail(404);
      if (current.metadata.resourceVersion !== body.metadata.resourceVersion) fail(409);
      return answer(this.store(body));
    }
    return fail(405);
  }

  private store(lease: Lease): Lease {
    const stored = {
      ...structuredClone(lease),
      metadata: { ...lease.metadata, resourceVersion: String(++this.version) },
    };
    this.leases.set(stored.metadata.name, stored);
    return stored;
  }

  /** A client of these Leases that fails every request while `cut.off` is set. */
  clientFor(cut: { off: boolean }) {
    return {
      request: <T>(method: string, path: string, options?: RequestOptions): Promise<T> =>
        cut.off
          ? Promise.reject(new Error(`${method} ${path}: connection refused`))
          : this.request<T>(method, path, options),
    };
  }
}
