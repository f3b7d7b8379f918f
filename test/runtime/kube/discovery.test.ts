/** Startup checks: one clear line when the cluster or a resource is not there. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeError, type KubeClient } from '../../../src/runtime/kube/client.js';
import { builtins } from '../../../src/runtime/builtin-kinds.js';
import { checkCluster, checkResource, discoveryPath, StartupError } from '../../../src/runtime/kube/discovery.js';
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
  it('a built-in kind is looked up in /api/v1 (core group) or /apis/<group>/<version>, with no CRD to name', async () => {
    const asked: string[] = [];
    const recording = (answer: unknown): KubeClient => {
      const fake = {
        server: new URL('https://127.0.0.1:6443'),
        async request(_method: string, path: string) {
          asked.push(path);
          return answer;
        },
      };
      return fake as unknown as KubeClient;
    };
    await checkResource(recording({ resources: [{ name: 'configmaps' }] }), builtins.configMaps);
    await checkResource(recording({ resources: [{ name: 'deployments' }] }), builtins.deployments);
    assert.deepEqual(asked, ['/api/v1', '/apis/apps/v1']);
    assert.equal(discoveryPath(builtins.jobs), '/apis/batch/v1');
    await assert.rejects(checkResource(recording({ resources: [] }), builtins.cronJobs), (error: unknown) => {
      assert.ok(error instanceof StartupError);
      assert.equal(
        error.message,
        'the cluster does not serve cronjobs.batch/v1 (kind CronJob): /apis/batch/v1 does not list cronjobs: ' +
          'does this Kubernetes version serve CronJob in batch v1?',
      );
      return true;
    });
    await assert.rejects(checkResource(recording({ resources: [] }), builtins.pods), {
      message:
        'the cluster does not serve pods/v1 (kind Pod): /api/v1 does not list pods: ' +
        'does this Kubernetes version serve Pod in the core group v1?',
    });
  });
  it('an unreachable API server names its address', async () => {
    const unreachable = client(() => {
      throw new Error('connect ECONNREFUSED');
    });
    const want = /cannot reach the Kubernetes API at https:\/\/127\.0\.0\.1:6443: connect ECONNREFUSED/;
    await assert.rejects(checkCluster(unreachable), want);
  });
});
