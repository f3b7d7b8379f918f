/**
 * What to do with an Event before it is written, as client-go's EventCorrelator (tools/record/events_cache.go)
 * decides it, in its order:
 * 1. aggregate (EventAggregator): Events on one object with the same type and reason but different messages
 *    are counted per 10 minutes; from the 10th distinct message on they become one Event
 *    "(combined from similar events): <message>", whose count grows instead of new Events appearing;
 * 2. observe (eventLogger): an Event seen before (same object, type, reason, message, source) is not created
 *    again: its `count` and `lastTimestamp` are patched on the Event object made the first time;
 * 3. filter (EventSourceObjectSpamFilter): a token bucket per object and source (burst 25, one token per
 *    5 minutes) drops what exceeds it. As in client-go a dropped Event still counts in step 2, so the next write
 *    that passes carries the true count.
 * Each cache is an LRU of 4096 entries. `decide` does no I/O and reads the time only from its argument; the
 * effect (event-recorder.ts) writes the step it returns.
 */

/** The object an Event is about (core/v1 ObjectReference). */
export interface EventObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion?: string;
}

export type EventType = 'Normal' | 'Warning';

export interface EventInput {
  object: EventObjectRef;
  type: EventType;
  /** UpperCamelCase, e.g. `ReconcileFailed`; cut to 128 characters. */
  reason: string;
  /** Cut to 1024 characters (events.k8s.io's limit for a note). */
  message: string;
}

export interface EventSource {
  component: string;
  host: string;
}

/** A core/v1 Event as written. */
export interface CoreEvent {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: { name: string; namespace: string };
  involvedObject: EventObjectRef;
  type: EventType;
  reason: string;
  message: string;
  source: EventSource;
  reportingComponent: string;
  reportingInstance: string;
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
}

/** The merge patch that bumps an existing Event, as client-go's eventObserve builds it. */
export interface EventPatch {
  count: number;
  lastTimestamp: string;
  message: string;
}

export type EventStep =
  | { kind: 'create'; event: CoreEvent }
  /** `event` is the whole Event after the patch: created instead if the Event is gone (TTL, deleted). */
  | { kind: 'patch'; event: CoreEvent; patch: EventPatch }
  /** `event` is what would have been written; its count is remembered for the next write that passes. */
  | { kind: 'drop'; event: CoreEvent; reason: 'spam' };

export interface CorrelatorOptions {
  /** Distinct messages per object, type and reason within `aggregateSeconds` before aggregation (client-go: 10). */
  maxSimilar?: number;
  aggregateSeconds?: number;
  /** Spam filter: tokens per object at most (client-go: 25) and seconds per token refilled (client-go: 300). */
  burst?: number;
  refillSeconds?: number;
  /** Entries per cache (client-go: 4096). */
  cacheSize?: number;
}

export const CORRELATOR_DEFAULTS: Required<CorrelatorOptions> = {
  maxSimilar: 10,
  aggregateSeconds: 600,
  burst: 25,
  refillSeconds: 300,
  cacheSize: 4096,
};

const MAX_REASON = 128;
const MAX_MESSAGE = 1024;
const MAX_NAME = 253;
export const COMBINED_PREFIX = '(combined from similar events): ';

/** A least-recently-used map: a Map keeps insertion order, so re-inserting on use moves an entry to the end. */
export class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(readonly capacity: number) {}

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as string);
  }

  get size(): number {
    return this.map.size;
  }
}

interface AggregateRecord {
  messages: Set<string>;
  last: number;
}

/** What was written (or would have been) under one key: client-go's eventLog. */
interface Observation {
  count: number;
  name: string;
  firstTimestamp: string;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** metav1.Time is RFC 3339 to the second. */
const timestamp = (now: Date) => now.toISOString().replace(/\.\d{3}Z$/, 'Z');
const join = (...parts: (string | undefined)[]) => parts.map((part) => part ?? '').join('\u0000');

export class EventCorrelator {
  private readonly options: Required<CorrelatorOptions>;
  private readonly aggregates: Lru<AggregateRecord>;
  private readonly observations: Lru<Observation>;
  private readonly buckets: Lru<Bucket>;
  /** Makes names unique within a process for Events made in one millisecond; random start across replicas. */
  private sequence = Math.floor(Math.random() * 1_000_000);

  constructor(
    readonly source: EventSource,
    options: CorrelatorOptions = {},
  ) {
    this.options = { ...CORRELATOR_DEFAULTS, ...options };
    this.aggregates = new Lru(this.options.cacheSize);
    this.observations = new Lru(this.options.cacheSize);
    this.buckets = new Lru(this.options.cacheSize);
  }

  decide(input: EventInput, now: Date): EventStep {
    const event = this.build(input, now);
    const aggregated = this.aggregate(event, now);
    const observed = this.observe(aggregated.event, aggregated.key, now);
    if (!this.allow(event, now)) return { kind: 'drop', event: observed.event, reason: 'spam' };
    if (!observed.patch) return { kind: 'create', event: observed.event };
    return { kind: 'patch', event: observed.event, patch: observed.patch };
  }

  /** client-go's `<object name>.<unix nanoseconds in hex>`; the name is cut so the whole stays a valid name. */
  private name(object: string, now: Date): string {
    this.sequence = (this.sequence + 1) % 1_000_000;
    const suffix = (BigInt(now.getTime()) * 1_000_000n + BigInt(this.sequence)).toString(16);
    return `${object.slice(0, MAX_NAME - suffix.length - 1)}.${suffix}`;
  }

  private build(input: EventInput, now: Date): CoreEvent {
    const time = timestamp(now);
    return {
      apiVersion: 'v1',
      kind: 'Event',
      // Named in observe(), only when it is a new Event: a count bump keeps the first one's name.
      metadata: { name: '', namespace: input.object.namespace || 'default' },
      involvedObject: input.object,
      type: input.type,
      reason: input.reason.slice(0, MAX_REASON),
      message: input.message.slice(0, MAX_MESSAGE),
      source: this.source,
      reportingComponent: this.source.component,
      reportingInstance: this.source.host,
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
    };
  }

  private objectKey(event: CoreEvent): string {
    const o = event.involvedObject;
    return join(event.source.component, event.source.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion);
  }

  /** EventAggregator.EventAggregate with EventAggregatorByReasonFunc: the key without the message. */
  private aggregate(event: CoreEvent, now: Date): { event: CoreEvent; key: string } {
    const eventKey = join(this.objectKey(event), event.type, event.reason, event.message);
    const aggregateKey = join(this.objectKey(event), event.type, event.reason);
    let record = this.aggregates.get(aggregateKey);
    if (!record || now.getTime() - record.last > this.options.aggregateSeconds * 1000) {
      record = { messages: new Set(), last: 0 };
    }
    record.messages.add(event.message);
    record.last = now.getTime();
    this.aggregates.set(aggregateKey, record);
    if (record.messages.size < this.options.maxSimilar) return { event, key: eventKey };
    // Keep the set below the threshold, as client-go's PopAny: every further new message aggregates again.
    record.messages.delete(record.messages.values().next().value as string);
    const message = `${COMBINED_PREFIX}${event.message}`.slice(0, MAX_MESSAGE);
    return { event: { ...event, message }, key: aggregateKey };
  }

  /** eventLogger.eventObserve: a key seen before becomes a patch of the Event made then. */
  private observe(event: CoreEvent, key: string, now: Date): { event: CoreEvent; patch?: EventPatch } {
    const last = this.observations.get(key);
    if (!last) {
      const name = this.name(event.involvedObject.name, now);
      this.observations.set(key, { count: 1, name, firstTimestamp: event.firstTimestamp });
      return { event: { ...event, metadata: { ...event.metadata, name } } };
    }
    const count = last.count + 1;
    this.observations.set(key, { ...last, count });
    const bumped: CoreEvent = {
      ...event,
      metadata: { ...event.metadata, name: last.name },
      firstTimestamp: last.firstTimestamp,
      count,
    };
    return {
      event: bumped,
      patch: { count, lastTimestamp: bumped.lastTimestamp, message: bumped.message },
    };
  }

  /** EventSourceObjectSpamFilter: a token bucket per object and source, full at first. */
  private allow(event: CoreEvent, now: Date): boolean {
    const key = this.objectKey(event);
    const { burst, refillSeconds } = this.options;
    const bucket = this.buckets.get(key) ?? { tokens: burst, at: now.getTime() };
    const refilled = Math.max(0, now.getTime() - bucket.at) / 1000 / refillSeconds;
    const tokens = Math.min(burst, bucket.tokens + refilled);
    const allowed = tokens >= 1;
    this.buckets.set(key, { tokens: allowed ? tokens - 1 : tokens, at: now.getTime() });
    return allowed;
  }
}
