/**
 * The operator as a process: `runOperator` on a TypeScript module in a child process, stopped
 * by SIGTERM in the middle of a handler; a restart in the middle of a retry; a missing CRD; a
 * handler that never settles (recorded at its timeout, abandoned at the drain timeout); a handler
 * that kills the process, restarted as a kubelet would until its `retries` end it (the poison pill).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { runOperator } from '../../src/cli/run.js';
import { defineHandler, defineResource, Registry, TemporaryError } from '../../src/runtime/index.js';
import { Operator } from '../../src/runtime/operator.js';
import { eventually, skip, TEST_TIMEOUT } from '../helpers/envtest.js';
import {
  captureLogger,
  create,
  events,
  myResource,
  namespace,
  objectPath,
  pair,
  myResources as my,
  myResourceObject,
  untilOutput,
  exitWithin,
  sleep,
} from '../helpers/e2e-objects.js';
import { E2eSuite, MYRESOURCES_CRD, PAIRS_CRD } from '../helpers/e2e-suite.js';

const suite = new E2eSuite({ crds: [MYRESOURCES_CRD, PAIRS_CRD] });

const CRASHING = 'test/fixtures/runtime/crashing-operator.ts';

function runChild(
  ns: string,
  env: Record<string, string> = {},
  module = 'test/fixtures/runtime/slow-operator.ts',
  options: Record<string, unknown> = {},
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const script =
    "import { runOperator } from './dist/src/cli/run.js'; process.exitCode = await runOperator(process.argv[1], { namespace: process.env.NS, ...JSON.parse(process.env.RUN_OPTIONS) });";
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, module], {
    env: {
      ...process.env,
      KUBECONFIG: suite.cluster.kubeconfig,
      NS: ns,
      RUN_OPTIONS: JSON.stringify(options),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

describe('operator process', { skip }, () => {
  suite.hooks();

  it('SIGTERM mid-handler: the handler finishes, its patch is written, exit 0', { timeout: TEST_TIMEOUT }, async () => {
    const ns = await namespace(suite.client, 'sigterm');
    const run = runChild(ns, { HANDLER_MS: '2000' });
    try {
      await untilOutput('the operator to watch', run.output, 'watching myresources', 30_000);
      await create(suite.client, my(ns), myResourceObject('slow', { image: 'x' }));
      await untilOutput('the handler to start', run.output, 'handler started slow');
      run.child.kill('SIGTERM');
      const code = await exitWithin(run.exited, 20_000);
      assert.equal(code, 0, run.output());
      assert.match(run.output(), /handler finished slow/);
      assert.match(run.output(), /handler myapp succeeded/);
      const body = await suite.get(my(ns, 'slow'));
      assert.equal(body.status?.myapp?.phase, 'Done');
      assert.ok(
        body.metadata.annotations['kopfgen.dev/last-handled-configuration'],
        'the completing write landed before exit',
      );
      assert.equal(body.metadata.annotations['kopfgen.dev/myapp'], undefined);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it(
    'SIGTERM with a handler that honours its signal: retried at once by the next operator, no Event',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'polite');
      const run = runChild(ns, {}, 'test/fixtures/runtime/polite-operator.ts');
      try {
        await untilOutput('the operator to watch', run.output, 'watching myresources', 30_000);
        await create(suite.client, my(ns), myResourceObject('p', { image: 'x' }));
        await untilOutput('the handler to start', run.output, 'handler started p');
        const stoppedAt = Date.now();
        run.child.kill('SIGTERM');
        assert.equal(await exitWithin(run.exited, 20_000), 0, run.output());
        const record = JSON.parse((await suite.get(my(ns, 'p'))).metadata.annotations['kopfgen.dev/myapp']);
        assert.match(record.message, /^interrupted by the operator's shutdown: aborted/);
        assert.ok(Date.parse(record.delayed) <= stoppedAt + 5000, 'no backoff after an interruption');
        assert.equal((await events(suite.client, ns, 'p')).length, 0);
      } finally {
        run.child.kill('SIGKILL');
      }
    },
  );

  it(
    'a restart in the middle of a retry waits for the delay and runs the handler once more, not twice',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'restart');
      const first = new Registry();
      defineHandler<unknown, { phase?: string }>(myResource, 'myapp').onCreate(
        () => {
          throw new TemporaryError('not yet', { status: { phase: 'Pending' }, delay: 3 });
        },
        { registry: first },
      );
      const op1 = new Operator({ registry: first, namespace: ns, logger: captureLogger() });
      await op1.start();
      await create(suite.client, my(ns), myResourceObject('r', { image: 'x' }));
      const record = await eventually('the delayed record', async () => {
        const raw = (await suite.get(my(ns, 'r'))).metadata.annotations?.['kopfgen.dev/myapp'];
        return raw ? JSON.parse(raw) : undefined;
      });
      await op1.stop();
      const second = new Registry();
      const calls: { retry: number; at: number }[] = [];
      let resumed = 0;
      const h = defineHandler<unknown, { phase?: string }>(myResource, 'myapp');
      h.onCreate(
        ({ retry }) => {
          calls.push({ retry, at: Date.now() });
          return { phase: 'Starting' };
        },
        { registry: second },
      );
      h.onResume(
        () => {
          resumed++;
        },
        { registry: second },
      );
      const op2 = new Operator({ registry: second, namespace: ns, logger: captureLogger() });
      await op2.start();
      try {
        await suite.untilPhase('status Starting', my(ns, 'r'), 'Starting');
        await eventually('the cause to complete', async () =>
          (await suite.get(my(ns, 'r'))).metadata.annotations['kopfgen.dev/last-handled-configuration']
            ? true
            : undefined,
        );
        await new Promise((r) => setTimeout(r, 500));
        assert.equal(calls.length, 1);
        assert.equal(calls[0].retry, 1);
        assert.ok(calls[0].at >= Date.parse(record.delayed), 'not before delayed-until');
        assert.equal(resumed, 0, 'resume handlers do not mix into a creation');
      } finally {
        await op2.stop();
      }
      const op3 = new Operator({ registry: second, namespace: ns, logger: captureLogger() });
      await op3.start();
      try {
        await eventually('the resume handler', async () => (resumed === 1 ? true : undefined));
        await new Promise((r) => setTimeout(r, 500));
        assert.deepEqual(
          [calls.length, resumed],
          [1, 1],
          'a finished create handler does not run again on restart; resume runs once',
        );
      } finally {
        await op3.stop();
      }
    },
  );

  it('cluster-wide: one operator handles objects of every namespace', { timeout: TEST_TIMEOUT }, async () => {
    const registry = new Registry();
    defineHandler<unknown, { phase?: string }>(pair, 'alpha').onCreate(
      ({ namespace }) => ({ phase: `seen in ${namespace}` }),
      { registry },
    );
    const operator = new Operator({ registry, logger: captureLogger() });
    await operator.start();
    try {
      const namespaces = [await namespace(suite.client, 'wide'), await namespace(suite.client, 'wide')];
      for (const ns of namespaces)
        await create(suite.client, objectPath('test.kopfgen.dev', 'v1', 'pairs', ns), {
          apiVersion: 'test.kopfgen.dev/v1',
          kind: 'Pair',
          metadata: { name: 'x' },
          spec: {},
        });
      for (const ns of namespaces) {
        await eventually(`the pair in ${ns}`, async () =>
          (await suite.get(objectPath('test.kopfgen.dev', 'v1', 'pairs', ns, 'x'))).status?.alpha?.phase ===
          `seen in ${ns}`
            ? true
            : undefined,
        );
      }
    } finally {
      await operator.stop();
    }
  });

  it('exits 1 naming the resource when its CRD is not installed', { timeout: TEST_TIMEOUT }, async () => {
    const registry = new Registry();
    const missing = defineResource({
      group: 'missing.kopfgen.dev',
      version: 'v1',
      plural: 'ghosts',
      kind: 'Ghost',
      scope: 'Namespaced',
      statusSubresource: true,
      printerColumns: [],
    });
    defineHandler(missing, 'h').onCreate(() => undefined, { registry });
    const lines: string[] = [];
    const code = await runOperator('test/fixtures/runtime/empty.mjs', {
      registry,
      kubeconfig: suite.cluster.kubeconfig,
      write: (l) => lines.push(l),
    });
    assert.equal(code, 1);
    assert.match(
      lines.join('\n'),
      /does not serve ghosts\.missing\.kopfgen\.dev\/v1 .*is the CRD ghosts\.missing\.kopfgen\.dev installed/,
    );
  });

  const example = 'examples/myresource/operator.ts';
  it(
    'the generated example (TypeScript, through tsx) runs: Starting, then Pending from its generated error',
    { timeout: TEST_TIMEOUT, skip: existsSync(example) ? false : `needs ${example}` },
    async () => {
      const ns = await namespace(suite.client, 'example');
      const run = runChild(ns, {}, example);
      try {
        await untilOutput('the operator to watch', run.output, 'watching myresources', 30_000);
        await create(suite.client, my(ns), myResourceObject('web', { image: 'nginx', replicas: 1 }));
        await suite.untilPhase('Starting', my(ns, 'web'), 'Starting');
        assert.match(suite.cluster.kubectl('get', 'myresources', '-n', ns), /^web\s+Starting\s+/m);
        await suite.mergePatch(my(ns, 'web'), { spec: { replicas: 0 } });
        await suite.untilPhase('Pending', my(ns, 'web'), 'Pending');
        assert.match(suite.cluster.kubectl('get', 'myresources', '-n', ns), /^web\s+Pending\s+/m);
        // The log line follows the writes: wait for it rather than race it.
        await eventually('the outcome log line', async () =>
          /handler myapp failed temporarily, retry in 60s: scaled to zero/.test(run.output()) ? true : undefined,
        );
      } finally {
        run.child.kill('SIGTERM');
        await Promise.race([run.exited, new Promise((r) => setTimeout(r, 10_000))]);
        run.child.kill('SIGKILL');
      }
    },
  );

  it(
    'SIGTERM with a timer the module holds: the CLI process exits 0 once stopped',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'ticking');
      const args = ['bin/kopfgen.js', 'run', 'test/fixtures/runtime/ticking-operator.ts', '-n', ns];
      const child = spawn(process.execPath, [...args, '--no-leader-election', '--health-port', '0'], {
        env: { ...process.env, KUBECONFIG: suite.cluster.kubeconfig },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        await untilOutput('the operator to watch', () => output, 'watching myresources', 30_000);
        child.kill('SIGTERM');
        assert.equal(await exitWithin(exited, 20_000), 0, output);
        assert.match(output, /stopped/);
      } finally {
        child.kill('SIGKILL');
      }
    },
  );

  it(
    'a handler that never settles: recorded as timed out at its timeout; SIGTERM abandons it at the drain timeout, one line, exit 1',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'stuck');
      const args = ['bin/kopfgen.js', 'run', CRASHING, '-n', ns, '--no-leader-election', '--drain-timeout', '2'];
      const child = spawn(process.execPath, [...args, '--health-port', '0'], {
        env: { ...process.env, KUBECONFIG: suite.cluster.kubeconfig, TIMEOUT: '2' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        await untilOutput('the operator to watch', () => output, 'watching myresources', 30_000);
        await create(suite.client, my(ns), myResourceObject('stuck', { image: 'hang' }));
        await untilOutput('the handler to start', () => output, 'handler started stuck 0');
        const record = await eventually('the timed-out attempt recorded while it still runs', async () => {
          const raw = (await suite.get(my(ns, 'stuck'))).metadata.annotations?.['kopfgen.dev/myapp'];
          return raw ? JSON.parse(raw) : undefined;
        });
        assert.equal(record.failure, true);
        assert.match(record.message, /timed out after 2s/);
        const event = await eventually('its Event', async () =>
          (await events(suite.client, ns, 'stuck')).find((e) => e.reason === 'myappFailed'),
        );
        assert.match(event.message, /Handler myapp failed permanently: timed out after 2s/);
        child.kill('SIGTERM');
        assert.equal(await exitWithin(exited, 20_000), 1, output);
        assert.match(
          output,
          new RegExp(
            `abandoned after the drain timeout of 2 s: handler myapp \\(create, attempt 1\\) of myresources\\.example\\.com/v1 ${ns}/stuck, running for \\d+ s`,
          ),
        );
        assert.match(
          output,
          /kopfgen run: stopped with 1 handler attempt\(s\) abandoned after the drain timeout of 2 s/,
        );
      } finally {
        child.kill('SIGKILL');
      }
    },
  );

  it(
    'a handler that calls process.exit: a line names the object, each crash is an attempt, `retries` ends the crash loop',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'pill');
      await create(suite.client, my(ns), myResourceObject('pill', { image: 'exit' }));
      for (let attempt = 1; attempt <= 2; attempt++) {
        // restarted as a kubelet restarts a crashed container
        const run = runChild(ns, { RETRIES: '2' }, CRASHING, { leaderElection: false });
        assert.equal(await exitWithin(run.exited, 30_000), 3, run.output());
        assert.match(
          run.output(),
          new RegExp(
            `the process exits \\(code 3\\) from the code of handler myapp \\(create, attempt ${attempt}\\) of myresources\\.example\\.com/v1 ${ns}/pill`,
          ),
        );
        assert.match(run.output(), /recorded as a failed attempt/);
      }
      const run = runChild(ns, { RETRIES: '2' }, CRASHING, { leaderElection: false });
      try {
        const record = await eventually('the handler failed for good', async () => {
          const raw = (await suite.get(my(ns, 'pill'))).metadata.annotations?.['kopfgen.dev/myapp'];
          const parsed = raw ? JSON.parse(raw) : undefined;
          return parsed?.failure ? parsed : undefined;
        });
        assert.equal(record.retries, 2);
        assert.match(
          record.message,
          /exited \(code 3\) from the code of this attempt \(gave up after 2 attempt\(s\)\)/,
        );
        await create(suite.client, my(ns), myResourceObject('fine', { image: 'x' }));
        await eventually('the next object handled', async () =>
          (await suite.get(my(ns, 'fine'))).status?.myapp?.phase === 'Done' ? true : undefined,
        );
        assert.doesNotMatch(run.output(), /handler started pill/, 'not run again');
      } finally {
        run.child.kill('SIGKILL');
      }
    },
  );

  it(
    'a handler whose process is killed (kill -9, as an OOM kill) over and over: the lease journal counts each, `retries` ends it',
    { timeout: TEST_TIMEOUT },
    async () => {
      const ns = await namespace(suite.client, 'killed');
      await create(suite.client, my(ns), myResourceObject('pill', { image: 'hang' }));
      const election = {
        leaderElection: true,
        leaderElectionId: `killed-${ns}`,
        leaderElectionNamespace: ns,
        leaseDuration: 3,
        renewDeadline: 2,
        retryPeriod: 0.5,
      };
      const outputs: string[] = [];
      // the first attempt outlives a renewal (in the journal); the second is journaled before it starts
      for (const [retry, pause] of [
        [0, 1_500],
        [1, 0],
      ]) {
        const run = runChild(ns, { RETRIES: '2' }, CRASHING, election);
        await untilOutput('the attempt to start', run.output, `handler started pill ${retry}`, 60_000);
        await sleep(pause);
        run.child.kill('SIGKILL');
        await run.exited;
        outputs.push(run.output());
      }
      assert.match(outputs[1], /which did not release the lease .*1 attempt\(s\) it had in flight count as failed/);
      const run = runChild(ns, { RETRIES: '2' }, CRASHING, election);
      try {
        const record = await eventually(
          'the handler failed for good',
          async () => {
            const raw = (await suite.get(my(ns, 'pill'))).metadata.annotations?.['kopfgen.dev/myapp'];
            const parsed = raw ? JSON.parse(raw) : undefined;
            return parsed?.failure ? parsed : undefined;
          },
          60_000,
        );
        assert.equal(record.retries, 2);
        assert.match(
          record.message,
          /the operator process ended during this attempt .*\(gave up after 2 attempt\(s\)\)/,
        );
        await sleep(1_000);
        assert.doesNotMatch(run.output(), /handler started pill/, 'not run a third time');
      } finally {
        run.child.kill('SIGKILL');
      }
    },
  );
});
