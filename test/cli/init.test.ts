/**
 * `kopfgen init`: scaffolds a project that type-checks as it stands against this checkout,
 * whose `generate --check` passes, and never overwrites an existing file.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { EXAMPLE_CRD, kopfgen, read, REPO, snapshot, tempProject, tree } from '../helpers/cli-support.js';

function tsc(cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [resolve(REPO, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', 'tsconfig.json'], { cwd }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

/** Points the new project's dependencies at this checkout, as `npm install` would install them. */
async function linkDependencies(project: string): Promise<void> {
  await fs.mkdir(join(project, 'node_modules/@types'), { recursive: true });
  await fs.symlink(REPO, join(project, 'node_modules/kopfgen'), 'dir');
  await fs.symlink(resolve(REPO, 'node_modules/typescript'), join(project, 'node_modules/typescript'), 'dir');
  await fs.symlink(resolve(REPO, 'node_modules/@types/node'), join(project, 'node_modules/@types/node'), 'dir');
}

test('init scaffolds a project that type-checks and is up to date', async () => {
  const parent = await tempProject();
  const r = await kopfgen(['init', 'my-operator'], parent);
  assert.equal(r.code, 0, r.stderr);
  const project = join(parent, 'my-operator');
  assert.deepEqual(await tree(project), [
    '.github/workflows/ci.yml', '.gitignore', 'README.md', 'crds/myresource.yaml', 'kopfgen.config.json', 'package.json',
    'src/generated/example.com/v1/myresources.ts', 'src/generated/index.ts', 'src/handlers/myresources.ts', 'src/operator.ts', 'tsconfig.json',
  ]);
  assert.equal(await read(project, 'crds/myresource.yaml'), EXAMPLE_CRD, 'the example CRD is kopfgen\'s own');
  const pkg = JSON.parse(await read(project, 'package.json')) as { name: string; scripts: Record<string, string>; dependencies: Record<string, string> };
  assert.equal(pkg.name, 'my-operator');
  assert.deepEqual(Object.keys(pkg.scripts).sort(), ['build', 'check', 'generate', 'start', 'typecheck']);
  assert.equal(pkg.scripts.check, 'kopfgen generate --check');
  assert.match(pkg.scripts.start, /^kopfgen run /);
  assert.ok(pkg.dependencies.kopfgen);
  const ci = await read(project, '.github/workflows/ci.yml');
  assert.match(ci, /npx kopfgen generate --check/);
  assert.match(ci, /npx tsc --noEmit/);
  assert.match(await read(project, 'src/operator.ts'), /^import '\.\/handlers\/myresources\.js';$/m);

  await linkDependencies(project);
  const typecheck = await tsc(project);
  assert.equal(typecheck.code, 0, typecheck.out);
  const check = await kopfgen(['generate', '--check'], project);
  assert.equal(check.code, 0, check.stdout + check.stderr);
});

test('init refuses to overwrite any existing file and then creates nothing', async () => {
  const dir = await tempProject({ 'package.json': '{"name":"mine"}\n', 'notes.txt': 'x' });
  const before = await snapshot(dir);
  const r = await kopfgen(['init'], dir);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^package\.json:1:1 error KG330 package\.json already exists; kopfgen init never overwrites files$/m);
  assert.match(r.stderr, /nothing created/);
  assert.deepEqual(await snapshot(dir), before);
  const ok = await kopfgen(['init', 'sub'], dir);
  assert.equal(ok.code, 0, 'a fresh subdirectory of a non-empty directory is fine');
});
