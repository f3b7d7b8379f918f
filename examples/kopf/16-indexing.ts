/**
 * kopf's examples/16-indexing: two indexes over Pods (whether each is running; names by label), read by
 * a timer of every KopfExample, which writes the running Pods into its status, and by two probes at
 * `/probes` of the health server. Different from kopf: an index key is a string (`namespace/name`,
 * `label=value`) where kopf takes a tuple.
 */
import { defineHandler, defineIndex, onProbe } from 'kopfgen/runtime';
import { builtins } from 'kopfgen/runtime/builtins';
import { KopfExampleDescriptor, type KopfExample } from './generated/index.js';

const isRunning = defineIndex(
  builtins.pods,
  (pod) => ({ [`${String(pod.metadata?.namespace)}/${String(pod.metadata?.name)}`]: pod.status?.phase === 'Running' }),
  { id: 'is_running' },
);

const byLabel = defineIndex(
  builtins.pods,
  (pod) =>
    Object.fromEntries(
      Object.entries(pod.metadata?.labels ?? {}).map(([label, value]) => [`${label}=${value}`, pod.metadata?.name]),
    ),
  { id: 'by_label' },
);

onProbe(() => isRunning.size, { id: 'pod_count' });
onProbe(() => isRunning.keys().map((key) => key.split('/')[1]), { id: 'pod_names' });

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'intervalled').onTimer(
  (ctx) => {
    ctx.logger.info(`pods by label: ${JSON.stringify(byLabel.keys().map((key) => [key, byLabel.get(key)]))}`);
    ctx.patch.status['running-pods'] = isRunning
      .keys()
      .filter((key) => ['kube-system', 'default'].includes(key.split('/')[0]) && isRunning.get(key).includes(true))
      .map((key) => key.replace('/', '::'));
  },
  { interval: 5 },
);
