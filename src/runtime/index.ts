export { HandlerError, PermanentError, TemporaryError } from './api/errors.js';
export { ApiError, FencedWriteError, UndeclaredKindError } from './api/client-api.js';
export { uses } from './api/access.js';
export type { AccessVerb } from './api/access.js';
export { operatorClient } from './api/operator-client.js';
export { defineIndex } from './api/indexes.js';
export type { Index, IndexEntries, IndexOptions } from './api/indexes.js';
export type {
  ApplyOptions,
  Client,
  ClientKind,
  ClientVerb,
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  NamespaceOption,
  PatchOptions,
  ResourceRef,
  Selector,
  WriteBody,
} from './api/client-api.js';
export type { HandlerErrorOptions, TemporaryErrorOptions } from './api/errors.js';
export { defineHandler, defineResource, handlerStatus } from './api/define.js';
// The built-in kinds' descriptors and types are `kopfgen/runtime/builtins` (builtin-kinds.ts), loaded only where named.
export { isBuiltin } from './api/builtins.js';
export type { BuiltinDescriptor } from './api/builtins.js';
export { AdmissionError, isAdmissionError } from './api/admission.js';
export type {
  AdmissionContext,
  AdmissionOptions,
  FailurePolicy,
  MutationContext,
  Operation,
  UserInfo,
  ValidateFn,
  ValidationResult,
} from './api/admission.js';
export { defineConversion } from './api/conversion.js';
export type {
  ConversionContext,
  ConversionDefinition,
  ConversionFn,
  ConversionResult,
  SpokeConversion,
} from './api/conversion.js';
export type { WebhookOptions } from './webhooks/serve-webhooks.js';
export type { WebhookEndpoint } from './webhooks/configurations.js';
export type {
  ChangingFn,
  ChildFn,
  Exact,
  HandlerDefinition,
  HandlerFn,
  MutateFn,
  PrinterColumnDescriptor,
  ResourceDescriptor,
  ResourceInfo,
  StatusPatch,
} from './api/define.js';
export type { DiffItem, DiffOperation, Essence, FieldPath, FieldValue, JsonValue } from './api/field-paths.js';
export type { ChangingContext, SubhandlerFn, SubhandlerOptions } from './api/subhandler-api.js';
export { Registry, defaultRegistry } from './api/registry.js';
export type {
  AccessKind,
  Cause,
  DaemonOptions,
  DeclaredAccess,
  IndexFeed,
  RegisteredIndex,
  ErrorsMode,
  HandlerOptions,
  HookContext,
  ProbeContext,
  OperatorHook,
  RegisteredConversion,
  RegisteredHandler,
  RegisteredWebhook,
  StatusMode,
  TimerOptions,
} from './api/registry.js';
export { ABSENT, PRESENT } from './api/filters.js';
export type { ChangeFilters, FilterContext, Filters, MetaFilter, Presence, ValueFilter } from './api/filters.js';
export type { EventContext, WatchEventType } from './api/event-context.js';
export type { Memo } from './api/memo.js';
export { onCleanup, onProbe, onStartup } from './api/hooks.js';
export { onLogin } from './api/login.js';
export type { ConnectionInfo, LoginContext, LoginFn, LoginOptions } from './api/login.js';
export type { HookOptions } from './api/hooks.js';
export type {
  AdoptOptions,
  EventObject,
  PostedEvent,
  ChildContext,
  ChildEvent,
  HandlerContext,
  Logger,
  MergePatch,
  MetadataPatch,
  Patch,
} from './api/context.js';
export type { KubernetesObject, ManagedFieldsEntry, ObjectMeta, OwnerReference } from './api/kube-types.js';
export type {
  Condition,
  ConditionInput,
  ConditionName,
  Conditions,
  ConditionsOf,
  ConditionStatus,
} from './api/conditions-api.js';
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
