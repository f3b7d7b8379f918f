/**
 * What the runtime knows of Kubernetes' own kinds as handler targets (kopf's
 * `@kopf.on.create('configmaps')`, controller-runtime's `For(&corev1.ConfigMap{})`): which resources
 * are built in, and the guard that keeps their status unwritten. The descriptors and their object
 * types are a separate entry point (`kopfgen/runtime/builtins`, `../builtin-kinds.ts`), so a project
 * that never names a built-in kind never loads their types.
 *
 * Their status is not ours to write: Kubernetes' controllers own it (a Deployment's status is the
 * deployment controller's; a ConfigMap has none). So a built-in kind's handler has the status type
 * `never`: returning a value is a compile error (TS2322 at the callback), as a typed error's status
 * would be. Progress, the last-handled essence and the finalizer go to annotations and metadata as
 * for custom resources. At run time (JavaScript, or a cast) a returned value, an error's status or
 * `patch.status` is not written: the handler's log says so once per attempt.
 */
import type { HandlerContext } from './context.js';
import type { ResourceDescriptor } from './resource.js';
import { isHandlerError, PermanentError, TemporaryError } from './errors.js';

/** The descriptor of a built-in kind: no CRD behind it, its status not the operator's to write. */
export interface BuiltinDescriptor<R> extends ResourceDescriptor<R> {
  readonly builtin: true;
}

/**
 * Groups kube-apiserver serves itself (and the core group, ""): their resources have no CRD to read.
 * A CRD's group always has a dot, so a group without one is built in too.
 */
const BUILT_IN_GROUPS = new Set([
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'metrics.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

/** Whether a resource is one of Kubernetes' own (no CRD to check), by its flag or its group. */
export function isBuiltin(resource: Pick<ResourceDescriptor, 'group'> & { builtin?: boolean }): boolean {
  return resource.builtin === true || !resource.group.includes('.') || BUILT_IN_GROUPS.has(resource.group);
}

type Callback = (context: HandlerContext<unknown, unknown, unknown>) => unknown;

/**
 * A built-in kind's handler as the runtime runs it: whatever would land in `status` (a returned
 * value, an error's status, `patch.status`) is dropped with one warning, so nothing the cluster
 * owns is written and nothing is silently lost either.
 */
export function builtinHandler(id: string, fn: Callback): Callback {
  const dropped = (context: HandlerContext<unknown, unknown, unknown>, what: string) =>
    context.logger.warn(
      `handler ${id}: ${what} is not written: the status of a built-in kind belongs to Kubernetes (see kopfgen's docs/topics/other-objects.md, "Built-in kinds")`,
    );
  const clearPatchStatus = (context: HandlerContext<unknown, unknown, unknown>) => {
    const status: unknown = Reflect.get(context.patch, 'status');
    if (typeof status === 'object' && status !== null && Object.keys(status).length > 0) {
      dropped(context, 'patch.status');
      for (const key of Object.keys(status)) Reflect.deleteProperty(status, key);
    }
  };
  return async (context) => {
    let result: unknown;
    try {
      result = await fn(context);
    } catch (error) {
      clearPatchStatus(context);
      const kind = isHandlerError(error);
      if (!kind || Reflect.get(Object(error), 'status') === undefined) throw error;
      dropped(context, 'the status its error carries');
      const message = error instanceof Error ? error.message : String(error);
      const cause: unknown = Reflect.get(Object(error), 'cause');
      if (kind === 'permanent') throw new PermanentError(message, { cause });
      const delay: unknown = Reflect.get(Object(error), 'delay');
      throw new TemporaryError(message, { cause, delay: typeof delay === 'number' ? delay : undefined });
    }
    clearPatchStatus(context);
    if (result !== undefined) dropped(context, 'its return value');
    return undefined;
  };
}
