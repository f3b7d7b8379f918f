/** Credentials (src/runtime/kube/credentials.ts): exec plugins and their ExecCredential, as client-go runs them. */
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { credentialsOf, readExecCredential, type Credentials } from '../../../src/runtime/kube/credentials.js';
import { tempDir } from '../../helpers/temp-dirs.js';

function credentials(body: Record<string, unknown>): Credentials {
  const made = credentialsOf({ name: 'u', body, dir: '/' }, () => undefined);
  if (typeof made === 'string') assert.fail(made);
  return made.credentials;
}

describe('readExecCredential: given what a plugin printed, wants the headers or why not', () => {
  const later = new Date(Date.now() + 3_600_000).toISOString();
  const cases: [name: string, output: string, want: unknown][] = [
    [
      'a token that expires',
      JSON.stringify({ kind: 'ExecCredential', status: { token: 't', expirationTimestamp: later } }),
      { headers: { Authorization: 'Bearer t' }, expires: Date.parse(later) },
    ],
    [
      'a token without expiry: kept for the process',
      JSON.stringify({ status: { token: 't' } }),
      { headers: { Authorization: 'Bearer t' }, expires: Number.POSITIVE_INFINITY },
    ],
    ['not JSON', 'oops', 'printed no ExecCredential (not JSON)'],
    ['no status', '{}', 'printed an ExecCredential without status'],
    [
      'nothing usable',
      '{"status":{}}',
      'printed an ExecCredential with neither a token nor a client certificate and key',
    ],
  ];
  for (const [name, output, want] of cases) {
    it(name, () => {
      const read = readExecCredential(output, {});
      assert.deepEqual(
        typeof read === 'string' ? read : { headers: read.material.headers, expires: read.expires },
        want,
      );
    });
  }
  it('a client certificate and key (PEM text, not base64)', () => {
    const read = readExecCredential(JSON.stringify({ status: { clientCertificateData: 'C', clientKeyData: 'K' } }), {});
    assert.ok(typeof read !== 'string');
    assert.equal(read.material.cert?.toString(), 'C');
    assert.equal(read.material.key?.toString(), 'K');
  });
});

describe('exec plugins', () => {
  it('runs the command with its args, env and KUBERNETES_EXEC_INFO, once while the credential is valid', async () => {
    const dir = tempDir('kopfgen-exec-');
    const plugin = join(dir, 'plugin.sh');
    const log = join(dir, 'runs');
    writeFileSync(
      plugin,
      `#!/bin/sh\necho "$1 $GREETING $KUBERNETES_EXEC_INFO" >> ${log}\n` +
        `echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-plugin"}}'\n`,
    );
    chmodSync(plugin, 0o755);
    const exec = credentials({
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: plugin,
        args: ['--flag'],
        env: [{ name: 'GREETING', value: 'hi' }],
      },
    });
    assert.deepEqual(await exec.get(), { headers: { Authorization: 'Bearer from-plugin' } });
    await exec.get();
    const runs = readFileSync(log, 'utf8').trim().split('\n');
    assert.equal(runs.length, 1);
    assert.equal(
      runs[0],
      '--flag hi {"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","spec":{"interactive":false}}',
    );
  });
  it('a plugin that is not installed: its name and install hint', async () => {
    const exec = credentials({ exec: { command: 'kopfgen-no-such-plugin', installHint: 'brew install it' } });
    await assert.rejects(exec.get(), {
      message: 'the exec plugin kopfgen-no-such-plugin of the user u failed: not found (brew install it)',
    });
  });
  it('a plugin that fails: its stderr', async () => {
    const exec = credentials({ exec: { command: 'sh', args: ['-c', 'echo expired >&2; exit 3'] } });
    await assert.rejects(exec.get(), { message: 'the exec plugin sh of the user u failed: expired' });
  });
});
