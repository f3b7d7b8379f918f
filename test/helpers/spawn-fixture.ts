/**
 * One object held in memory behind a fake API client, for timers and daemons: the client answers
 * merge patches by applying them (a new resourceVersion each time), the host reads and adopts that
 * state, and log lines are collected.
 */
import type { KubernetesObject } from '../../src/runtime/api/kube-types.js';
import { createLogger } from '../../src/runtime/effects/log.js';
import type { ResourceEnv } from '../../src/runtime/env.js';
import { objectApi } from './object-api.js';
import { DEFAULT_MARKS } from '../../src/runtime/reconcile/marks.js';
import type { SpawnHost } from '../../src/runtime/spawn-host.js';
import { myResourceDescriptor, policyEnv } from './resource-env.js';

export function spawnFixture(signal: AbortSignal = new AbortController().signal) {
  const api = objectApi({
    apiVersion: 'example.com/v1',
    kind: 'MyResource',
    metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '1', finalizers: [DEFAULT_MARKS.finalizer] },
    spec: {},
  });
  const lines: string[] = [];
  const env: ResourceEnv = {
    client: api.client,
    resource: myResourceDescriptor(),
    logger: createLogger({ level: 'debug', write: (line) => void lines.push(line) }),
    signal,
    now: () => new Date(),
    ...policyEnv(),
  };
  const host: SpawnHost = {
    current: () => api.current(),
    adopt: (_uid, answer) => (answer ? undefined : api.remove()),
  };
  return {
    env,
    host,
    lines,
    /** The bodies of the PATCHes written, in order. */
    written: api.written,
    body: (): KubernetesObject => {
      const object = api.current();
      if (!object) throw new Error('the object is gone');
      return object;
    },
    markDeleted: () => void api.edit({ metadata: { deletionTimestamp: new Date().toISOString() } }),
    /** Someone else's change of the object. */
    edit: (patch: Record<string, unknown>) => api.edit(patch),
  };
}
