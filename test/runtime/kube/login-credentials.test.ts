import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import type { ConnectionInfo, RegisteredLogin } from '../../../src/runtime/api/login.js';
import { onLogin } from '../../../src/runtime/api/login.js';
import { Registry } from '../../../src/runtime/api/registry.js';
import { createLogger } from '../../../src/runtime/effects/log.js';
import { KubeClient, KubeError } from '../../../src/runtime/kube/client.js';
import { logIn, loginConfig, loginCredentials, materialOf } from '../../../src/runtime/kube/login-credentials.js';

const logger = createLogger({ write: () => {} });

describe('materialOf', () => {
  const rows: { name: string; info: ConnectionInfo; want: unknown }[] = [
    {
      name: 'a token: Bearer',
      info: { server: 'https://k', token: 't' },
      want: { headers: { Authorization: 'Bearer t' } },
    },
    {
      name: 'basic auth',
      info: { server: 'https://k', username: 'u', password: 'p' },
      want: { headers: { Authorization: `Basic ${Buffer.from('u:p').toString('base64')}` } },
    },
    {
      name: 'a client certificate',
      info: { server: 'https://k', certificate: { cert: 'C', key: 'K' } },
      want: { headers: {}, cert: Buffer.from('C'), key: Buffer.from('K') },
    },
  ];
  for (const row of rows) it(row.name, () => assert.deepEqual(materialOf(row.info), row.want));
});

describe('loginConfig', () => {
  const login = () => Promise.reject(new Error('not called'));
  it('refuses a server that is not an http(s) URL, in one line', () => {
    assert.equal(loginConfig({ server: 'nope' }, login, 'login hook'), 'login hook: the server "nope" is not a URL');
    assert.equal(
      loginConfig({ server: 'ftp://k' }, login, 'login hook'),
      'login hook: the server ftp://k is neither https nor http',
    );
  });
  it('takes the CA, the verification and the namespace of the first login', () => {
    const config = loginConfig({ server: 'https://k:6443', ca: 'CA', insecure: true }, login, 'login hook');
    assert.ok(typeof config !== 'string');
    assert.deepEqual(
      [config.server.href, config.tls, config.namespace],
      ['https://k:6443/', { ca: Buffer.from('CA'), rejectUnauthorized: false }, 'default'],
    );
  });
});

describe('logIn', () => {
  const hooks = (...fns: RegisteredLogin['fn'][]) => {
    const registry = new Registry();
    fns.forEach((fn, i) => onLogin(fn, { registry, id: `h${i}` }));
    return registry.logins;
  };
  it('the first hook that returns a connection wins, in registration order', async () => {
    const info = await logIn(
      hooks(
        () => undefined,
        () => ({ server: 'https://a', token: 'a' }),
        () => ({ server: 'https://b' }),
      ),
      { logger, retry: 0 },
    );
    assert.equal(info.server, 'https://a');
  });
  it('a hook that throws fails the login, naming it; none returning one fails too', async () => {
    await assert.rejects(
      logIn(
        hooks(() => {
          throw new Error('vault sealed');
        }),
        { logger, retry: 0 },
      ),
      /login hook h0 failed: vault sealed/,
    );
    await assert.rejects(
      logIn(
        hooks(() => undefined),
        { logger, retry: 0 },
      ),
      /no login hook returned a connection \(h0\)/,
    );
  });
  it('an expired connection logs in again before it is used', async () => {
    let logins = 0;
    let now = 1000;
    const credentials = loginCredentials(
      { server: 'https://k', token: 'old', expiration: new Date(2000) },
      async () => ({ server: 'https://k', token: `new${++logins}` }),
      () => now,
    );
    assert.equal((await credentials.get()).headers.Authorization, 'Bearer old');
    now = 2000;
    assert.equal((await credentials.get()).headers.Authorization, 'Bearer new1');
    assert.equal((await credentials.get()).headers.Authorization, 'Bearer new1');
  });
});

describe('KubeClient over a login', () => {
  it('a 401 logs in again (once, for every request waiting) and the request is sent again; a second 401 stands', async () => {
    let accepted = 'second';
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(String(req.headers.authorization));
      const ok = req.headers.authorization === `Bearer ${accepted}`;
      res.writeHead(ok ? 200 : 401, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(ok ? { kind: 'Namespace' } : { kind: 'Status', message: 'Unauthorized' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const tokens = ['first', 'second', 'third', 'fourth'];
    let logins = 0;
    const login = async () => ({ server: `http://127.0.0.1:${port}`, token: tokens[logins++] ?? 'none' });
    const config = loginConfig(await login(), login, 'login hook');
    assert.ok(typeof config !== 'string');
    const client = new KubeClient(config);
    try {
      const answers = await Promise.all([
        client.request('GET', '/api/v1/namespaces/a'),
        client.request('GET', '/api/v1/namespaces/b'),
      ]);
      assert.deepEqual(answers, [{ kind: 'Namespace' }, { kind: 'Namespace' }]);
      assert.equal(logins, 2, 'the first login, and one more for both refused requests');
      accepted = 'nothing';
      await assert.rejects(
        client.request('GET', '/api/v1/namespaces/a'),
        (error) => (error as KubeError).status === 401,
      );
      assert.equal(logins, 3, 'one renewal per refused request, not a loop');
      assert.deepEqual(seen.slice(-2), ['Bearer second', 'Bearer third']);
    } finally {
      client.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
