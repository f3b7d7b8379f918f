/** `runOperator` failing clearly without a usable module or cluster (no server needed). */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runOperator } from '../../src/cli/run.js';
import { defineHandler, Registry } from '../../src/runtime/index.js';
import { myResourceDescriptor } from '../helpers/resource-env.js';

const resource = myResourceDescriptor();

function closedPortKubeconfig(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'kopfgen-run-')), 'kubeconfig');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: c',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]',
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
      '',
    ].join('\n'),
  );
  return file;
}

describe('runOperator', () => {
  it('exits 1 naming the module when it does not exist', async () => {
    const lines: string[] = [];
    assert.equal(await runOperator('test/fixtures/runtime/missing.ts', { write: (l) => lines.push(l) }), 1);
    assert.match(lines.join('\n'), /missing\.ts: no such file/);
  });
  it('exits 1 when the module registers no handler', async () => {
    const lines: string[] = [];
    const code = await runOperator('test/fixtures/runtime/empty.mjs', {
      registry: new Registry(),
      kubeconfig: closedPortKubeconfig(),
      write: (l) => lines.push(l),
    });
    assert.equal(code, 1);
    assert.match(lines.join('\n'), /no handlers are registered/);
  });
  it('exits 1 with a clear message when the cluster is not reachable', async () => {
    const registry = new Registry();
    defineHandler(resource, 'myapp').onCreate(() => undefined, { registry });
    const lines: string[] = [];
    const code = await runOperator('test/fixtures/runtime/empty.mjs', {
      registry,
      kubeconfig: closedPortKubeconfig(),
      write: (l) => lines.push(l),
    });
    assert.equal(code, 1);
    assert.match(lines.join('\n'), /cannot reach the Kubernetes API at https:\/\/127\.0\.0\.1:1/);
  });
  it('exits 1 naming the namespace when -n is not a valid namespace name, before contacting the cluster', async () => {
    const registry = new Registry();
    defineHandler(resource, 'myapp').onCreate(() => undefined, { registry });
    const lines: string[] = [];
    const code = await runOperator('test/fixtures/runtime/empty.mjs', {
      registry,
      namespace: 'Bad_NS!',
      kubeconfig: closedPortKubeconfig(),
      write: (l) => lines.push(l),
    });
    assert.equal(code, 1);
    assert.deepEqual(lines.length, 1, lines.join('\n'));
    assert.match(lines[0], /^kopfgen run: namespace "Bad_NS!" is not a valid namespace name/);
  });
});
