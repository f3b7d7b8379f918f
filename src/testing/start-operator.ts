/**
 * End to end in one line (kopf's `KopfRunner`, JOSDK's `LocallyRunOperatorExtension`): the runtime in
 * this process against a given cluster, the same `Operator` `kopfgen run` starts (no leader election),
 * waited for until its watches have listed; helpers to create and change objects and to wait for a
 * handler's status; `stop()` lets running handlers finish and their patches be written, as a graceful
 * stop of the operator does. The cluster is the test's: a local API server (`startApiServer`, e.g.
 * `../shared/envtest`'s script, or controller-runtime's envtest binaries), or kind/k3d in CI, its CRDs
 * installed first (`crds`).
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../runtime/api/context.js';
import type { HandlerDefinition, MergePatch, ResourceDescriptor, StatusPatch } from '../runtime/api/define.js';
import type { WriteBody } from '../runtime/api/client-api.js';
import type { KubernetesObject } from '../runtime/api/kube-types.js';
import { defaultRegistry, Registry } from '../runtime/api/registry.js';
import { createLogger } from '../runtime/effects/log.js';
import { isKubernetesObject, isPlainObject } from '../runtime/json.js';
import type { ConditionName, ConditionStatus } from '../runtime/api/conditions-api.js';
import { conditionsOf } from '../runtime/reconcile/conditions.js';
import { KubeClient, KubeError, resourcePath } from '../runtime/kube/client.js';
import { readKubeconfig } from '../runtime/kube/kubeconfig.js';
import type { Operator, OperatorOptions } from '../runtime/operator.js';

const run = promisify(execFile);

export interface StartOperatorOptions extends Omit<OperatorOptions, 'registry' | 'client' | 'leaderElection' | 'now'> {
  /** The cluster's kubeconfig file (default: `KUBECONFIG`, `~/.kube/config`). */
  kubeconfig?: string;
  /** CRD files applied (`kubectl apply -f`) and waited for until served, before the operator starts. */
  crds?: readonly string[];
  /** How long to wait for the operator to be ready, seconds (default 60). */
  readyTimeoutSeconds?: number;
}

export interface WaitOptions {
  namespace?: string;
  /** Seconds (default 30). */
  timeoutSeconds?: number;
}

export interface RunningOperator {
  readonly operator: Operator;
  /** A client of the cluster (the operator's own connection settings). */
  readonly client: KubeClient;
  /** The operator's log lines so far (the handlers' included), without timestamps. */
  readonly logs: string[];
  /**
   * Moves the operator's clock forward: a retry delayed by less becomes due at the object's next event
   * (a change, or the requeue); no real time passes.
   */
  advance(seconds: number): void;
  /** The operator's clock now (the wall clock plus what `advance` added). */
  now(): Date;
  /** Creates `object` (apiVersion and kind from the descriptor; namespace from the object, else `default`). */
  create<R, W>(resource: ResourceDescriptor<R, W>, object: WriteBody<W>): Promise<R>;
  /** A JSON merge patch of the object (its main endpoint: status goes through the operator). */
  patch<R, W>(
    resource: ResourceDescriptor<R, W>,
    name: string,
    patch: MergePatch<W>,
    options?: WaitOptions,
  ): Promise<R>;
  /** The object, or undefined when there is none. */
  get<R, W>(resource: ResourceDescriptor<R, W>, name: string, options?: WaitOptions): Promise<R | undefined>;
  delete<R, W>(resource: ResourceDescriptor<R, W>, name: string, options?: WaitOptions): Promise<void>;
  /** Polls the object until `until` holds; resolves with it, or fails naming what it saw last. */
  waitFor<R, W>(
    resource: ResourceDescriptor<R, W>,
    name: string,
    until: (object: R) => boolean,
    options?: WaitOptions,
  ): Promise<R>;
  /**
   * Waits until `status.<id>` of the handler holds every field of `want` (`null`: the field is absent),
   * e.g. `waitForStatus(MyResourceMyapp, 'web', { phase: 'Starting', reason: null })`.
   */
  waitForStatus<R, S, W>(
    definition: HandlerDefinition<R, S, W>,
    name: string,
    want: StatusPatch<S>,
    options?: WaitOptions,
  ): Promise<R>;
  /**
   * Waits until the object's condition `type` has `status` (default `True`) for its current generation, as
   * `kubectl wait --for=condition=<type>` does: a condition whose `observedGeneration` is older than
   * `metadata.generation` speaks of an earlier spec and does not count. E.g. `waitForCondition(BeaconDescriptor,
   * 'a', 'Ready')` once the runtime keeps the resource's conditions (its status schema has them).
   */
  waitForCondition<R, W>(
    resource: ResourceDescriptor<R, W>,
    name: string,
    type: ConditionName<R>,
    status?: ConditionStatus,
    options?: WaitOptions,
  ): Promise<R>;
  /** Stops the operator gracefully (running handlers finish, their patches are written) and closes its connections. */
  stop(): Promise<void>;
}

function clientFor(kubeconfig: string | undefined): KubeClient {
  const read = readKubeconfig(kubeconfig === undefined ? {} : { file: kubeconfig });
  if ('problem' in read) throw new Error(read.problem);
  return new KubeClient(read.config);
}

/** Whether `actual` holds every field of `want` (deeply; `null` wants the field absent). */
function holds(actual: unknown, want: unknown): boolean {
  if (want === null) return actual === undefined || actual === null;
  if (isPlainObject(want)) return isPlainObject(actual) && Object.entries(want).every(([k, v]) => holds(actual[k], v));
  return JSON.stringify(actual) === JSON.stringify(want);
}

/** Whether `object` has condition `type` at `status` for its current generation (kubectl wait's reading). */
function hasCondition(object: unknown, type: string, status: ConditionStatus): boolean {
  if (!isKubernetesObject(object)) return false;
  const generation = object.metadata?.generation;
  return conditionsOf(object).some(
    (c) =>
      c.type === type &&
      c.status === status &&
      (c.observedGeneration === undefined || generation === undefined || c.observedGeneration >= generation),
  );
}

async function poll<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  seconds: number,
  last: () => unknown,
): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${seconds}s waiting for ${what}; last seen: ${JSON.stringify(last())}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function readyz(port: number): Promise<boolean> {
  return new Promise((done) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/readyz' }, (res) => {
      res.resume();
      done(res.statusCode === 200);
    });
    req.on('error', () => done(false));
  });
}

/** The plural's API group and version are served (a CRD just applied is not at once). */
async function served(client: KubeClient, kubectl: string[], file: string): Promise<void> {
  const { stdout } = await run('kubectl', [...kubectl, 'get', '-f', file, '-o', 'json']);
  const crd: unknown = JSON.parse(stdout);
  const spec = isPlainObject(crd) && isPlainObject(crd.spec) ? crd.spec : {};
  const names = isPlainObject(spec.names) ? spec.names : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isPlainObject) : [];
  const version = versions.find((v) => v.served !== false)?.name ?? spec.version;
  await poll(
    `${String(names.plural)}.${String(spec.group)} to be served`,
    async () => {
      const list = await client
        .request<{ resources?: { name: string }[] }>('GET', `/apis/${String(spec.group)}/${String(version)}`)
        .catch(() => undefined);
      return list?.resources?.some((r) => r.name === names.plural) ? true : undefined;
    },
    60,
    () => undefined,
  );
}

/**
 * Starts the operator of `handlers` (a Registry, or the imported module whose loading registered its
 * handlers in the default registry, or that module's path) against the cluster of `options.kubeconfig`,
 * and resolves once it is ready (its watches have listed). Always `stop()` it (in an `after` hook).
 */
export async function startOperator(
  handlers: Registry | object | string,
  options: StartOperatorOptions = {},
): Promise<RunningOperator> {
  if (typeof handlers === 'string') await import(new URL(resolve(handlers), 'file://').href);
  const registry = handlers instanceof Registry ? handlers : defaultRegistry;
  const { kubeconfig, crds = [], readyTimeoutSeconds = 60, ...rest } = options;
  const file = kubeconfig ?? process.env.KUBECONFIG;
  const client = clientFor(file);
  const kubectl = file === undefined ? [] : ['--kubeconfig', file];
  for (const crd of crds) {
    await run('kubectl', [...kubectl, 'apply', '-f', resolve(crd)]).catch((error: unknown) => {
      throw new Error(`kubectl apply -f ${crd} failed (is kubectl on the PATH?): ${String(error)}`);
    });
    await served(client, kubectl, resolve(crd));
  }
  const logs: string[] = [];
  const kept = createLogger({ level: 'debug', write: (line) => void logs.push(line.slice(line.indexOf(' ') + 1)) });
  const logger: Logger = rest.logger ?? kept;
  let offset = 0;
  const clock = () => new Date(Date.now() + offset);
  // Loaded here, not with kopfgen/testing: a unit test of handlers loads no operator (metrics, watches, leases).
  const { Operator } = await import('../runtime/operator.js');
  const operator = new Operator({
    ...rest,
    logger,
    registry,
    client: clientFor(file),
    leaderElection: false,
    health: rest.health ?? { port: 0, host: '127.0.0.1' },
    now: clock,
  });
  try {
    // A start that fails (a CRD missing, no access) or never gets ready leaves nothing running behind.
    await operator.start();
    const port = operator.health?.port;
    await poll(
      'the operator to be ready (/readyz)',
      async () => (port !== undefined && (await readyz(port)) ? true : undefined),
      readyTimeoutSeconds,
      () => logs.slice(-3),
    );
  } catch (error) {
    await operator.stop();
    client.close();
    throw error;
  }

  const path = (resource: ResourceDescriptor<unknown, unknown>, namespace: string | undefined, name?: string) =>
    resourcePath(resource, resource.scope === 'Namespaced' ? (namespace ?? 'default') : undefined, name);
  const get = async <R, W>(
    resource: ResourceDescriptor<R, W>,
    name: string,
    opts: WaitOptions = {},
  ): Promise<R | undefined> => {
    try {
      return await client.request<R>('GET', path(resource, opts.namespace, name));
    } catch (error) {
      if (error instanceof KubeError && error.status === 404) return undefined;
      throw error;
    }
  };
  const waitFor = async <R, W>(
    resource: ResourceDescriptor<R, W>,
    name: string,
    until: (object: R) => boolean,
    opts: WaitOptions = {},
  ) => {
    let last: R | undefined;
    return poll(
      `${resource.plural} ${name}`,
      async () => {
        last = await get(resource, name, opts);
        return last !== undefined && until(last) ? last : undefined;
      },
      opts.timeoutSeconds ?? 30,
      () => last,
    );
  };

  return {
    operator,
    client,
    logs,
    advance(seconds) {
      offset += seconds * 1000;
    },
    now: clock,
    async create(resource, object) {
      const body = object as KubernetesObject;
      const apiVersion = resource.group ? `${resource.group}/${resource.version}` : resource.version;
      return client.request('POST', path(resource, body.metadata?.namespace), {
        body: { ...body, apiVersion, kind: resource.kind },
      });
    },
    async patch(resource, name, patch, opts = {}) {
      return client.request('PATCH', path(resource, opts.namespace, name), {
        body: patch,
        contentType: 'application/merge-patch+json',
      });
    },
    get,
    async delete(resource, name, opts = {}) {
      await client.request('DELETE', path(resource, opts.namespace, name)).catch((error: unknown) => {
        if (!(error instanceof KubeError && error.status === 404)) throw error;
      });
    },
    waitFor,
    waitForStatus(definition, name, want, opts = {}) {
      return waitFor(
        definition.resource,
        name,
        (object) => holds(Reflect.get(Object(Reflect.get(Object(object), 'status')), definition.id), want),
        opts,
      );
    },
    waitForCondition(resource, name, type, status = 'True', opts = {}) {
      return waitFor(resource, name, (object) => hasCondition(object, type, status), opts);
    },
    async stop() {
      await operator.stop();
      client.close();
    },
  };
}

/** A local API server a script started (`KUBECONFIG=` and `ENVTEST_DIR=` lines on its stdout); `stop()` runs the stop script. */
export interface ApiServer {
  kubeconfig: string;
  stop(): Promise<void>;
}

/**
 * Starts a local API server with `start` (a script printing `KUBECONFIG=<file>` and, to be stopped,
 * `ENVTEST_DIR=<dir>`; `../shared/envtest/start.sh` is one), stopped with `stop <dir>`.
 */
export async function startApiServer(scripts: { start: string; stop: string }): Promise<ApiServer> {
  const { stdout } = await run(scripts.start, { timeout: 900_000 });
  const values = new Map(
    stdout
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const),
  );
  const kubeconfig = values.get('KUBECONFIG');
  if (!kubeconfig) throw new Error(`${scripts.start} printed no KUBECONFIG= line`);
  const dir = values.get('ENVTEST_DIR');
  return {
    kubeconfig,
    async stop() {
      if (dir) await run(scripts.stop, [dir], { timeout: 60_000 });
    },
  };
}
