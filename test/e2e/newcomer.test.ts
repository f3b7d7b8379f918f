/**
 * The path a newcomer takes, from nothing to a running, tested operator, scripted so it cannot
 * break unnoticed: `npm pack` of this checkout; in a temporary directory `npm init -y`, the tarball
 * installed (no install-script warning), `npx kopfgen init`, then every command init printed, as
 * printed, in order (`npm test` among them); the example CRD swapped for kopf's walkthrough CRD,
 * `generate`, `npm test` and `npm run build` green again; `kopfgen run --check` against a real API
 * server, where a created object gets its status; and the production install's size. The same
 * from an empty directory with kopfgen run from this checkout (init prints the install by path).
 * The npm registry must be reachable (npm's cache makes the second run fast); envtest as every e2e.
 * And `init --target kopf` in an empty directory: every printed command run, those that need
 * Python's kopf where it is (else each skipped, saying what it needs), and no cluster needed.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, promises as fs, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  applyCrd,
  eventually,
  skip as noCluster,
  startCluster,
  stopCluster,
  type Cluster,
} from '../helpers/envtest.js';
import { DEBIAN_PYTHON, KOPF_SRC, kopfRuntimeSkip } from '../helpers/python-support.js';
import { tempDir } from '../helpers/temp-dirs.js';

const REPO = process.cwd();
const WALKTHROUGH_CRD = resolve(REPO, '../shared/crds/kopf/kopf.dev_ephemeralvolumeclaims.yaml');
const skip = noCluster || (existsSync(WALKTHROUGH_CRD) ? false : 'needs ../shared/crds/kopf');

/** What the newcomer's shell has: npm's own chatter turned down, and not a child of this test runner. */
function shellEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_prefer_offline: 'true',
    NO_COLOR: '1',
  };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

/** `command` through a shell in `cwd`, exactly as typed; its output on failure. */
function sh(command: string, cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(
      'sh',
      ['-c', command],
      { cwd, env: shellEnv(), maxBuffer: 64 << 20, timeout: 600_000 },
      (e, stdout, stderr) => done({ code: e ? Number(e.code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

async function ok(command: string, cwd: string): Promise<string> {
  const r = await sh(command, cwd);
  assert.equal(r.code, 0, `${command} (in ${cwd}):\n${r.out}`);
  return r.out;
}

/** The commands init printed after "next:", in order, comments and `cd` left out (the test runs them in the project). */
function printedCommands(stdout: string): string[] {
  return stdout
    .slice(stdout.indexOf('next:\n') + 'next:\n'.length)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('cd '));
}

/** Every file under `dir` in bytes (node_modules as npm left it). */
async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const abs = join(dir, e.name);
    if (e.isDirectory()) total += await sizeOf(abs);
    else if (e.isFile()) total += (await fs.stat(abs)).size;
  }
  return total;
}

/**
 * The CRD swap a newcomer makes: kopf's walkthrough CRD instead of the example, the example's
 * handler files removed (what KG321 asks for), one handler declared; `generate` updates the
 * entry's imports; then the project's tests and build pass.
 */
async function swapCrd(project: string): Promise<void> {
  await fs.rm(join(project, 'crds/myresource.yaml'));
  await fs.rm(join(project, 'src/handlers/myresources.ts'));
  await fs.rm(join(project, 'src/handlers/myresources.test.ts'));
  await fs.copyFile(WALKTHROUGH_CRD, join(project, 'crds/ephemeralvolumeclaims.yaml'));
  const config = JSON.parse(await fs.readFile(join(project, 'kopfgen.config.json'), 'utf8')) as Record<string, unknown>;
  await fs.writeFile(
    join(project, 'kopfgen.config.json'),
    `${JSON.stringify({ ...config, handlers: { EphemeralVolumeClaim: ['create_fn'] } }, null, 2)}\n`,
  );
  await ok('npx kopfgen generate', project);
  assert.match(
    await fs.readFile(join(project, 'src/operator.ts'), 'utf8'),
    /^import '\.\/handlers\/ephemeralvolumeclaims\.js';$/m,
  );
  await ok('npm test', project);
  await ok('npm run build', project);
}

/** `kopfgen run --check` of the built operator against the cluster: a created object gets the handler's status. */
async function runAgainst(cluster: Cluster, project: string, name: string): Promise<void> {
  // The user's edit: the create handler reports something.
  const handlers = join(project, 'src/handlers/ephemeralvolumeclaims.ts');
  const stub = await fs.readFile(handlers, 'utf8');
  await fs.writeFile(handlers, stub.replace(/\n {2}return;\n\}/, "\n  return { message: 'created' };\n}"));
  await ok('npm run build', project);
  const child = spawn('npx', ['kopfgen', 'run', '--check', 'dist/operator.js', '--health-port', '0'], {
    cwd: project,
    env: { ...shellEnv(), KUBECONFIG: cluster.kubeconfig },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => (output += b.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  try {
    await cluster.client.request('POST', '/apis/kopf.dev/v1/namespaces/default/ephemeralvolumeclaims', {
      body: { apiVersion: 'kopf.dev/v1', kind: 'EphemeralVolumeClaim', metadata: { name }, spec: { size: '1G' } },
    });
    const status = await eventually(
      `status.create_fn of ${name}`,
      async () => {
        const got = await cluster.client.request<{ status?: { create_fn?: { message?: string } } }>(
          'GET',
          `/apis/kopf.dev/v1/namespaces/default/ephemeralvolumeclaims/${name}`,
        );
        return got.status?.create_fn;
      },
      90_000,
    ).catch((e: unknown) => {
      throw new Error(`${String(e)}\noperator output:\n${output}`);
    });
    assert.deepEqual(status, { message: 'created' });
  } finally {
    // The whole group: npx and the operator it started.
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
}

// The two stories run side by side: most of their time is npm and tsc waiting on each other.
describe(
  'a newcomer: from an empty directory to a running, tested operator',
  { skip, timeout: 900_000, concurrency: 2 },
  () => {
    let work: string;
    let tarball: string;
    let cluster: Cluster | undefined;

    before(async () => {
      work = tempDir('kopfgen-newcomer-');
      // dist/ is built (npm test builds first): packed as it is, so no build rewrites it under the running tests.
      const packed = await ok(`npm pack --ignore-scripts --silent --pack-destination ${work}`, REPO);
      tarball = join(work, packed.trim().split('\n').at(-1) ?? '');
      assert.ok(existsSync(tarball), packed);
      cluster = startCluster();
      await applyCrd(cluster, WALKTHROUGH_CRD, 'kopf.dev', 'v1', 'ephemeralvolumeclaims');
    });

    after(() => {
      stopCluster(cluster);
      rmSync(work, { recursive: true, force: true });
    });

    it('npm init -y, the tarball installed, npx kopfgen init: every printed command works; a swapped CRD; run --check', async () => {
      const project = join(work, 'from-npm-init');
      await fs.mkdir(project);
      await ok('npm init -y', project);
      const installed = await ok(`npm install ${tarball}`, project);
      assert.doesNotMatch(installed, /install-scripts|allowScripts/i, 'installing kopfgen runs no install script');
      const init = await ok('npx kopfgen init', project);
      assert.match(init, /"type": "module" \(replacing npm init's "commonjs"\)/);
      assert.match(init, /script test \(replacing npm init's placeholder\)/);
      const commands = printedCommands(init);
      assert.deepEqual(commands, ['npm install', 'npm run typecheck', 'npm test'], init);
      for (const command of commands) await ok(command, project);

      await swapCrd(project);
      await runAgainst(cluster as Cluster, project, 'from-npm-init');

      // The operator's production install: kopfgen's runtime and its dependencies, no compiler.
      await ok('npm ci --omit=dev', project);
      const bytes = await sizeOf(join(project, 'node_modules'));
      console.log(`# npm ci --omit=dev of a scaffolded project: node_modules ${(bytes / 1e6).toFixed(1)} MB`);
      assert.ok(bytes <= 15e6, `node_modules after npm ci --omit=dev: ${(bytes / 1e6).toFixed(1)} MB (at most 15 MB)`);
    });

    it('an empty directory, kopfgen run from this checkout: the printed install by path works, then the same story', async () => {
      const project = join(work, 'empty');
      await fs.mkdir(project);
      const init = await ok(`node ${JSON.stringify(join(REPO, 'bin/kopfgen.js'))} init`, project);
      const commands = printedCommands(init);
      assert.deepEqual(commands, [`npm install ${REPO}`, 'npm run typecheck', 'npm test'], init);
      for (const command of commands) await ok(command, project);
      const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { type: string };
      assert.equal(pkg.type, 'module');
      await swapCrd(project);
      await runAgainst(cluster as Cluster, project, 'from-empty');
    });
  },
);

/** Whether the `python3` on PATH imports kopf (what `pip install -r requirements.txt` gives a newcomer). */
function kopfOnPath(): boolean {
  return (
    spawnSync('python3', ['-c', 'import kopf'], { env: shellEnv(), encoding: 'utf8', timeout: 60_000 }).status === 0
  );
}

/**
 * How the kopf scaffold's printed commands run here: as printed where `python3` has kopf; else
 * `npm run typecheck` with kopf's source on PYTHONPATH (pyright reads the interpreter's sys.path)
 * and `npm test` on Debian's Python with kopf's Debian packages (python-support.ts); a command
 * neither can serve is skipped, with what it needs.
 */
function kopfCommandPlan(command: string): { env?: NodeJS.ProcessEnv; skip?: string } {
  if (kopfOnPath()) return {};
  const needs = 'python3 cannot import kopf here';
  if (command.startsWith('pip install'))
    return { skip: `${needs}: installing kopf from PyPI is left to the newcomer's machine` };
  if (command === 'npm run typecheck')
    return existsSync(KOPF_SRC)
      ? { env: { PYTHONPATH: KOPF_SRC } }
      : { skip: `${needs}, and ../shared/kopf-1.38.0 (kopf's source, for pyright) is absent` };
  if (command === 'npm test') {
    const runtime = kopfRuntimeSkip();
    if (runtime) return { skip: `${needs}: ${runtime}` };
    return { env: { PYTHONPATH: KOPF_SRC, PATH: `${dirname(DEBIAN_PYTHON)}:${process.env.PATH ?? ''}` } };
  }
  return {};
}

describe('a newcomer to the kopf target: init --target kopf in an empty directory', { timeout: 600_000 }, () => {
  let work: string;
  before(() => {
    work = tempDir('kopfgen-newcomer-kopf-');
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('every command init printed works as printed, or is skipped saying what it needs', async (t) => {
    const project = join(work, 'kopf-operator');
    await fs.mkdir(project);
    const init = await ok(`node ${JSON.stringify(join(REPO, 'bin/kopfgen.js'))} init --target kopf`, project);
    const commands = printedCommands(init);
    assert.deepEqual(
      commands,
      [`npm install ${REPO}`, 'pip install -r requirements.txt', 'npm run typecheck', 'npm test'],
      init,
    );
    assert.ok(existsSync(join(project, 'tests/test_myresources.py')), 'the handlers have unit tests');
    for (const command of commands) {
      const plan = kopfCommandPlan(command);
      if (plan.skip !== undefined) {
        t.diagnostic(`skipped ${command}: ${plan.skip}`);
        continue;
      }
      const env = Object.entries(plan.env ?? {})
        .map(([k, v]) => `${k}=${shellQuoteArg(v ?? '')} `)
        .join('');
      const out = await ok(`${env}${command}`, project);
      if (command === 'npm run typecheck') assert.match(out, /0 errors/);
      if (command === 'npm test') assert.match(out, /^OK$/m);
    }
    // What CI runs besides: the generated package is up to date.
    await ok('npx kopfgen generate --check', project);
  });
});

function shellQuoteArg(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
