export { HandlerError, PermanentError, TemporaryError } from './api/errors.js';
export type { HandlerErrorOptions, TemporaryErrorOptions } from './api/errors.js';
export { defineHandler, defineResource, handlerStatus } from './api/define.js';
export type {
  Exact,
  HandlerDefinition,
  HandlerFn,
  PrinterColumnDescriptor,
  ResourceDescriptor,
  StatusPatch,
} from './api/define.js';
export type { Essence, FieldPath, FieldValue } from './api/field-paths.js';
export { Registry, defaultRegistry } from './api/registry.js';
export type { Cause, ErrorsMode, HandlerOptions, RegisteredHandler, StatusMode } from './api/registry.js';
export type {
  DiffItem,
  DiffOperation,
  HandlerContext,
  Logger,
  MergePatch,
  MetadataPatch,
  Patch,
} from './api/context.js';
export type { KubernetesObject, ManagedFieldsEntry, ObjectMeta, OwnerReference } from './api/kube-types.js';
export { Operator, StartupError } from './operator.js';
export type { OperatorOptions } from './operator.js';
export type { BackoffSettings } from './error-policy.js';
export { DEFAULT_MARKS } from './reconcile/marks.js';
export type { Marks, MarksOptions } from './reconcile/marks.js';
export { KubeClient, KubeError } from './kube/client.js';
export { createLogger } from './effects/log.js';
export { FINALIZER, LAST_HANDLED_ANNOTATION } from './reconcile/essence.js';
export { progressAnnotation } from './reconcile/progress.js';
export type { ProgressRecord } from './reconcile/progress.js';
