/**
 * `kopfgen generate --watch`, driven as a child process with bounded waits: it picks up an edit,
 * survives a broken CRD (reports it, keeps the previous output), follows configuration changes,
 * and exits 0 on SIGTERM.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BROKEN_CRD, CLI, EXAMPLE_CRD, read, sleep, tempProject, writeFiles } from '../helpers/cli-support.js';

const WAIT_MS = 15_000;

class Watcher {
  stdout = '';
  stderr = '';
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;

  constructor(args: string[], cwd: string) {
    this.child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
    this.child.stdout?.on('data', (d: Buffer) => (this.stdout += d.toString()));
    this.child.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((done) => this.child.on('exit', (code) => done(code)));
  }

  /** Polls `condition` until it holds, failing with the process output after WAIT_MS. */
  async until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    while (!(await condition())) {
      if (Date.now() > deadline)
        assert.fail(`timed out waiting for ${what}\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
      await sleep(50);
    }
  }

  stop(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

const WITH_PAUSED = EXAMPLE_CRD.replace(
  '                replicas:',
  '                paused:\n                  type: boolean\n                replicas:',
);
const moduleText = (dir: string): Promise<string> =>
  read(dir, 'generated/example.com/v1/myresources.ts').catch(() => '');

test('watch: regenerates on an edit, survives a broken CRD, stops on SIGTERM', async (t) => {
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD });
  const w = new Watcher(['generate', 'crds', '--watch'], dir);
  t.after(() => w.stop());
  await w.until('the first run and the watch', () => /watching \d+ director/.test(w.stdout));
  assert.doesNotMatch(await moduleText(dir), /paused/);
  const stub = await read(dir, 'handlers/myresources.ts');

  await writeFiles(dir, { 'crds/my.yaml': WITH_PAUSED });
  await w.until('the edit to be generated', async () => /paused\?: boolean/.test(await moduleText(dir)));

  const before = await moduleText(dir);
  await writeFiles(dir, { 'crds/my.yaml': BROKEN_CRD });
  await w.until('the broken CRD to be reported', () => /crds\/my\.yaml:\d+:\d+ error KG\d{3}/.test(w.stderr));
  await sleep(300);
  assert.equal(await moduleText(dir), before, 'the previous output stays in place');
  assert.equal(w.child.exitCode, null, 'still watching');

  await writeFiles(dir, { 'crds/my.yaml': EXAMPLE_CRD });
  await w.until(
    'the fixed CRD to be generated',
    async () => !/paused/.test(await moduleText(dir)) && (await moduleText(dir)) !== '',
  );
  assert.equal(await read(dir, 'handlers/myresources.ts'), stub, 'the stub file is never rewritten');

  w.child.kill('SIGTERM');
  assert.equal(await Promise.race([w.exited, sleep(WAIT_MS).then(() => 'timeout')]), 0);
  assert.match(w.stdout, /stopped watching/);
});

test('watch: follows the configuration and a new CRD file; a broken configuration or invalid settings keep the previous ones', async (t) => {
  const dir = await tempProject({
    'crds/my.yaml': EXAMPLE_CRD,
    'kopfgen.config.json': JSON.stringify({ inputs: ['crds'], out: 'gen', stubs: false }),
  });
  const w = new Watcher(['generate', '--watch'], dir);
  t.after(() => w.stop());
  await w.until('the first run', () => /watching/.test(w.stdout));
  await fs.access(join(dir, 'gen/index.ts'));

  await writeFiles(dir, { 'kopfgen.config.json': JSON.stringify({ inputs: ['crds'], out: 'gen2', stubs: false }) });
  await w.until('output in the new directory', () =>
    fs.access(join(dir, 'gen2/index.ts')).then(
      () => true,
      () => false,
    ),
  );

  await writeFiles(dir, { 'kopfgen.config.json': '{ "inputs": ["crds"], "ot": "gen3" }' });
  await w.until('the configuration error', () =>
    /kopfgen\.config\.json:1:\d+ error KG301 unknown configuration key "ot"/.test(w.stderr),
  );

  await writeFiles(dir, {
    'kopfgen.config.json': JSON.stringify({ inputs: ['crds'], out: 'gen3', stubs: 'gen3/handlers' }),
  });
  await w.until('the invalid settings', () =>
    /kopfgen\.config\.json:1:1 error KG305 the stubs directory must not be inside the output directory/.test(w.stderr),
  );

  await writeFiles(dir, {
    'crds/more/widget.yaml': EXAMPLE_CRD.replace(/myresources/g, 'gadgets')
      .replace(/MyResource/g, 'Gadget')
      .replace(/myresource\b/g, 'gadget')
      .replace('shortNames: [myr]', 'shortNames: [gad]'),
  });
  await w.until('the new CRD in a new directory, with the previous settings', () =>
    fs.access(join(dir, 'gen2/example.com/v1/gadgets.ts')).then(
      () => true,
      () => false,
    ),
  );
  await fs.access(join(dir, 'gen3')).then(
    () => assert.fail('the invalid settings were not used'),
    () => undefined,
  );
  w.child.kill('SIGINT');
  assert.equal(await Promise.race([w.exited, sleep(WAIT_MS).then(() => 'timeout')]), 0);
});

test('watch --format json: one JSON object per run on stdout, nothing else', async (t) => {
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD });
  const w = new Watcher(['generate', 'crds', '--no-stubs', '--watch', '--format', 'json'], dir);
  t.after(() => w.stop());
  const runs = (): { command: string; exitCode: number; summary?: { written: string[] } }[] =>
    w.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as ReturnType<typeof runs>[number]);
  await w.until('the first run', () => w.stdout.endsWith('\n') && runs().length === 1);
  assert.deepEqual([runs()[0].command, runs()[0].exitCode, runs()[0].summary?.written.length], ['generate', 0, 3]);
  // JSON mode prints no "watching" line: save again until a run picks the edit up.
  let saved = 0;
  await w.until('a run with the edit', async () => {
    if (saved++ % 10 === 0) await writeFiles(dir, { 'crds/my.yaml': WITH_PAUSED });
    return (
      w.stdout.endsWith('\n') &&
      runs().some((r) => r.summary?.written.includes('generated/example.com/v1/myresources.ts'))
    );
  });
  w.child.kill('SIGTERM');
  assert.equal(await Promise.race([w.exited, sleep(WAIT_MS).then(() => 'timeout')]), 0);
  assert.ok(
    runs().every((r) => r.exitCode === 0),
    'every line is a run report',
  );
});

test('watch --target kopf: regenerates the Python package on an edit; the stub module is merged into, never rewritten', async (t) => {
  const dir = await tempProject({ 'crds/my.yaml': EXAMPLE_CRD });
  const w = new Watcher(['generate', 'crds', '--watch', '--target', 'kopf', '--stubs', 'kinds'], dir);
  t.after(() => w.stop());
  await w.until('the first run and the watch', () => /watching \d+ director/.test(w.stdout));
  const module = (): Promise<string> => read(dir, 'generated/example_com/v1/myresources.py').catch(() => '');
  assert.doesNotMatch(await module(), /paused/);
  const stub = await read(dir, 'kinds/myresources.py');
  await writeFiles(dir, { 'crds/my.yaml': WITH_PAUSED });
  await w.until('the edit to be generated', async () => /^ {4}paused: bool$/m.test(await module()));
  assert.equal(await read(dir, 'kinds/myresources.py'), stub, 'no new handler: the stub module is left alone');
  w.child.kill('SIGTERM');
  assert.equal(await Promise.race([w.exited, sleep(WAIT_MS).then(() => 'timeout')]), 0);
});
