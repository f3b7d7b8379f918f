/** The kubeconfig reader (src/runtime/kube/kubeconfig.ts): client-go's loading rules, every field it reads. */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  inClusterConfig,
  kubeconfigFromDocument,
  readKubeconfig,
  type ClusterConfig,
  type KubeconfigResult,
} from '../../../src/runtime/kube/kubeconfig.js';
import { tempDir } from '../../helpers/temp-dirs.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

function doc(
  cluster: Record<string, unknown>,
  user: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'c',
    clusters: [{ name: 'k', cluster: { server: 'https://10.0.0.1:6443', ...cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'c', context: { cluster: 'k', user: 'u', namespace: 'team' } }],
    ...extra,
  };
}

function config(result: KubeconfigResult): ClusterConfig {
  if ('problem' in result) assert.fail(result.problem);
  return result.config;
}

const problem = (result: KubeconfigResult) => ('problem' in result ? result.problem : undefined);

describe('kubeconfig: a document', () => {
  it('given cluster and user fields, wants the TLS settings and headers client-go would use', async () => {
    const dir = tempDir('kopfgen-kc-');
    writeFileSync(join(dir, 'ca.crt'), 'CA FILE');
    writeFileSync(join(dir, 'token'), 'file-token\n');
    const cases: [name: string, cluster: Record<string, unknown>, user: Record<string, unknown>, want: unknown][] = [
      ['token', {}, { token: 't1' }, { headers: { Authorization: 'Bearer t1' } }],
      ['basic auth', {}, { username: 'a', password: 'b' }, { headers: { Authorization: `Basic ${b64('a:b')}` } }],
      [
        'token file, relative to the kubeconfig',
        {},
        { tokenFile: 'token' },
        { headers: { Authorization: 'Bearer file-token' } },
      ],
      [
        'impersonation',
        {},
        { token: 't', as: 'bob', 'as-groups': ['g1', 'g2'] },
        {
          headers: { 'Impersonate-User': 'bob', 'Impersonate-Group': 'g1, g2', Authorization: 'Bearer t' },
        },
      ],
      [
        'oidc id-token',
        {},
        { 'auth-provider': { name: 'oidc', config: { 'id-token': 'jwt' } } },
        {
          headers: { Authorization: 'Bearer jwt' },
        },
      ],
      ['no credentials', {}, {}, { headers: {} }],
    ];
    for (const [name, cluster, user, want] of cases) {
      const read = config(kubeconfigFromDocument(doc(cluster, user), dir));
      assert.deepEqual(await read.credentials.get(), want, name);
    }
    const tls = config(
      kubeconfigFromDocument(
        doc(
          { 'certificate-authority': 'ca.crt', 'insecure-skip-tls-verify': true, 'tls-server-name': 'api.local' },
          { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') },
        ),
        dir,
      ),
    );
    assert.equal(tls.server.href, 'https://10.0.0.1:6443/');
    assert.equal(tls.namespace, 'team');
    assert.deepEqual(
      { ...tls.tls, ca: tls.tls.ca?.toString(), cert: tls.tls.cert?.toString(), key: tls.tls.key?.toString() },
      { ca: 'CA FILE', cert: 'CERT', key: 'KEY', rejectUnauthorized: false, servername: 'api.local' },
    );
  });

  it('given what cannot work, wants one line saying so', () => {
    const cases: [name: string, document: unknown, context: string | undefined, want: RegExp][] = [
      ['an unknown context', doc({}), 'prod', /^no context prod in the kubeconfig \(contexts: c\)$/],
      ['no current context', { ...doc({}), 'current-context': undefined }, undefined, /no current-context is set/],
      ['no server', doc({ server: undefined }), undefined, /the cluster k has no server/],
      ['a server that is no URL', doc({ server: 'not a url' }), undefined, /is not a URL: not a url/],
      [
        'a proxy',
        doc({ 'proxy-url': 'http://proxy:3128' }),
        undefined,
        /sets proxy-url, which kopfgen does not support/,
      ],
      [
        'a missing CA file',
        doc({ 'certificate-authority': '/nope/ca.crt' }),
        undefined,
        /cannot read the certificate authority of k/,
      ],
      ['a certificate without key', doc({}, { 'client-certificate-data': b64('C') }), undefined, /without its key/],
      [
        'gcp auth-provider',
        doc({}, { 'auth-provider': { name: 'gcp' } }),
        undefined,
        /auth-provider gcp, which kopfgen does not support/,
      ],
      [
        'an exec plugin without command',
        doc({}, { exec: { apiVersion: 'client.authentication.k8s.io/v1' } }),
        undefined,
        /names no command/,
      ],
      ['clusters not a list', { ...doc({}), clusters: 'x' }, undefined, /clusters is not a list/],
      ['a nameless user', { ...doc({}), users: [{ user: {} }] }, undefined, /users\[0\] has no name/],
    ];
    for (const [name, document, context, want] of cases)
      assert.match(problem(kubeconfigFromDocument(document, '/', context)) ?? '(no problem)', want, name);
  });
});

describe('kubeconfig: which files', () => {
  const write = (dir: string, name: string, document: unknown) => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(document));
    return file;
  };

  it('KUBECONFIG files merge, the first to set a name or current-context winning; missing files are skipped', () => {
    const dir = tempDir('kopfgen-kc-');
    const first = write(dir, 'a', { ...doc({ server: 'https://first:1' }, { token: 'one' }), 'current-context': 'c' });
    const second = write(dir, 'b', {
      'current-context': 'other',
      clusters: [
        { name: 'k', cluster: { server: 'https://second:2' } },
        { name: 'k2', cluster: { server: 'https://only-second:3' } },
      ],
      contexts: [{ name: 'other', context: { cluster: 'k2', user: 'u' } }],
    });
    const env = { KUBECONFIG: [join(dir, 'missing'), first, second].join(':') };
    const merged = config(readKubeconfig({ env }));
    assert.equal(merged.server.host, 'first:1');
    assert.equal(merged.context, 'c');
    const other = config(readKubeconfig({ env, context: 'other' }));
    assert.equal(other.server.host, 'only-second:3');
  });

  it('YAML as kubectl writes it (the yaml package is loaded for it)', () => {
    const dir = tempDir('kopfgen-kc-');
    const file = join(dir, 'config');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'clusters:',
        '- cluster:',
        '    server: https://127.0.0.1:6443',
        '  name: kind',
        'contexts:',
        '- context: {cluster: kind, user: admin}',
        '  name: kind',
        'current-context: kind # a comment',
        'users:',
        '- name: admin',
        '  user:',
        "    token: 'abc'",
        '',
      ].join('\n'),
    );
    const read = config(readKubeconfig({ file }));
    assert.equal(read.server.port, '6443');
    assert.equal(read.source, file);
  });

  it('~/.kube/config without KUBECONFIG; without either, in-cluster; without that, one line', () => {
    const home = tempDir('kopfgen-home-');
    const none = readKubeconfig({ env: {}, home, serviceAccountDir: join(home, 'sa') });
    assert.match(problem(none) ?? '', /^no kubeconfig: KUBECONFIG is not set, .*\.kube\/config does not exist/);
    mkdirSync(join(home, '.kube'));
    write(join(home, '.kube'), 'config', doc({}, { token: 'home' }));
    assert.equal(config(readKubeconfig({ env: {}, home })).server.host, '10.0.0.1:6443');
  });

  it('in-cluster: the service account token (re-read), CA and namespace; IPv6 hosts bracketed', async () => {
    const sa = tempDir('kopfgen-sa-');
    const env = { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' };
    assert.match(problem(inClusterConfig(env, sa)) ?? '', /no service account token at/);
    writeFileSync(join(sa, 'token'), 'sa-token');
    writeFileSync(join(sa, 'ca.crt'), 'CA');
    writeFileSync(join(sa, 'namespace'), 'ops\n');
    const read = config(inClusterConfig(env, sa));
    assert.equal(read.server.href, 'https://[fd00::1]/'); // 443 is https' default
    assert.equal(read.namespace, 'ops');
    assert.equal(read.tls.ca?.toString(), 'CA');
    assert.deepEqual(await read.credentials.get(), { headers: { Authorization: 'Bearer sa-token' } });
    assert.match(problem(inClusterConfig({}, sa)) ?? '', /not running in a cluster/);
  });
});
