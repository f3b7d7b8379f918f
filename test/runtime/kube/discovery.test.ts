/** Startup checks: one clear line when the cluster or a resource is not there. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeError, type KubeClient } from '../../../src/runtime/kube/client.js';
import { checkCluster, checkResource, StartupError } from '../../../src/runtime/kube/discovery.js';
import { myResourceDescriptor } from '../../helpers/resource-env.js';

const resource = myResourceDescriptor();

function client(answer: () => unknown): KubeClient {
  const fake = {
    server: new URL('https://127.0.0.1:6443'),
    async request() {
      return answer();
    },
  };
  return fake as unknown as KubeClient;
}

describe('discovery', () => {
  it('given what the cluster answers, wants a start or one line naming the problem', async () => {
    const cases: { given: () => unknown; want: RegExp | undefined }[] = [
      { given: () => ({ resources: [{ name: 'myresources' }, { name: 'myresources/status' }] }), want: undefined },
      {
        given: () => ({ resources: [{ name: 'others' }] }),
        want: /does not serve myresources\.example\.com\/v1 \(kind MyResource\)/,
      },
      {
        given: () => {
          throw new KubeError('404', 404, undefined);
        },
        want: /is the CRD myresources\.example\.com installed with version v1\?/,
      },
      {
        given: () => {
          throw new KubeError('GET: 403 forbidden', 403, undefined);
        },
        want: /cannot read \/apis\/example\.com\/v1: GET: 403 forbidden/,
      },
    ];
    for (const { given, want } of cases) {
      const checked = checkResource(client(given), resource);
      const named = (error: unknown) => error instanceof StartupError && want !== undefined && want.test(error.message);
      if (want) await assert.rejects(checked, named);
      else await checked;
    }
  });
  it('an unreachable API server names its address', async () => {
    const unreachable = client(() => {
      throw new Error('connect ECONNREFUSED');
    });
    const want = /cannot reach the Kubernetes API at https:\/\/127\.0\.0\.1:6443: connect ECONNREFUSED/;
    await assert.rejects(checkCluster(unreachable), want);
  });
});
