/**
 * What an `onEvent` handler receives (kopf's @kopf.on.event kwargs): the raw watch event's type
 * and object. `type` is undefined for an object delivered by a (re)list rather than by an event,
 * as kopf's `event['type']` is None then.
 */
import type { Client } from './client-api.js';
import type { Logger } from './context.js';
import type { ObjectMeta } from './kube-types.js';
import type { Memo } from './memo.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface EventContext<R> {
  type: WatchEventType | undefined;
  body: R;
  meta: ObjectMeta;
  name: string;
  namespace: string | undefined;
  uid: string;
  logger: Logger;
  /** The typed client (client-api.ts), fenced by the term like a handler's. */
  client: Client;
  /** The object's memo, shared with its other handlers (HandlerContext.memo). */
  memo: Memo;
}
