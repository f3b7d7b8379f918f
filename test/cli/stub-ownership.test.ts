/**
 * Stubs follow the user: a handler registered anywhere under the stubs directory is present, so
 * moving stubs never makes `generate` add them again (and the operator starts); removing a
 * handler id is a positioned diagnostic and leaves a project that still type-checks.
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { GeneratedFile } from '../../src/api.js';
import { EXAMPLE_CRD, REPO, kopfgen, read, tempProject, tree, writeFiles } from '../helpers/cli-support.js';
import { formatErrors, typeCheckProject } from '../helpers/handler-typecheck.js';
import { outsideUnitScope } from '../helpers/test-scope.js';

const CLOSED_PORT_KUBECONFIG = [
  'apiVersion: v1',
  'kind: Config',
  'current-context: c',
  'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]',
  'users: [{name: u, user: {token: t}}]',
  'contexts: [{name: c, context: {cluster: c, user: u}}]',
  '',
].join('\n');

/** An operator entry that loads every handler file, wherever the user put it. */
const OPERATOR = `import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const root = join(import.meta.dirname, 'handlers');
for (const entry of readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).sort()) {
  await import(pathToFileURL(join(root, entry)).href);
}
`;

async function files(dir: string, under: string, role: GeneratedFile['role']): Promise<GeneratedFile[]> {
  const paths = (await tree(dir)).filter((p) => p.startsWith(`${under}/`) && p.endsWith('.ts'));
  return Promise.all(paths.map(async (p) => ({ path: p.slice(under.length + 1), content: await read(dir, p), role })));
}

test(
  'a stub file moved to a nested file is not re-added; --check passes; the operator starts',
  { skip: outsideUnitScope('CLI processes') },
  async () => {
    const dir = await tempProject({
      'crds/my.yaml': EXAMPLE_CRD,
      'operator.ts': OPERATOR,
      kubeconfig: CLOSED_PORT_KUBECONFIG,
      'package.json': '{ "type": "module" }\n',
    });
    await fs.mkdir(join(dir, 'node_modules'));
    await fs.symlink(REPO, join(dir, 'node_modules/kopfgen'), 'dir');
    assert.equal((await kopfgen(['generate', 'crds'], dir)).code, 0);
    const original = await read(dir, 'handlers/myresources.ts');
    await fs.rm(join(dir, 'handlers/myresources.ts'));
    const moved = original.replace(/from "\.\.\/generated\//g, 'from "../../generated/');
    await writeFiles(dir, { 'handlers/app/lifecycle.ts': moved });

    const again = await kopfgen(['generate', 'crds'], dir);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /0 stubs added/);
    assert.ok(!(await tree(dir)).includes('handlers/myresources.ts'), 'the moved stubs are not scaffolded again');
    assert.equal(await read(dir, 'handlers/app/lifecycle.ts'), moved);
    assert.equal((await kopfgen(['generate', 'crds', '--check'], dir)).code, 0);

    const run = await kopfgen(['run', 'operator.ts'], dir, { KUBECONFIG: join(dir, 'kubeconfig') });
    assert.doesNotMatch(run.stderr, /already registered/);
    assert.match(
      run.stderr,
      /cannot reach the Kubernetes API/,
      'every handler registered once; the operator got as far as the cluster',
    );
  },
);

test(
  'removing a handler id: positioned warnings and error, exit 1, and the project still type-checks',
  { skip: outsideUnitScope('CLI processes and a TypeScript program') },
  async () => {
    const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD });
    assert.equal((await kopfgen(['generate', 'crds', '--handlers', 'MyResource=myapp,cleanup'], dir)).code, 0);
    const before = await tree(dir);
    const r = await kopfgen(['generate', 'crds'], dir);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^handlers\/myresources\.ts:\d+:1 warning KG320 handler registered with `MyResourceCleanup\.onCreate`, which the CRD no longer names/m,
    );
    assert.match(
      r.stderr,
      /^handlers\/myresources\.ts:\d+:\d+ error KG321 `MyResourceCleanup`, `MyResourceCleanupPermanentError`, `MyResourceCleanupTemporaryError`, `MyResourceCleanupStatus` are imported here/m,
    );
    assert.doesNotMatch(r.stdout, /no longer matches a handler id/, 'no plain stdout lines');
    assert.deepEqual(await tree(dir), before);
    const errors = typeCheckProject({
      generated: await files(dir, 'generated', 'generated'),
      stubs: await files(dir, 'handlers', 'stub'),
    });
    assert.deepEqual(formatErrors(errors), []);
  },
);

test(
  'a new handler id extends the one import from the generated module',
  { skip: outsideUnitScope('CLI processes') },
  async () => {
    const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD });
    assert.equal((await kopfgen(['generate', 'crds'], dir)).code, 0);
    assert.equal((await kopfgen(['generate', 'crds', '--handlers', 'MyResource=myapp,cleanup'], dir)).code, 0);
    const imports = (await read(dir, 'handlers/myresources.ts')).split('\n').filter((l) => l.startsWith('import'));
    assert.equal(
      imports.filter((l) => l.includes('generated/example.com/v1/myresources.js')).length,
      1,
      imports.join('\n'),
    );
  },
);
