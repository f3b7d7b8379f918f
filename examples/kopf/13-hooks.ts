/**
 * kopf's examples/13-hooks: operator-level hooks. Two startup hooks, one of them failing its first
 * three attempts with a TemporaryError (retried after its delay, `retry` counting, as kopf retries
 * them), a cleanup hook that stops the per-Pod background tasks an event handler starts, and two
 * probes reporting them at `/probes` of the health server. Without a counterpart here: kopf's
 * `on.login` (kopfgen reads the kubeconfig or the in-cluster account).
 */
import { defineHandler, onCleanup, onProbe, onStartup, TemporaryError } from 'kopfgen/runtime';
import { builtins } from 'kopfgen/runtime/builtins';

/** The background tasks' stop signals, per namespace and Pod name. */
const stoppers = new Map<string, Map<string, AbortController>>();

onStartup(({ logger }) => logger.info('Initialising the task registry...'), { id: 'startup_fn_simple' });

onStartup(
  ({ retry, logger }) => {
    if (retry < 3) throw new TemporaryError(`Going to succeed in ${3 - retry}s`, { delay: 1 });
    logger.info('Starting retried...');
  },
  { id: 'startup_fn_retried' },
);

onCleanup(
  ({ logger }) => {
    logger.info('Cleaning up...');
    for (const tasks of stoppers.values()) for (const stop of tasks.values()) stop.abort();
    logger.info('All pod-tasks are requested to stop...');
  },
  { id: 'cleanup_fn' },
);

onProbe(() => [...stoppers.values()].reduce((sum, tasks) => sum + tasks.size, 0), { id: 'tasks_count' });

onProbe(
  () => Object.fromEntries([...stoppers].map(([namespace, tasks]) => [namespace, [...tasks.keys()].sort()])),
  { id: 'monitored_objects' },
);

defineHandler(builtins.pods, 'pod_task').onEvent(({ namespace, name, logger }) => {
  const tasks = stoppers.get(String(namespace)) ?? new Map<string, AbortController>();
  stoppers.set(String(namespace), tasks);
  if (tasks.has(name)) return;
  const stop = new AbortController();
  tasks.set(name, stop);
  void (async () => {
    while (!stop.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, 1000 + Math.random() * 9000));
      logger.info('Served by the background task.');
    }
    logger.info('Serving is finished by request.');
  })();
});
