/** `--from-cluster` failing as diagnostics and usage errors, without a server (src/cli/from-cluster.ts). */
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readCluster } from '../../src/cli/from-cluster.js';
import { closedPortKubeconfig, kopfgen, tempProject } from '../helpers/cli-support.js';

test('readCluster: an unknown context is KG151 naming the known ones; an unreachable server is KG152', async () => {
  const kubeconfig = closedPortKubeconfig();
  const ctx = await readCluster({ kubeconfig, context: 'prod', names: ['a.example.com'] });
  assert.deepEqual(
    ctx.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code} ${d.message}`),
    ['<cluster>:1:1 KG151 no context prod in the kubeconfig (contexts: c)'],
  );
  const down = await readCluster({ kubeconfig, names: ['a.example.com'], selector: 'app=x' });
  assert.deepEqual(down.sources, []);
  assert.deepEqual(
    down.diagnostics.map((d) => `${d.file} ${d.code}`),
    ['<cluster>/crd/a.example.com KG152', '<cluster> KG152'],
  );
  assert.match(down.diagnostics[0].message, /^cannot read a\.example\.com from the cluster: .*ECONNREFUSED/);
  const missing = await readCluster({ kubeconfig: join(tmpdir(), 'no-such-kubeconfig'), names: ['a.example.com'] });
  assert.deepEqual(
    missing.diagnostics.map((d) => d.code),
    ['KG151'],
  );
});

test('--from-cluster needs names or -l; -l needs --from-cluster; --watch does not combine', async () => {
  const dir = await tempProject();
  const cases: [string[], RegExp][] = [
    [['generate', '--from-cluster'], /--from-cluster reads CRDs by name or label/],
    [['generate', 'crds', '-l', 'app=x'], /-l\/--selector selects CRDs in a cluster: add --from-cluster/],
    [['generate', 'a.example.com', '--from-cluster', '--watch'], /--watch watches files/],
  ];
  for (const [args, message] of cases) {
    const r = await kopfgen(args, dir);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, message);
  }
});

test('--from-cluster with a server that does not answer: KG152 in the JSON report, exit 1', async () => {
  const dir = await tempProject();
  const r = await kopfgen(
    ['generate', 'a.example.com', '--from-cluster', '--kubeconfig', closedPortKubeconfig(), '--format', 'json'],
    dir,
  );
  assert.equal(r.code, 1);
  const report = JSON.parse(r.stdout) as { diagnostics: { code: string; file: string }[] };
  assert.deepEqual(
    report.diagnostics.map((d) => `${d.code} ${d.file}`),
    ['KG152 <cluster>/crd/a.example.com'],
  );
});
