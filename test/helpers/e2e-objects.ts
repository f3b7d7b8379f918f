/** Helpers for end-to-end tests: a captured logger, namespaces, objects and their reading back. */
import type { Logger } from '../../src/runtime/api/context.js';
import { defineResource } from '../../src/runtime/index.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import { createLogger } from '../../src/runtime/effects/log.js';
import { eventually } from './envtest.js';

export type Body = Record<string, any>;

export const myResource = defineResource<{
  metadata?: { name?: string };
  spec: { image: string; replicas?: number };
  status?: { myapp?: { phase?: string } };
}>({
  group: 'example.com',
  version: 'v1',
  plural: 'myresources',
  kind: 'MyResource',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [{ name: 'Status', type: 'string', jsonPath: '.status.myapp.phase' }],
});

export const pair = defineResource<{
  spec: { size?: number };
  status?: { alpha?: { phase?: string }; beta?: { phase?: string } };
}>({
  group: 'test.kopfgen.dev',
  version: 'v1',
  plural: 'pairs',
  kind: 'Pair',
  scope: 'Namespaced',
  statusSubresource: false,
  printerColumns: [],
});

/** The policy fixtures' Blob (test/fixtures/runtime/blobs.yaml): any spec, any status. */
export const blob = defineResource<{ spec: Record<string, unknown>; status?: Record<string, unknown> }>({
  group: 'policy.kopfgen.dev',
  version: 'v1',
  plural: 'blobs',
  kind: 'Blob',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [],
});

export interface CapturedLogger extends Logger {
  lines: string[];
}

export function captureLogger(echo = process.env.KOPFGEN_E2E_LOG === '1'): CapturedLogger {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    write: (line) => {
      lines.push(line);
      if (echo) process.stderr.write(`${line}\n`);
    },
  });
  return Object.assign(logger, { lines });
}

let counter = 0;
export async function namespace(client: KubeClient, prefix: string): Promise<string> {
  const name = `${prefix}-${process.pid}-${++counter}`;
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
  return name;
}

export function objectPath(group: string, version: string, plural: string, ns: string, name = ''): string {
  return `/apis/${group}/${version}/namespaces/${ns}/${plural}${name ? `/${name}` : ''}`;
}

export async function create(client: KubeClient, path: string, body: Body): Promise<Body> {
  return client.request<Body>('POST', path, { body });
}

export async function events(client: KubeClient, ns: string, name: string): Promise<Body[]> {
  const list = await client.request<{ items: Body[] }>('GET', `/api/v1/namespaces/${ns}/events`);
  return list.items.filter((e) => e.involvedObject?.name === name);
}

/** The path of the example's MyResources in `ns` (one of them with `name`). */
export const myResources = (ns: string, name = ''): string => objectPath('example.com', 'v1', 'myresources', ns, name);

/** The path of the policy fixtures' Blobs in `ns` (one of them with `name`). */
export const blobs = (ns: string, name = ''): string => objectPath('policy.kopfgen.dev', 'v1', 'blobs', ns, name);

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A MyResource named `name` with `spec`, as the tests create it. */
export const myResourceObject = (name: string, spec: Body): Body => ({
  apiVersion: 'example.com/v1',
  kind: 'MyResource',
  metadata: { name },
  spec,
});

/** Waits (eventually's default 30 s, or `timeoutMs`) until a child's captured output includes `text`. */
export const untilOutput = (what: string, output: () => string, text: string, timeoutMs?: number): Promise<true> =>
  eventually(what, async () => (output().includes(text) ? true : undefined), timeoutMs);

/** A child's exit code, or `'timeout'` when it has not exited within `ms`. */
export const exitWithin = (exited: Promise<number | null>, ms: number): Promise<number | null | 'timeout'> =>
  Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms))]);
