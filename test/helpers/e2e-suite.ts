/**
 * The one fixture of an end-to-end describe block: a started cluster with its CRDs applied (and,
 * when asked, a fault proxy in front of it), torn down after the block, the operators the tests
 * registered stopped first so their last patches are written while the server still answers.
 * Created at module level (the tests' helpers read it), its hooks registered by the describe block
 * that calls `hooks()`, so a skipped block starts nothing.
 */
import { after, before } from 'node:test';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import type { Operator } from '../../src/runtime/operator.js';
import type { Body } from './e2e-objects.js';
import { applyCrd, eventually, START_TIMEOUT, startCluster, stopCluster, type Cluster } from './envtest.js';
import { FaultProxy } from './proxy.js';

/** A CRD file and the resource it serves, applied before the block's tests. */
export interface SuiteCrd {
  file: string;
  group: string;
  version: string;
  plural: string;
}

/** A CRD of the repository's fixtures, served at v1. */
const v1Crd = (file: string, group: string, plural: string): SuiteCrd => ({ file, group, version: 'v1', plural });

export const MYRESOURCES_CRD = v1Crd('crds/myresource.yaml', 'example.com', 'myresources');
export const PAIRS_CRD = v1Crd('test/fixtures/runtime/twoids.yaml', 'test.kopfgen.dev', 'pairs');
export const BLOBS_CRD = v1Crd('test/fixtures/runtime/blobs.yaml', 'policy.kopfgen.dev', 'blobs');
export const GADGETS_CRD = v1Crd('test/fixtures/runtime/gadgets.yaml', 'policy.kopfgen.dev', 'gadgets');
export const WEBAPPS_CRD = v1Crd('examples/webapp/webapp.yaml', 'example.com', 'webapps');

export interface SuiteOptions {
  /** Applied in order, each waited for until served. */
  crds?: readonly SuiteCrd[];
  /** Start a fault proxy in front of the cluster after the CRDs (closed before the cluster stops). */
  proxy?: boolean;
  /** A last start step of the block's own (a temporary project, an installation), within the start timeout. */
  setup?: (cluster: Cluster) => Promise<void>;
}

export class E2eSuite {
  readonly #options: SuiteOptions;
  #cluster: Cluster | undefined;
  #proxy: FaultProxy | undefined;
  readonly #operators: Operator[] = [];

  constructor(options: SuiteOptions = {}) {
    this.#options = options;
  }

  /** Registers the start (with START_TIMEOUT) and the teardown in the calling describe block. */
  hooks(): void {
    before(() => this.#start(), { timeout: START_TIMEOUT });
    after(() => this.#stop());
  }

  get cluster(): Cluster {
    if (!this.#cluster) throw new Error('the e2e cluster is not started (call suite.hooks() in the describe block)');
    return this.#cluster;
  }

  get client(): KubeClient {
    return this.cluster.client;
  }

  get proxy(): FaultProxy {
    if (!this.#proxy) throw new Error('the fault proxy is not started (SuiteOptions.proxy)');
    return this.#proxy;
  }

  /** An operator to stop before the cluster goes; returns it. */
  track(operator: Operator): Operator {
    this.#operators.push(operator);
    return operator;
  }

  /** The object at `path`, as the server has it now. */
  get(path: string): Promise<Body> {
    return this.client.request<Body>('GET', path);
  }

  /** A JSON merge patch of the object at `path`. */
  mergePatch(path: string, body: Body): Promise<Body> {
    return this.client.request<Body>('PATCH', path, { body, contentType: 'application/merge-patch+json' });
  }

  /** Waits (as `what`) until handler `id`'s status phase of the object at `path` is `want`. */
  untilPhase(what: string, path: string, want: string, id = 'myapp'): Promise<true> {
    return eventually(what, async () => ((await this.get(path)).status?.[id]?.phase === want ? true : undefined));
  }

  async #start(): Promise<void> {
    const cluster = startCluster();
    this.#cluster = cluster;
    for (const crd of this.#options.crds ?? []) {
      await applyCrd(cluster, crd.file, crd.group, crd.version, crd.plural);
    }
    if (this.#options.proxy) this.#proxy = await FaultProxy.start(cluster.kubeconfig);
    await this.#options.setup?.(cluster);
  }

  async #stop(): Promise<void> {
    for (const operator of this.#operators) await operator.stop();
    await this.#proxy?.close();
    stopCluster(this.#cluster);
  }
}
