/**
 * Helpers shared by handlers. They report progress by throwing errors that carry a status:
 * the runtime merges that status into `status.<id>` of whichever handler is running, so a
 * helper needs neither the handler id nor a `patch` passed down to it.
 */
import { TemporaryError } from 'kopfgen/runtime';
import { MyResourceMyappTemporaryError, type MyResource } from './generated/index.js';

/** Shared by any handler of any resource: the base TemporaryError takes a status and no handler id. */
export function requireImage(resource: MyResource): string {
  const image = resource.spec?.image?.trim();
  if (!image) throw new TemporaryError('spec.image is empty; waiting for it to be set', { delay: 30, status: { phase: 'Pending', reason: 'no-image' } });
  return image;
}

/**
 * Specific to the `myapp` handler: its generated error class checks the status against
 * `MyResourceMyappStatus`, so `{ phase: 42 }` or another handler's status would not compile.
 */
export function requireReplicas(resource: MyResource): number {
  const replicas = resource.spec?.replicas ?? 1;
  if (replicas < 1) throw new MyResourceMyappTemporaryError('scaled to zero; nothing to start', { delay: 60, status: { phase: 'Pending', reason: 'scaled-to-zero' } });
  return replicas;
}
