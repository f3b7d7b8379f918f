/**
 * One leader-election candidate in its own process, so a test can signal it: SIGTERM stops it
 * gracefully (release), SIGKILL leaves the lease neither renewed nor released. Reads LEADER_CHILD
 * (JSON: kubeconfig, namespace, name, identity, timings) and prints one JSON line per event on stdout:
 * ready, leader, started, stopped, exited.
 */
import { KubeClient } from '../../src/runtime/kube/client.js';
import { readKubeconfig } from '../../src/runtime/kube/kubeconfig.js';
import { LeaderElector } from '../../src/runtime/leader/leader-elector.js';
import type { LeaderTimings } from '../../src/runtime/leader/lease-decision.js';
import { createLogger } from '../../src/runtime/effects/log.js';

interface ChildOptions extends Partial<LeaderTimings> {
  kubeconfig: string;
  namespace: string;
  name: string;
  identity: string;
}

const options = JSON.parse(process.env.LEADER_CHILD ?? '{}') as ChildOptions;
const say = (event: string, fields: Record<string, unknown> = {}) => {
  process.stdout.write(`${JSON.stringify({ event, at: Date.now(), ...fields })}\n`);
};
const read = readKubeconfig({ file: options.kubeconfig });
if ('problem' in read) throw new Error(read.problem);
const client = new KubeClient(read.config);
const elector = new LeaderElector({
  ...options,
  client,
  logger: createLogger({ level: 'debug', prefix: options.identity }),
});
const stop = new AbortController();
process.on('SIGTERM', () => stop.abort());
say('ready');
await elector.run(stop.signal, {
  onStartedLeading: () => say('started'),
  onStoppedLeading: () => say('stopped'),
  onNewLeader: (identity) => say('leader', { identity }),
});
client.close();
say('exited');
