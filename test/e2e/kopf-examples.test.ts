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
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { eventually, skip } from '../helpers/envtest.js';
import { create, events, exitWithin, namespace, objectPath, untilOutput, type Body } from '../helpers/e2e-objects.js';
import { E2eSuite } from '../helpers/e2e-suite.js';

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

const EXAMPLE_TIMEOUT = 150_000;

/** A port free now, for an operator's health server. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

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

describe("kopf's examples, ported", { skip, concurrency: 4 }, () => {
  suite.hooks();
  for (const scenario of SCENARIOS) {
    it(scenario.name, { timeout: EXAMPLE_TIMEOUT }, () => runScenario(scenario));
  }
});
