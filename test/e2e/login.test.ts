/**
 * The login hook (kopf's on.login) and the memo against a real API server: an operator given no client
 * logs in through its hook, whose first token the API server refuses (401): the hook is called again
 * and the refused request sent once more, so the operator starts and handles objects on the second
 * login; a startup hook's memo reaches the handler's per-object copy.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtins } from '../../src/runtime/builtin-kinds.js';
import { defineHandler, onLogin, onStartup, Registry } from '../../src/runtime/index.js';
import { readKubeconfig } from '../../src/runtime/kube/kubeconfig.js';
import { Operator } from '../../src/runtime/operator.js';
import { eventually, skip, TEST_TIMEOUT } from '../helpers/envtest.js';
import { captureLogger, namespace } from '../helpers/e2e-objects.js';
import { E2eSuite } from '../helpers/e2e-suite.js';

const suite = new E2eSuite();

describe('login hook end to end', { skip }, () => {
  suite.hooks();

  it(
    'a refused token logs in again and the operator goes on; the startup memo reaches the handlers',
    { timeout: TEST_TIMEOUT },
    async () => {
      const read = readKubeconfig({ file: suite.cluster.kubeconfig });
      assert.ok(!('problem' in read), 'the cluster kubeconfig reads');
      const bearer = (await read.config.credentials.get()).headers.Authorization ?? '';
      const token = bearer.replace(/^Bearer /, '');
      assert.ok(token.length > 0, 'the envtest kubeconfig has a token');
      const ns = await namespace(suite.client, 'login');
      const registry = new Registry();
      const logins: number[] = [];
      onLogin(
        ({ retry }) => {
          logins.push(retry);
          return {
            server: read.config.server.href,
            ca: read.config.tls.ca?.toString(),
            token: retry === 0 ? 'revoked-token' : token,
          };
        },
        { registry, id: 'vault' },
      );
      onStartup(({ memo }) => void Object.assign(memo, { greeting: 'hello' }), { registry });
      const greeted: string[] = [];
      defineHandler(builtins.configMaps, 'greet').onCreate(
        ({ memo, name }) => void greeted.push(`${String((memo as Record<string, unknown>).greeting)} ${name}`),
        { registry },
      );
      const logger = captureLogger();
      const operator = new Operator({ registry, namespace: ns, logger, leaderElection: false });
      suite.track(operator);
      await operator.start();
      await operator.ready;
      await suite.client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' } },
      });
      await eventually('the handler to greet', async () => (greeted.length > 0 ? true : undefined));
      assert.deepEqual(greeted, ['hello c1']);
      assert.deepEqual(logins, [0, 1], 'one login at the start, one after the 401');
      assert.equal(
        logger.lines.filter((l) => l.includes('login hook vault succeeded')).length,
        2,
        logger.lines.join('\n'),
      );
      await operator.stop();
    },
  );
});
