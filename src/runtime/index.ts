export { HandlerError, PermanentError, TemporaryError } from './errors.js';
export type { HandlerErrorOptions, TemporaryErrorOptions } from './errors.js';
export { defineHandler, defineResource, handlerStatus } from './define.js';
export type { Exact, HandlerDefinition, HandlerFn, PrinterColumnDescriptor, ResourceDescriptor } from './define.js';
export { Registry, defaultRegistry } from './registry.js';
export type { Cause, ErrorsMode, HandlerOptions, RegisteredHandler } from './registry.js';
export type { DiffItem, DiffOperation, HandlerContext, Logger, Patch } from './context.js';
export type { KubernetesObject, ManagedFieldsEntry, ObjectMeta, OwnerReference } from './types.js';
