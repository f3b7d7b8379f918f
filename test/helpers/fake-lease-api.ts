/**
 * An in-memory Lease endpoint with the API server's optimistic concurrency (resourceVersion; 409 on a
 * stale PUT or a second POST; 404 when absent), for testing the elector's loop without a cluster.
 * Requests can be made to fail (a status, or no answer until the request's timeout, as KubeClient does).
 */
import { KubeError, type RequestOptions } from '../../src/runtime/kube/client.js';
import type { Lease } from '../../src/runtime/leader/lease-record.js';

export interface FakeRequest {
  method: string;
  at: number;
  status: number;
}

export class FakeLeaseApi {
  lease: Lease | undefined;
  readonly requests: FakeRequest[] = [];
  private version = 0;
  /** Answer this status to every request while set; 0 = hang until the request's timeout. */
  failing: number | undefined;

  async request<T = Record<string, unknown>>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const record = (status: number) => this.requests.push({ method, at: Date.now(), status });
    await new Promise((r) => setImmediate(r)); // an answer is never synchronous
    if (this.failing === 0) {
      record(0);
      await new Promise((r) => setTimeout(r, options.timeoutMs ?? 30_000));
      throw new Error(`${method} ${path}: no answer within ${options.timeoutMs} ms`);
    }
    if (this.failing) {
      record(this.failing);
      throw new KubeError(`${method} ${path}: ${this.failing} injected`, this.failing, undefined);
    }
    const answer = (status: number, lease?: Lease): T => {
      record(status);
      if (status >= 300) throw new KubeError(`${method} ${path}: ${status}`, status, undefined);
      return structuredClone(lease) as T;
    };
    const body = options.body as Lease | undefined;
    if (method === 'GET') return this.lease ? answer(200, this.lease) : answer(404);
    if (method === 'POST') return this.lease || !body ? answer(409) : answer(201, this.store(body));
    if (method === 'PUT') {
      if (!this.lease || !body) return answer(404);
      if (body.metadata.resourceVersion !== this.lease.metadata.resourceVersion) return answer(409);
      return answer(200, this.store(body));
    }
    return answer(405);
  }

  /** Writes the lease as another client would (a new resourceVersion). */
  store(lease: Lease): Lease {
    const metadata = { ...lease.metadata, resourceVersion: String(++this.version) };
    this.lease = { ...structuredClone(lease), metadata };
    return this.lease;
  }

  count(method: string, since = 0): number {
    return this.requests.filter((r) => r.method === method && r.at >= since).length;
  }
}
