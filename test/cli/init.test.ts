/**
 * `kopfgen init`: scaffolds a project that type-checks as it stands against this checkout,
 * whose `generate --check` passes; in an existing project it adds what is missing and names what
 * it left alone (`--force` overwrites); the install command it prints works.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { EXAMPLE_CRD, kopfgen, read, REPO, snapshot, tempProject, tree, WIDGET_CRD } from '../helpers/cli-support.js';

function tsc(cwd: string, emit = false): Promise<{ code: number; out: string }> {
  const args = [resolve(REPO, 'node_modules/typescript/bin/tsc'), ...(emit ? [] : ['--noEmit']), '-p', 'tsconfig.json'];
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd }, (error, stdout, stderr) =>
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

function withoutTestContext(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

test('init scaffolds a project that type-checks and is up to date', async () => {
  const parent = await tempProject();
  const r = await kopfgen(['init', 'my-operator'], parent);
  assert.equal(r.code, 0, r.stderr);
  const project = join(parent, 'my-operator');
  assert.deepEqual(await tree(project), [
    '.dockerignore',
    '.github/workflows/ci.yml',
    '.gitignore',
    'Dockerfile',
    'README.md',
    'crds/myresource.yaml',
    'deploy/00-namespace.yaml',
    'deploy/01-service-account.yaml',
    'deploy/02-rbac.yaml',
    'deploy/03-deployment.yaml',
    'deploy/05-disruption-budget.yaml',
    'kopfgen.config.json',
    'package.json',
    'src/generated/.kopfgen-manifest.json',
    'src/generated/example.com/myresources.schemas.ts',
    'src/generated/example.com/v1/myresources.ts',
    'src/generated/index.ts',
    'src/handlers/myresources.test.ts',
    'src/handlers/myresources.ts',
    'src/operator.ts',
    'tsconfig.json',
  ]);
  assert.equal(await read(project, 'crds/myresource.yaml'), EXAMPLE_CRD, "the example CRD is kopfgen's own");
  const pkg = JSON.parse(await read(project, 'package.json')) as {
    name: string;
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  assert.equal(pkg.name, 'my-operator');
  // What `npm install typescript` gives today; this test checks the scaffold with kopfgen's own (5.9), the newcomer e2e with this one.
  assert.equal(pkg.devDependencies.typescript, '7.0.2');
  assert.deepEqual(Object.keys(pkg.scripts).sort(), [
    'build',
    'check',
    'generate',
    'manifests',
    'prebuild',
    'start',
    'test',
    'typecheck',
  ]);
  assert.equal(pkg.scripts.test, 'npm run build && node --test dist/');
  assert.match(
    pkg.scripts.prebuild,
    /rmSync\('dist'/,
    'the build starts from an empty dist/: no output of a removed source is left',
  );
  assert.equal(pkg.scripts.check, 'kopfgen generate --check');
  assert.match(pkg.scripts.start, /^kopfgen run /);
  assert.ok(pkg.dependencies.kopfgen);
  const ci = await read(project, '.github/workflows/ci.yml');
  assert.match(ci, /npx kopfgen generate --check/);
  assert.match(ci, /npx tsc --noEmit/);
  assert.match(
    await read(project, 'src/operator.ts'),
    /^\/\/ kopfgen:begin imports: .*\nimport '\.\/handlers\/myresources\.js';\n\/\/ kopfgen:end imports$/m,
  );
  const tsconfig = JSON.parse(await read(project, 'tsconfig.json')) as { compilerOptions: Record<string, unknown> };
  assert.equal(tsconfig.compilerOptions.noUncheckedIndexedAccess, true);
  assert.equal(tsconfig.compilerOptions.noUncheckedSideEffectImports, true);

  await linkDependencies(project);
  const typecheck = await tsc(project);
  assert.equal(typecheck.code, 0, typecheck.out);
  const check = await kopfgen(['generate', '--check'], project);
  assert.equal(check.code, 0, check.stdout + check.stderr);

  // The scaffolded unit tests (one per handler stub) pass on the stubs, as `npm test` runs them.
  const tests = await read(project, 'src/handlers/myresources.test.ts');
  assert.deepEqual(
    [...tests.matchAll(/^test\('(\w+): (\w+)'/gm)].map((m) => `${m[1]} ${m[2]}`),
    ['myappOnCreate create', 'myappOnUpdate update', 'myappOnResume resume'],
  );
  const build = await tsc(project, true);
  assert.equal(build.code, 0, build.out);
  const run = await new Promise<{ code: number; out: string }>((done) =>
    // Run as a user runs it: not as a child of this test runner (NODE_TEST_CONTEXT would make it report to us).
    execFile(process.execPath, ['--test'], { cwd: project, env: withoutTestContext() }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? 1) : 0, out: stdout + stderr }),
    ),
  );
  assert.equal(run.code, 0, run.out);
  assert.match(run.out, /^# pass 3$/m);
});

test('init in an existing project: package.json merged, files written only where absent, each skipped one named', async () => {
  const pkg = { name: 'mine', scripts: { build: 'make', test: 'jest' }, devDependencies: { typescript: '5.4.5' } };
  const dir = await tempProject({ 'package.json': JSON.stringify(pkg), 'README.md': 'mine\n', 'notes.txt': 'x' });
  const r = await kopfgen(['init'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ {2}skipped README\.md: it exists \(--force overwrites\)$/m);
  assert.match(
    r.stdout,
    /^ {2}package\.json: added "type": "module", script generate, script check, .*dependency kopfgen, devDependency @types\/node, devDependency kubernetes-models, devDependency ts-morph; kept your script build, script test, devDependencies typescript$/m,
  );
  assert.equal(await read(dir, 'README.md'), 'mine\n');
  assert.equal(await read(dir, 'notes.txt'), 'x');
  const merged = JSON.parse(await read(dir, 'package.json')) as typeof pkg & {
    type: string;
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
  };
  assert.equal(merged.name, 'mine');
  assert.equal(merged.type, 'module');
  assert.equal(merged.scripts.build, 'make', "the user's script is kept");
  assert.equal(merged.scripts.prebuild, undefined, "the scaffold's prebuild is its build's: none before the user's");
  assert.equal(merged.scripts.test, 'jest');
  assert.equal(merged.scripts.check, 'kopfgen generate --check');
  assert.equal(merged.dependencies.kopfgen, '^0.1.0');
  assert.ok((await tree(dir)).includes('src/handlers/myresources.ts'));

  const again = await snapshot(dir);
  const second = await kopfgen(['init'], dir);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /created 0 files/);
  assert.deepEqual(await snapshot(dir), again, 'a second init changes nothing');

  const forced = await kopfgen(['init', '--force'], dir);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, /^ {2}overwrote README\.md \(--force\)$/m);
  assert.notEqual(await read(dir, 'README.md'), 'mine\n');
  assert.equal(
    (JSON.parse(await read(dir, 'package.json')) as { scripts: Record<string, string> }).scripts.build,
    'tsc -p tsconfig.json',
  );
  assert.equal(await read(dir, 'notes.txt'), 'x');
});

test('init with a package.json that is not JSON: KG350, nothing written', async () => {
  const dir = await tempProject({ 'package.json': '{ "name": ' });
  const before = await snapshot(dir);
  const r = await kopfgen(['init'], dir);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^package\.json:1:11 error KG350 package\.json is not valid JSON/m);
  assert.deepEqual(await snapshot(dir), before);
});

test('the install command init prints works: kopfgen from this checkout, then the project type-checks', async () => {
  const parent = await tempProject();
  const r = await kopfgen(['init', 'op'], parent);
  assert.equal(r.code, 0, r.stderr);
  const next = r.stdout
    .slice(r.stdout.indexOf('next:\n'))
    .split('\n')
    .map((l) => l.trim());
  const install = next.filter((l) => l.startsWith('npm install') || l.startsWith('npm --prefix'));
  assert.deepEqual(install, [`npm install ${REPO}`]);
  const project = join(parent, 'op');
  // Exactly the printed command, through a shell; only npm's own settings are turned down.
  const env = {
    ...process.env,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
  const installed = await new Promise<{ code: number; out: string }>((done) =>
    execFile('sh', ['-c', install[0]], { cwd: project, env }, (e, stdout, stderr) =>
      done({ code: e ? Number(e.code ?? 1) : 0, out: stdout + stderr }),
    ),
  );
  assert.equal(installed.code, 0, installed.out);
  const pkg = JSON.parse(await read(project, 'package.json')) as { dependencies: Record<string, string> };
  assert.match(pkg.dependencies.kopfgen, /^file:/);
  const typecheck = await new Promise<{ code: number; out: string }>((done) =>
    execFile('npm', ['run', 'typecheck'], { cwd: project, env }, (e, stdout, stderr) =>
      done({ code: e ? Number(e.code ?? 1) : 0, out: stdout + stderr }),
    ),
  );
  assert.equal(typecheck.code, 0, typecheck.out);
});

test("init's deploy/ is what `npm run manifests` renders once the project is built, and CI checks it", async () => {
  const parent = await tempProject();
  assert.equal((await kopfgen(['init', 'op'], parent)).code, 0);
  const project = join(parent, 'op');
  await linkDependencies(project);
  const build = await tsc(project, true);
  assert.equal(build.code, 0, build.out);
  const pkg = JSON.parse(await read(project, 'package.json')) as { scripts: Record<string, string> };
  assert.equal(pkg.scripts.manifests, 'kopfgen manifests dist/operator.js');
  const check = await kopfgen([...pkg.scripts.manifests.split(' ').slice(1), '--check'], project);
  assert.equal(check.code, 0, check.stdout + check.stderr);
  const ci = await read(project, '.github/workflows/ci.yml');
  assert.match(ci, /run: npm run build\n[^]*run: npm run manifests -- --check\n/);
});

/** The Dockerfile's instructions as [keyword, rest] pairs (no line continuations are used). */
function instructions(text: string): [string, string][] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .map((l) => {
      const space = l.indexOf(' ');
      return [l.slice(0, space).toUpperCase(), l.slice(space + 1)];
    });
}

test("the Dockerfile: two node:20-alpine stages, no dev dependencies, the Deployment's command as node", async () => {
  const parent = await tempProject();
  assert.equal((await kopfgen(['init', 'op'], parent)).code, 0);
  const project = join(parent, 'op');
  const steps = instructions(await read(project, 'Dockerfile'));
  const froms = steps.filter(([k]) => k === 'FROM').map(([, v]) => v);
  assert.deepEqual(froms, ['node:20-alpine AS build', 'node:20-alpine']);
  const final = steps.slice(steps.findIndex(([k, v]) => k === 'FROM' && v === 'node:20-alpine'));
  const build = steps.slice(0, steps.length - final.length);
  const runs = build.filter(([k]) => k === 'RUN').map(([, v]) => v);
  assert.deepEqual(runs, ['npm ci', 'npm run build', 'npm prune --omit=dev']);
  // npm ci sees only the manifest and lock file: the dependency layer is cached until they change.
  const firstCopy = build.find(([k]) => k === 'COPY');
  assert.deepEqual(firstCopy, ['COPY', 'package.json package-lock.json ./']);
  assert.ok(build.findIndex(([k]) => k === 'COPY') < build.findIndex(([, v]) => v === 'npm ci'));
  // The runtime stage: no RUN (no shell), no sources, only the build's output and pruned modules.
  assert.deepEqual(
    final.filter(([k]) => k === 'RUN'),
    [],
  );
  assert.deepEqual(
    final.filter(([k]) => k === 'COPY').map(([, v]) => v),
    [
      '--from=build /app/package.json ./package.json',
      '--from=build /app/node_modules ./node_modules',
      '--from=build /app/dist ./dist',
    ],
  );
  assert.deepEqual(
    final.filter(([k]) => k === 'USER'),
    [['USER', 'node']],
  );
  const user = final.findIndex(([k]) => k === 'USER');
  assert.ok(user > final.findLastIndex(([k]) => k === 'COPY'), 'USER after the files it must not own');
  const all = steps.map(([k, v]) => `${k} ${v}`).join('\n');
  assert.doesNotMatch(all, /&&|\|\||;|sh -c|\bcurl\b|\bwget\b/, 'no shell tricks');
  // Exec form: the entry point is PID 1 and gets SIGTERM (a graceful stop writes running handlers' patches).
  const entrypoint = JSON.parse(final.find(([k]) => k === 'ENTRYPOINT')?.[1] ?? 'null') as string[];
  const cmd = JSON.parse(final.find(([k]) => k === 'CMD')?.[1] ?? 'null') as string[];
  const env = final.filter(([k]) => k === 'ENV').map(([, v]) => v);
  assert.deepEqual(env, ['NODE_ENV=production', 'PATH=/app/node_modules/.bin:$PATH']);
  const deployment = parse((await read(project, 'deploy/03-deployment.yaml')).split('\n').slice(1).join('\n'));
  const container = deployment.spec.template.spec.containers[0];
  const deployed = [...container.command, ...container.args];
  // The Deployment adds only the Lease's name, which a single `docker run` does not need.
  const lease = ['--leader-election-id', deployment.metadata.name];
  assert.deepEqual([...entrypoint, ...cmd, ...lease], deployed, 'the image runs what the Deployment runs');
  const pkg = JSON.parse(await read(project, 'package.json')) as { scripts: Record<string, string> };
  assert.equal(pkg.scripts.start, ['kopfgen', ...cmd].join(' '));
  const ignored = (await read(project, '.dockerignore')).split('\n');
  for (const path of ['node_modules', 'dist', '.git', 'deploy']) {
    assert.ok(ignored.includes(path), `.dockerignore: ${path}`);
  }
});

/** The lines `init` printed under "next:", trimmed. */
function nextSteps(stdout: string): string[] {
  return stdout
    .slice(stdout.indexOf('next:\n') + 'next:\n'.length)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** After init: the printed steps (install as linked, typecheck), and `generate --check` finds nothing to do. */
async function followNextSteps(project: string, stdout: string): Promise<void> {
  const steps = nextSteps(stdout);
  assert.ok(steps.includes('npm run typecheck'), stdout);
  await linkDependencies(project);
  const typecheck = await tsc(project);
  assert.equal(typecheck.code, 0, typecheck.out);
  const check = await kopfgen(['generate', '--check'], project);
  assert.equal(check.code, 0, check.stdout + check.stderr);
}

test('init in a project configured in kopfgen.config.yaml: extends that file (comments kept), adds no second configuration, generates where it says', async () => {
  const yaml = '# our operator\nout: src/types # generated here\nstubs: src/ops\n';
  const dir = await tempProject({ 'kopfgen.config.yaml': yaml });
  const r = await kopfgen(['init'], dir);
  assert.equal(r.code, 0, r.stderr);
  const files = await tree(dir);
  assert.ok(!files.includes('kopfgen.config.json'), 'no second configuration (KG303)');
  assert.ok(files.includes('src/types/index.ts') && files.includes('src/ops/myresources.ts'), files.join(' '));
  assert.equal(
    await read(dir, 'kopfgen.config.yaml'),
    '# our operator\nout: src/types # generated here\nstubs: src/ops\ninputs: [ crds ]\n',
  );
  assert.match(r.stdout, /^ {2}kopfgen\.config\.yaml: added "inputs" to your configuration$/m);
  assert.match(r.stdout, /^ {2}# then edit src\/ops\/ and run the operator against your cluster:$/m);
  await followNextSteps(dir, r.stdout);
});

test('init in a project configured by a "kopfgen" key in package.json: extends the key, generates from its inputs', async () => {
  const pkg = { name: 'mine', kopfgen: { inputs: 'k8s', out: 'src/gen', stubs: 'src/handlers' } };
  const dir = await tempProject({ 'package.json': JSON.stringify(pkg, null, 2), 'k8s/my.yaml': EXAMPLE_CRD });
  const r = await kopfgen(['init'], dir);
  assert.equal(r.code, 0, r.stderr);
  const files = await tree(dir);
  assert.ok(!files.includes('kopfgen.config.json'), 'no second configuration (KG303)');
  assert.ok(!files.includes('crds/myresource.yaml'), 'the example CRD is not among the configured inputs');
  assert.ok(files.includes('src/gen/example.com/v1/myresources.ts'), files.join(' '));
  const merged = JSON.parse(await read(dir, 'package.json')) as { kopfgen: unknown; scripts: Record<string, string> };
  assert.deepEqual(merged.kopfgen, pkg.kopfgen, 'the configuration is used as it is');
  assert.equal(merged.scripts.check, 'kopfgen generate --check');
  assert.match(r.stdout, /^ {2}package\.json \("kopfgen"\): your configuration, used as it is$/m);
  assert.match(await read(dir, 'src/operator.ts'), /^import '\.\/handlers\/myresources\.js';$/m);
  await followNextSteps(dir, r.stdout);

  // Without inputs, the key gains them: in package.json, not in a new file.
  const bare = await tempProject({
    'package.json': JSON.stringify({ name: 'x', kopfgen: { stubs: 'src/handlers', out: 'src/generated' } }),
  });
  const r2 = await kopfgen(['init'], bare);
  assert.equal(r2.code, 0, r2.stderr);
  const key = (JSON.parse(await read(bare, 'package.json')) as { kopfgen: Record<string, unknown> }).kopfgen;
  assert.deepEqual(key, { stubs: 'src/handlers', out: 'src/generated', inputs: ['crds'] });
  assert.ok((await tree(bare)).includes('crds/myresource.yaml'));
  assert.equal((await kopfgen(['generate', '--check'], bare)).code, 0);
});

test("init where src/generated/ holds a file of the user's: refused up front in one line, nothing written", async () => {
  const dir = await tempProject({ 'src/generated/notes.ts': 'export const mine = 1;\n' });
  const before = await snapshot(dir);
  const r = await kopfgen(['init'], dir);
  assert.equal(r.code, 1, r.stdout);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 2, r.stderr);
  assert.match(
    lines[0],
    /^src\/generated:1:1 error KG322 refusing to generate into src\/generated: it has no \.kopfgen-manifest\.json and holds 1 file kopfgen did not generate \(src\/generated\/notes\.ts\); choose an empty directory or one kopfgen generated for "out" in kopfgen\.config\.json$/,
  );
  assert.equal(lines[1], 'kopfgen: 1 error, nothing created');
  assert.deepEqual(await snapshot(dir), before);
});

test('init of a file, or of a configuration whose output lies outside src/: one line naming why, nothing written', async () => {
  const dir = await tempProject({ afile: 'x\n', 'other/kopfgen.config.json': '{ "out": "gen" }' });
  const file = await kopfgen(['init', 'afile'], dir);
  assert.equal(file.code, 1);
  assert.match(file.stderr, /^afile:1:1 error KG901 afile is a file: kopfgen init scaffolds a directory/m);
  assert.doesNotMatch(file.stderr, /--out|--stubs/);
  const below = await kopfgen(['init', 'afile/sub'], dir);
  assert.equal(below.code, 1);
  assert.doesNotMatch(below.stderr, /--out|--stubs/);
  const before = await snapshot(join(dir, 'other'));
  const outside = await kopfgen(['init', 'other'], dir);
  assert.equal(outside.code, 1, outside.stdout);
  assert.match(outside.stderr, /^other\/kopfgen\.config\.json:1:1 error KG351 .*other\/gen .*outside src\//m);
  assert.deepEqual(await snapshot(join(dir, 'other')), before);
});

test('init --target kopf in a configured project: the configuration gains "target" (and inputs); one naming another target is refused', async () => {
  const dir = await tempProject({ 'kopfgen.config.yaml': '# mine\nout: generated\nstubs: kinds\n' });
  const r = await kopfgen(['init', '--target', 'kopf'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    await read(dir, 'kopfgen.config.yaml'),
    '# mine\nout: generated\nstubs: kinds\ntarget: kopf\ninputs: [ crds ]\n',
  );
  assert.equal((await kopfgen(['generate', '--check'], dir)).code, 0);
  const other = await tempProject({ 'kopfgen.config.yaml': 'target: typescript\n' });
  const before = await snapshot(other);
  const refused = await kopfgen(['init', '--target', 'kopf'], other);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /^kopfgen\.config\.yaml:1:1 error KG352 .*"target": "typescript"/m);
  assert.deepEqual(await snapshot(other), before);
});

test("a swapped CRD: generate rewrites the entry's marked imports (--check names it first), and the project type-checks", async () => {
  const parent = await tempProject();
  assert.equal((await kopfgen(['init', 'op'], parent)).code, 0);
  const project = join(parent, 'op');
  await fs.rm(join(project, 'crds/myresource.yaml'));
  // What KG321 asks for: the handler files of the CRD that is gone are removed (they are the user's).
  await fs.rm(join(project, 'src/handlers/myresources.ts'));
  await fs.rm(join(project, 'src/handlers/myresources.test.ts'));
  // Status open, as kopf operators' CRDs have it, so the handler's record is kept.
  const open = `${WIDGET_CRD}            status:\n              type: object\n              x-kubernetes-preserve-unknown-fields: true\n`;
  await fs.writeFile(join(project, 'crds/widget.yaml'), open);
  const config = JSON.parse(await read(project, 'kopfgen.config.json')) as Record<string, unknown>;
  await fs.writeFile(
    join(project, 'kopfgen.config.json'),
    JSON.stringify({ ...config, handlers: { Widget: ['resize'] } }),
  );
  const entry = await read(project, 'src/operator.ts');
  const check = await kopfgen(['generate', '--check'], project);
  assert.equal(check.code, 1, check.stdout + check.stderr);
  assert.match(check.stdout + check.stderr, /src\/operator\.ts/);
  const r = await kopfgen(['generate'], project);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const after = await read(project, 'src/operator.ts');
  assert.equal(after, entry.replace("import './handlers/myresources.js';", "import './handlers/widgets.js';"));
  assert.equal((await kopfgen(['generate', '--check'], project)).code, 0);
  await linkDependencies(project);
  const typecheck = await tsc(project);
  assert.equal(typecheck.code, 0, typecheck.out);
});
