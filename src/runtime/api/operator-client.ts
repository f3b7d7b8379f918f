/**
 * `operatorClient()`: the typed client outside a handler (a module's helpers, a webhook callback), as
 * `ctx.client` is inside one. It follows the operator's terms: reads go through the current term's
 * client, or the operator's unfenced one while this replica stands by; writes go through the current
 * term's client only, and are refused with `FencedWriteError` while this replica does not lead, so
 * module-level code is fenced by the lease like a handler. One slot per process, found under a global
 * symbol (a `.ts` operator loaded through tsx may bring a second copy of this module).
 */
import {
  FencedWriteError,
  type ApplyOptions,
  type Client,
  type ClientKind,
  type ClientVerb,
  type CreateOptions,
  type DeleteOptions,
  type GetOptions,
  type ListOptions,
  type PatchOptions,
} from './client-api.js';
import { accessKind, resourceName } from './access.js';

/** What the operator puts in the slot: its unfenced client, and the running term's (undefined while standing by). */
export interface ClientSlot {
  base?: Client;
  term?: Client;
}

const slotKey = Symbol.for('kopfgen.operatorClient');

/** The process's slot (the operator sets its fields). */
export function clientSlot(): ClientSlot {
  const global = globalThis as Record<symbol, unknown>;
  return (global[slotKey] ??= {}) as ClientSlot;
}

const resourceOf = (kind: ClientKind<unknown, unknown>) => resourceName(accessKind(kind));

function reader(verb: ClientVerb, kind: ClientKind<unknown, unknown>): Client {
  const slot = clientSlot();
  const client = slot.term ?? slot.base;
  if (!client) throw new Error(`${verb} ${resourceOf(kind)}: the operator has not started (no client yet)`);
  return client;
}

function writer(verb: ClientVerb, kind: ClientKind<unknown, unknown>): Client {
  const slot = clientSlot();
  if (slot.term) return slot.term;
  if (!slot.base) throw new Error(`${verb} ${resourceOf(kind)}: the operator has not started (no client yet)`);
  throw new FencedWriteError(verb, resourceOf(kind), 'this replica does not lead');
}

const delegate: Client = {
  // async: a refusal rejects the promise, as every other failure of a call does
  get: async (kind, name, options?: GetOptions) => reader('get', kind).get(kind, name, options),
  list: async (kind, options?: ListOptions) => reader('list', kind).list(kind, options),
  create: async (kind, object, options?: CreateOptions) =>
    writer('create', kind).create(kind, object as never, options),
  apply: async (kind, object, options?: ApplyOptions) => writer('apply', kind).apply(kind, object as never, options),
  patch: async (kind, name, patch, options?: PatchOptions) =>
    writer('patch', kind).patch(kind, name, patch as never, options),
  delete: async (kind, name, options?: DeleteOptions) => writer('delete', kind).delete(kind, name, options),
};

/** The typed client that follows the operator's terms (see above). */
export function operatorClient(): Client {
  return delegate;
}
