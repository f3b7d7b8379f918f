/**
 * kopf's examples as a conformance suite: each example of kopf 1.38 that has a kopfgen counterpart
 * (`examples/kopf/NN-*.ts`) is run as kopf's own end-to-end test runs it (kopf's
 * tests/e2e/test_examples.py, translated): `kopfgen run` on the module, the example's object
 * (kopf's examples/obj.yaml) created, the example's creation marks waited for, the object deleted and
 * waited for until it is gone (kopf's "Deleted, really deleted"), SIGTERM, then: exit code 0, no crash,
 * every handler that succeeded did so exactly once (or as many times as the example's hints say), and
 * the handlers that failed for good are exactly those the hints name. One API server for the suite;
 * the examples run side by side, each in a namespace of its own.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { eventually, skip } from '../helpers/envtest.js';
import { create, events, exitWithin, namespace, objectPath, untilOutput, type Body } from '../helpers/e2e-objects.js';
import { E2eSuite } from '../helpers/e2e-suite.js';
import { startOperator } from '../../src/testing/start-operator.js';
import { KopfExampleDescriptor } from '../../examples/kopf/generated/index.js';
import { freePort } from '../helpers/free-port.js';

const KOPFEXAMPLES_CRD = {
  file: 'examples/kopf/kopfexamples.yaml',
  group: 'kopf.dev',
  version: 'v1',
  plural: 'kopfexamples',
};
const suite = new E2eSuite({ crds: [KOPFEXAMPLES_CRD] });

/** kopf's examples/obj.yaml. */
const OBJECT: Body = {
  apiVersion: 'kopf.dev/v1',
  kind: 'KopfExample',
  metadata: {
    name: 'kopf-example-1',
    labels: { somelabel: 'somevalue' },
    annotations: { someannotation: 'somevalue' },
  },
  spec: { duration: '1m', field: 'value', items: ['item1', 'item2'] },
};

/** One example's run, with kopf's E2E_* hints translated. */
interface Scenario {
  /** `examples/kopf/<name>.ts`, run as its compiled JavaScript. */
  name: string;
  /** The log text that says the operator is ready (default: its watch of kopfexamples started). */
  ready?: string;
  /** Extra flags of `kopfgen run`. */
  flags?: string[];
  /** Log text to wait for after the object is created (kopf's E2E_CREATION_STOP_WORDS; all of them). */
  created?: string[];
  /** Log text to wait for once the object is gone (kopf's E2E_DELETION_STOP_WORDS). */
  deleted?: string[];
  /** `handler <id> succeeded` (or `hook <id> succeeded`) lines per id (kopf's E2E_SUCCESS_COUNTS); default: each id that succeeded, once. */
  successes?: Record<string, number>;
  /** `handler <id> failed permanently` lines per id (kopf's E2E_FAILURE_COUNTS); default: none. */
  failures?: Record<string, number>;
  /** Events about the object once created: type, reason, message (each waited for). */
  events?: [string, string, string][];
  /** What the operator's `/probes` answers once the object is created (kopf's on.probe). */
  probes?: Record<string, unknown>;
  /** What the object's status holds once created (read before its deletion). */
  status?: (status: Record<string, unknown>) => void;
}

const SCENARIOS: Scenario[] = [
  {
    name: '01-minimal',
    created: ['handler create_fn succeeded'],
    status: (status) => assert.deepEqual(status.create_fn, { message: 'hello world' }),
  },
  {
    name: '02-children',
    created: ['handler create_fn succeeded'],
    status: (status) => assert.match(String((status.create_fn as Body).children), /^[0-9a-f-]{36}$/),
  },
  {
    name: '03-exceptions',
    created: [
      'handler eventual_success_with_a_few_messages succeeded',
      'handler eventual_failure_with_tracebacks failed permanently',
      'handler instant_failure_with_traceback failed permanently',
      'handler instant_failure_with_only_a_message failed permanently',
    ],
    successes: { eventual_success_with_a_few_messages: 1 },
    failures: {
      eventual_failure_with_tracebacks: 1,
      instant_failure_with_traceback: 1,
      instant_failure_with_only_a_message: 1,
    },
  },
  {
    name: '04-events',
    flags: ['--no-leader-election', '--success-events'],
    created: ['handler create_fn succeeded'],
    events: [
      ['Normal', 'SomeReason', 'Some message'],
      ['Warning', 'SomeReason', 'Some message'],
      ['Warning', 'SomeReason', 'Some exception: Exception text.'],
      ['Normal', 'create_fnSucceeded', 'Handler create_fn succeeded'],
    ],
  },
  {
    name: '05-handlers',
    created: ['handler create_fn_2 succeeded'],
    deleted: ['handler delete_fn_2 succeeded'],
    successes: { create_fn_1: 1, create_fn_2: 1, field_fn: 1, delete_fn_1: 1, delete_fn_2: 1 },
  },
  {
    name: '06-peering',
    flags: ['--leader-election', '--lease-duration', '4', '--renew-deadline', '3', '--retry-period', '1'],
    created: ['handler create_fn_peering succeeded'],
  },
  {
    name: '08-events',
    created: ['Event received: ADDED'],
    deleted: ['Event received: DELETED'],
    successes: {},
  },
  {
    name: '11-filtering-handlers',
    created: ['Field daemon is satisfied.', 'handler create_with_field_presence_satisfied succeeded'],
    successes: {
      create_with_labels_matching: 1,
      create_with_labels_present: 1,
      create_with_labels_absent: 1,
      create_with_labels_callback_matching: 1,
      create_with_annotations_matching: 1,
      create_with_annotations_present: 1,
      create_with_annotations_absent: 1,
      create_with_annotations_callback_matching: 0,
      create_with_filter_satisfied: 1,
      create_with_filter_not_satisfied: 0,
      create_with_field_value_satisfied: 1,
      create_with_field_value_not_satisfied: 0,
      create_with_field_presence_satisfied: 1,
      create_with_field_presence_not_satisfied: 0,
      update_with_field_change_satisfied: 0,
    },
  },
  {
    name: '13-hooks',
    ready: 'watching pods',
    probes: { tasks_count: 0, monitored_objects: {} },
    successes: { startup_fn_simple: 1, startup_fn_retried: 1, cleanup_fn: 1 },
  },
  {
    name: '14-daemons',
    created: ['=> Ping from a sync daemon', '=> Ping from an async daemon'],
    successes: { background_sync: 1, background_async: 1 },
    status: (status) => assert.equal(status.message, 'Failed 3 times.'),
  },
  {
    name: '15-timers',
    created: ['Ping from a sync timer', 'Ping from an async timer'],
    successes: {},
  },
  {
    name: '16-indexing',
    created: ['handler intervalled succeeded'],
    probes: { pod_count: 0, pod_names: [] },
    successes: {},
    status: (status) => assert.deepEqual(status['running-pods'], []),
  },
  {
    name: '99-all-at-once',
    created: [
      'handler create_1 succeeded',
      'handler create_2 succeeded',
      'handler create_pod succeeded',
      'This pod is special for us.',
    ],
    deleted: ['handler delete succeeded'],
    successes: {
      create_1: 1,
      create_2: 1,
      create_pod: 1,
      delete: 1,
      startup_fn_simple: 1,
      startup_fn_retried: 1,
      cleanup_fn: 1,
    },
    events: [
      ['Normal', 'AnyReason', ''],
      ['Warning', 'SomeReason', 'Cannot do something'],
    ],
    status: (status) =>
      assert.deepEqual([status.create_1, status.create_2], [{ 'job1-status': 100 }, { 'job2-status': 100 }]),
  },
];

/**
 * 07-subhandlers: one sub-handler per `spec.items` entry (item1, item2), each succeeding once under its
 * own id (`create_fn/<item>`), and `create_fn` once, after both (kopf's test counts every id once).
 */
const SUBHANDLERS: Scenario = {
  name: '07-subhandlers',
  created: [
    '=== Handling creation for item1. ===',
    '=== Handling creation for item2. ===',
    'handler create_fn succeeded',
  ],
  successes: { 'create_fn/item1': 1, 'create_fn/item2': 1, create_fn: 1 },
  status: (status) => assert.equal(status.create_fn, undefined, 'the sub-handlers return nothing'),
};

const EXAMPLE_TIMEOUT = 150_000;

/** A port free now, for an operator's health server. */

/** Counts of `handler <id> <what>` lines per id. */
function counts(output: string, what: RegExp): Record<string, number> {
  const found: Record<string, number> = {};
  for (const match of output.matchAll(new RegExp(`(?:handler|hook) (\\S+) ${what.source}`, 'g'))) {
    found[match[1]] = (found[match[1]] ?? 0) + 1;
  }
  return found;
}

/** The counts of the ids named in `want` only (an id never seen counts 0). */
const only = (found: Record<string, number>, want: Record<string, number>) =>
  Object.fromEntries(Object.keys(want).map((id) => [id, found[id] ?? 0]));

async function runScenario(scenario: Scenario): Promise<void> {
  const ns = await namespace(suite.client, `kopf-${scenario.name.slice(0, 2)}`);
  const module = `dist/examples/kopf/${scenario.name}.js`;
  const flags = scenario.flags ?? ['--no-leader-election'];
  const port = scenario.probes ? await freePort() : 0;
  const health = ['--health-port', String(port), '--health-host', '127.0.0.1'];
  const child = spawn(process.execPath, ['bin/kopfgen.js', 'run', module, '-n', ns, ...health, ...flags], {
    env: { ...process.env, KUBECONFIG: suite.cluster.kubeconfig, POD_NAMESPACE: ns },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const log = () => output;
  const path = objectPath('kopf.dev', 'v1', 'kopfexamples', ns, 'kopf-example-1');
  try {
    const ready = scenario.ready ?? 'watching kopfexamples';
    await untilOutput(`${scenario.name}: the operator to be ready`, log, ready, 60_000);
    await create(suite.client, objectPath('kopf.dev', 'v1', 'kopfexamples', ns), OBJECT);
    for (const text of scenario.created ?? []) await untilOutput(`${scenario.name}: ${text}`, log, text, 60_000);
    for (const [type, reason, message] of scenario.events ?? []) {
      await eventually(`${scenario.name}: the Event ${type} ${reason} ${message}`, async () =>
        (await events(suite.client, ns, 'kopf-example-1')).find(
          (e) => e.type === type && e.reason === reason && (e.message ?? '') === message,
        ),
      );
    }
    if (scenario.probes) {
      const response = await fetch(`http://127.0.0.1:${port}/probes`);
      assert.deepEqual([response.status, await response.json()], [200, scenario.probes]);
    }
    const body = await suite.get(path);
    scenario.status?.(body.status ?? {});
    await suite.client.request('DELETE', path);
    await eventually(
      `${scenario.name}: the object to be gone`,
      async () => {
        try {
          await suite.get(path);
          return undefined;
        } catch (error) {
          return (error as { status?: number }).status === 404 ? true : undefined;
        }
      },
      60_000,
    );
    for (const text of scenario.deleted ?? []) await untilOutput(`${scenario.name}: ${text}`, log, text, 30_000);
    child.kill('SIGTERM');
    assert.equal(await exitWithin(exited, 30_000), 0, `${scenario.name} did not exit 0 after SIGTERM:\n${output}`);
  } finally {
    child.kill('SIGKILL');
  }
  assert.doesNotMatch(output, /Uncaught|UnhandledPromiseRejection|TypeError|ReferenceError/, output);
  const succeeded = counts(output, /succeeded/);
  if (scenario.successes) assert.deepEqual(only(succeeded, scenario.successes), scenario.successes, output);
  else assert.deepEqual(new Set(Object.values(succeeded)), new Set([1]), output);
  const failed = counts(output, /failed permanently/);
  assert.deepEqual(scenario.failures ? only(failed, scenario.failures) : failed, scenario.failures ?? {}, output);
}

/** `kopfgen run` of an example in its namespace (no leader election, no health server), its output gathered. */
function runExample(name: string, ns: string, flags: string[] = []) {
  const module = `dist/examples/kopf/${name}.js`;
  const child = spawn(
    process.execPath,
    ['bin/kopfgen.js', 'run', module, '-n', ns, '--health-port', '0', '--no-leader-election', ...flags],
    {
      env: { ...process.env, KUBECONFIG: suite.cluster.kubeconfig, POD_NAMESPACE: ns },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const log = () => output;
  /** SIGTERM, then the exit code (SIGKILL past 30 s). */
  const stop = async () => {
    child.kill('SIGTERM');
    const code = await exitWithin(exited, 30_000);
    child.kill('SIGKILL');
    return code;
  };
  return { child, log, stop };
}

/** Resolves once `path` answers 404. */
const gone = (what: string, path: string) =>
  eventually(what, async () => {
    try {
      await suite.get(path);
      return undefined;
    } catch (error) {
      return (error as { status?: number }).status === 404 ? true : undefined;
    }
  });

/**
 * kopf's examples/09-testing/test_example_09.py: the operator run in the test (kopf's `KopfRunner`,
 * kopfgen/testing's `startOperator`), kopf's object created and deleted, then the operator's output
 * checked for the handler's progress and its log line.
 */
async function testing09(): Promise<void> {
  const ns = await namespace(suite.client, 'kopf-09');
  const runner = await startOperator('dist/examples/kopf/09-testing.js', {
    kubeconfig: suite.cluster.kubeconfig,
    namespace: ns,
  });
  const output = () => runner.logs.join('\n');
  try {
    await runner.create(KopfExampleDescriptor, { ...OBJECT, metadata: { ...OBJECT.metadata, namespace: ns } } as never);
    await untilOutput('09-testing: the handler', output, 'handler create_fn succeeded', 30_000);
    await runner.delete(KopfExampleDescriptor, 'kopf-example-1', { namespace: ns });
    await gone('09-testing: the object to be gone', objectPath('kopf.dev', 'v1', 'kopfexamples', ns, 'kopf-example-1'));
  } finally {
    await runner.stop();
  }
  assert.match(output(), /Something was logged here\./);
  assert.deepEqual(counts(output(), /succeeded/), { create_fn: 1 }, output());
  assert.doesNotMatch(output(), /failed permanently|Uncaught|TypeError/, output());
}

/**
 * kopf's examples/10-builtins/test_example_10.py: a Pod (generateName) created, its killer task
 * started by the create handler, the Pod deleted before the 30 s are up, the task cancelled by the
 * delete handler; exit 0 on SIGTERM.
 */
async function builtins10(): Promise<void> {
  const ns = await namespace(suite.client, 'kopf-10');
  const { log, stop } = runExample('10-builtins', ns);
  try {
    await untilOutput('10-builtins: ready', log, 'watching pods', 60_000);
    const pod = await create(suite.client, `/api/v1/namespaces/${ns}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { generateName: 'kopf-pod-', namespace: ns },
      spec: { containers: [{ name: 'the-only-one', image: 'busybox', command: ['sh', '-x', '-c', 'sleep 1'] }] },
    });
    const name = String(pod.metadata.name);
    await untilOutput('10-builtins: the killer', log, '=== Pod killing happens in 30s.', 30_000);
    // kopf's test sleeps 5 s here ("give it some time to react"): a deletion that overtakes the create
    // handler's outcome would leave its success unrecorded (the object is no longer due for it).
    await untilOutput('10-builtins: the create handler', log, 'handler pod_in_sight succeeded', 30_000);
    await suite.client.request('DELETE', `/api/v1/namespaces/${ns}/pods/${name}`);
    await untilOutput('10-builtins: the cancellation', log, '=== Pod killing is cancelled!', 30_000);
    await gone('10-builtins: the pod to be gone', `/api/v1/namespaces/${ns}/pods/${name}`);
  } catch (error) {
    await stop();
    throw error;
  }
  const code = await stop();
  const output = log();
  assert.equal(code, 0, output);
  assert.doesNotMatch(output, /Pod killing happens NOW|Uncaught|UnhandledPromiseRejection|TypeError/, output);
  assert.deepEqual(counts(output, /succeeded/), { pod_in_sight: 1, pod_deleted: 1 }, output);
  assert.deepEqual(counts(output, /failed permanently/), {}, output);
}

const ADMISSION = 'admissionregistration.k8s.io/v1';
const WEBHOOK_NAME = 'kopf-example-17';

/** The names of the webhooks each configuration of example 17 holds (undefined: no such object). */
async function configurations17(): Promise<(string[] | undefined)[]> {
  return Promise.all(
    ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'].map(async (resource) => {
      try {
        const config = await suite.get(`/apis/${ADMISSION}/${resource}/${WEBHOOK_NAME}`);
        return ((config.webhooks ?? []) as Body[]).map((w) => String(w.name));
      } catch (error) {
        if ((error as { status?: number }).status === 404) return undefined;
        throw error;
      }
    }),
  );
}

/** A create's refusal (status and message), or undefined when it is stored. */
async function refusal(ns: string, body: Body): Promise<[number, string] | undefined> {
  try {
    await create(suite.client, objectPath('kopf.dev', 'v1', 'kopfexamples', ns), body);
    return undefined;
  } catch (error) {
    const { status, message } = error as { status?: number; message?: string };
    return [status ?? 0, String(message)];
  }
}

const example17 = (name: string, spec: Body): Body => ({ ...OBJECT, metadata: { ...OBJECT.metadata, name }, spec });

/**
 * kopf's examples/17-admission through kopf's scenario (the object created and deleted, exit 0), with
 * what its callbacks answer checked on the API server; then what the webhook configurations look like
 * after SIGTERM: kept as written by default (failurePolicy Fail: creates refused while no replica
 * serves), withdrawn with `--webhook-cleanup` (the objects left with no webhooks: creates pass).
 */
async function admission17(): Promise<void> {
  const ns = await namespace(suite.client, 'kopf-17');
  const path = (name: string) => objectPath('kopf.dev', 'v1', 'kopfexamples', ns, name);
  const serve = async (flags: string[]) => {
    const port = await freePort();
    const run = runExample('17-admission', ns, [
      '--webhook-port',
      String(port),
      '--webhook-host',
      '127.0.0.1',
      '--webhook-url',
      `https://127.0.0.1:${port}`,
      '--webhook-name',
      WEBHOOK_NAME,
      ...flags,
    ]);
    await untilOutput('17-admission: ready', run.log, `MutatingWebhookConfiguration ${WEBHOOK_NAME} written`, 60_000);
    return run;
  };
  const all = [
    [
      'authhook.validate.kopfexamples.kopf.dev',
      'validate-subresources.validate-status.kopfexamples.kopf.dev',
      'validate-subresources.validate.kopfexamples.kopf.dev',
      'validate1.validate.kopfexamples.kopf.dev',
      'validate2.validate.kopfexamples.kopf.dev',
    ],
    ['mutate1.mutate.kopfexamples.kopf.dev'],
  ];
  try {
    const first = await serve([]);
    try {
      assert.deepEqual(await configurations17(), all);
      await create(suite.client, objectPath('kopf.dev', 'v1', 'kopfexamples', ns), OBJECT);
      assert.equal((await suite.get(path('kopf-example-1'))).spec.injected, 123, 'mutate1 injects spec.injected');
      const denied = await refusal(ns, example17('wrong', { field: 'wrong' }));
      assert.match(String(denied), /Meh! I don't like it\. Change the field\./);
      const lazy = await refusal(ns, example17('lazy', { field: 'not-allowed' }));
      assert.equal(lazy?.[0], 555, String(lazy));
      assert.match(String(lazy), /I'm too lazy anyway\. Go away!/);
      await assert.rejects(
        suite.client.request('PATCH', `${path('kopf-example-1')}/status`, {
          body: { status: { field: 'other' } },
          contentType: 'application/merge-patch+json',
        }),
        /status\.field MUST be equal to spec\.field!/,
      );
      await suite.client.request('DELETE', path('kopf-example-1'));
      await gone('17-admission: the object to be gone', path('kopf-example-1'));
    } catch (error) {
      await first.stop();
      throw error;
    }
    assert.equal(await first.stop(), 0, first.log());
    assert.doesNotMatch(first.log(), /Uncaught|UnhandledPromiseRejection|TypeError|withdrawn/, first.log());
    // Kept by default: nobody serves them now, and failurePolicy Fail refuses the create.
    assert.deepEqual(await configurations17(), all);
    const refused = await refusal(ns, example17('unserved', { field: 'value' }));
    assert.match(String(refused), /failed calling webhook/, String(refused));

    const second = await serve(['--webhook-cleanup']);
    assert.equal(await second.stop(), 0, second.log());
    assert.match(second.log(), new RegExp(`ValidatingWebhookConfiguration ${WEBHOOK_NAME} withdrawn`), second.log());
    // Withdrawn: both objects stay (the next start patches them), holding no webhook; creates pass.
    assert.deepEqual(await configurations17(), [[], []]);
    assert.equal(await refusal(ns, example17('after-cleanup', { field: 'value' })), undefined);
  } finally {
    for (const resource of ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'])
      await suite.client.request('DELETE', `/apis/${ADMISSION}/${resource}/${WEBHOOK_NAME}`).catch(() => undefined);
  }
}

/**
 * kopf's examples/12-embedded: not a module for `kopfgen run` but a program embedding the operator. kopf
 * has no e2e test of it (its test_nothing.py), so its README's output is the check: the program starts
 * the operator, waits until it is ready, creates and deletes three objects, each greeted and seen off by
 * the handlers from the memo's templates, then stops the operator and exits 0 by itself (no signal).
 */
async function runEmbedded(): Promise<void> {
  const ns = await namespace(suite.client, 'kopf-12');
  const child = spawn(process.execPath, ['dist/examples/kopf/12-embedded.js'], {
    env: { ...process.env, KUBECONFIG: suite.cluster.kubeconfig, EXAMPLE_NAMESPACE: ns },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await untilOutput('12-embedded: the program to stop the operator', () => output, 'Exiting the main app.', 60_000);
    assert.equal(await exitWithin(exited, 30_000), 0, `12-embedded did not exit 0 by itself:\n${output}`);
  } finally {
    child.kill('SIGKILL');
  }
  const said = (text: string) => {
    const at = output.indexOf(text);
    assert.ok(at >= 0, `12-embedded never said ${JSON.stringify(text)}:\n${output}`);
    return at;
  };
  const order = [
    'Starting the main app.',
    ...[0, 1, 2].flatMap((step) => [
      `Do the main app activity here. Step ${step + 1}/3.`,
      `Hello, kopf-example-${step}!`,
      `Good bye, kopf-example-${step}!`,
    ]),
    'Exiting the main app.',
  ].map(said);
  assert.deepEqual(
    order,
    [...order].sort((a, b) => a - b),
    `12-embedded's lines out of order:\n${output}`,
  );
  assert.doesNotMatch(output, /Uncaught|UnhandledPromiseRejection|TypeError|ReferenceError/, output);
  const handled = { create_fn: 3, delete_fn: 3 };
  assert.deepEqual(only(counts(output, /succeeded/), handled), handled, output);
  assert.deepEqual(counts(output, /failed permanently/), {}, output);
  const left = await suite.client.request<{ items: unknown[] }>(
    'GET',
    objectPath('kopf.dev', 'v1', 'kopfexamples', ns),
  );
  assert.deepEqual(left.items, [], 'every object deleted, its finalizer removed');
}

describe("kopf's examples, ported", { skip }, () => {
  suite.hooks();
  describe('side by side', { concurrency: 4 }, () => {
    for (const scenario of SCENARIOS) {
      it(scenario.name, { timeout: EXAMPLE_TIMEOUT }, () => runScenario(scenario));
    }
    it('09-testing', { timeout: EXAMPLE_TIMEOUT }, testing09);
    it('10-builtins', { timeout: EXAMPLE_TIMEOUT }, builtins10);
    it(SUBHANDLERS.name, { timeout: EXAMPLE_TIMEOUT }, () => runScenario(SUBHANDLERS));
    it('12-embedded', { timeout: EXAMPLE_TIMEOUT }, runEmbedded);
  });
  // Alone, after the others: its webhook configurations are cluster-wide, so its callbacks would
  // review (and its status check refuse) the other examples' objects in every namespace.
  it('17-admission', { timeout: EXAMPLE_TIMEOUT }, admission17);
});
