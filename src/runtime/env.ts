/**
 * What the components of one resource's controller share: the API client, the resource, the
 * logger, the operator's shutdown signal and the clock (a test may move it).
 */
import type { Logger } from './api/context.js';
import type { ResourceDescriptor } from './api/define.js';
import type { KubeClient } from './kube/client.js';

export interface ResourceEnv {
  client: KubeClient;
  resource: ResourceDescriptor;
  logger: Logger;
  /** Aborted when the operator shuts down. */
  signal: AbortSignal;
  now: () => Date;
}
