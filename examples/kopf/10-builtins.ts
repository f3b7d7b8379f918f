/**
 * kopf's examples/10-builtins: handlers of a built-in kind. Every Pod in sight (created, or found
 * when the operator starts) outside the `kube-*` namespaces gets a task that deletes it after 30 s;
 * deleting the Pod first cancels its task. The tasks are the module's own (kopf's `tasks` dict of
 * asyncio tasks): an AbortController per Pod, its timer unreferenced so a stopping operator never
 * waits for it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { defineHandler, operatorClient, uses, type Logger } from 'kopfgen/runtime';
import { builtins } from 'kopfgen/runtime/builtins';

uses(builtins.pods, ['delete']);

/** The running pod killers, per namespace and Pod name. */
const tasks = new Map<string, Map<string, AbortController>>();

async function podKiller(namespace: string, name: string, logger: Logger, signal: AbortSignal) {
  const timeout = 30;
  try {
    logger.info(`=== Pod killing happens in ${timeout}s.`);
    await sleep(timeout * 1000, undefined, { signal, ref: false });
    logger.info('=== Pod killing happens NOW!');
    await operatorClient().delete(builtins.pods, name, { namespace });
  } catch (error) {
    if (!signal.aborted) throw error;
    logger.info('=== Pod killing is cancelled!');
  } finally {
    tasks.get(namespace)?.delete(name);
  }
}

const podInSight = defineHandler(builtins.pods, 'pod_in_sight');
type InSight = { namespace: string | undefined; name: string; logger: Logger };
const inSight = ({ namespace, name, logger }: InSight) => {
  if (namespace === undefined || namespace.startsWith('kube-')) return;
  const stop = new AbortController();
  const inNamespace = tasks.get(namespace) ?? new Map<string, AbortController>();
  tasks.set(namespace, inNamespace);
  inNamespace.set(name, stop);
  void podKiller(namespace, name, logger, stop.signal).catch((error: unknown) =>
    logger.error(`=== Pod killing failed: ${String(error)}`),
  );
};
podInSight.onResume(inSight);
podInSight.onCreate(inSight);

defineHandler(builtins.pods, 'pod_deleted').onDelete(({ namespace, name }) => {
  tasks
    .get(String(namespace))
    ?.get(name)
    ?.abort(); // the killer logs its cancellation and forgets itself
});
