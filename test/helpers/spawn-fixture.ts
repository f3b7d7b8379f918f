/**
 * One object held in memory behind a fake API client, for timers and daemons: the client answers
 * merge patches by applying them (a new resourceVersion each time), the host reads and adopts that
 * state, and log lines are collected.
 */
import type { KubernetesObject } from '../../src/runtime/api/kube-types.js';
import { createLogger } from '../../src/runtime/effects/log.js';
import type { ResourceEnv } from '../../src/runtime/env.js';
import { applyMergePatch } from '../../src/runtime/json.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import { DEFAULT_MARKS } from '../../src/runtime/reconcile/marks.js';
import type { SpawnHost } from '../../src/runtime/spawn-host.js';
import { myResourceDescriptor, policyEnv } from './resource-env.js';

export function spawnFixture(signal: AbortSignal = new AbortController().signal) {
  let object: KubernetesObject | undefined = {
    apiVersion: 'example.com/v1',
    kind: 'MyResource',
    metadata: { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '1', finalizers: [DEFAULT_MARKS.finalizer] },
    spec: {},
  };
  let version = 1;
  const lines: string[] = [];
  const client = {
    async request(_method: string, _path: string, options: { body: unknown }) {
      if (!object) throw Object.assign(new Error('gone'), { status: 404 });
      object = applyMergePatch(object, options.body) as KubernetesObject;
      object.metadata = { ...object.metadata, resourceVersion: String(++version) };
      return structuredClone(object);
    },
  } as unknown as KubeClient;
  const env: ResourceEnv = {
    client,
    resource: myResourceDescriptor(),
    logger: createLogger({ level: 'debug', write: (line) => void lines.push(line) }),
    signal,
    now: () => new Date(),
    ...policyEnv(),
  };
  const host: SpawnHost = {
    current: () => object,
    adopt: (_uid, answer) => void (object = answer),
  };
  return {
    env,
    host,
    lines,
    body: (): KubernetesObject => {
      if (!object) throw new Error('the object is gone');
      return object;
    },
    markDeleted: () => {
      if (object) object = { ...object, metadata: { ...object.metadata, deletionTimestamp: new Date().toISOString() } };
    },
  };
}
