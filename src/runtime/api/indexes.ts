/**
 * Indexes (kopf's `@kopf.index`, controller-runtime's field indexers on the cache): `defineIndex(kind,
 * fn)` keeps, from a watch of `kind` (in the operator's namespace, or all), what `fn` returns for each object (`{ key: value }`), and answers
 * `index.get(key)` with the values of every object that gave that key. Kept in memory by the leader,
 * rebuilt from a fresh list each term; the operator starts its handlers only once every index has
 * listed (kopf's handlers wait for their indexes the same way), so a handler never sees a partial one.
 *
 * Memory: the index holds the values `fn` returns and, per object, its uid and keys, never the objects
 * (the watch's objects are dropped once indexed); docs/topics/other-objects.md states it per 10,000 objects.
 */
import { INDEXED_ACCESS } from './access.js';
import { defaultRegistry, type IndexFeed, type Registry } from './registry.js';
import type { ResourceDescriptor } from './resource.js';

/** What an index answers; keys are strings (a label's value, a name, `namespace/name`). */
export interface Index<K extends string, V> {
  readonly id: string;
  /** The values of every object that gave `key`, in no particular order; empty when none did. */
  get(key: K): readonly V[];
  has(key: K): boolean;
  /** Every key some object gave. */
  keys(): K[];
  /** Objects that gave at least one key. */
  readonly size: number;
  /** Whether the index holds a complete list (the operator's handlers run only once it does). */
  readonly ready: boolean;
}

/** What `fn` returns for one object: its keys and their values, or nothing to leave it out. */
export type IndexEntries<K extends string, V> = Partial<Record<K, V>> | undefined | null;

export interface IndexOptions {
  /** Names the index in logs (default: `<plural>-<n>`). */
  id?: string;
  registry?: Registry;
}

/** An index's contents: key → (uid → value), and per uid its keys (to take an object out again). */
export class IndexStore<K extends string, V> implements Index<K, V>, IndexFeed {
  private readonly byKey = new Map<K, Map<string, V>>();
  private readonly keysOf = new Map<string, K[]>();
  private complete = false;

  constructor(
    readonly id: string,
    private readonly fn: (object: never) => IndexEntries<K, V>,
  ) {}

  get(key: K): readonly V[] {
    const values = this.byKey.get(key);
    return values ? [...values.values()] : [];
  }

  has(key: K): boolean {
    return this.byKey.has(key);
  }

  keys(): K[] {
    return [...this.byKey.keys()];
  }

  get size(): number {
    return this.keysOf.size;
  }

  get ready(): boolean {
    return this.complete;
  }

  /** A new term: empty, not ready until its first list. */
  reset(): void {
    this.byKey.clear();
    this.keysOf.clear();
    this.complete = false;
  }

  /** The object's entries replace its earlier ones; `fn` throwing leaves it out (the caller logs it). */
  upsert(uid: string, object: unknown): void {
    this.remove(uid);
    const entries = this.fn(object as never);
    if (!entries) return;
    const keys: K[] = [];
    for (const [key, value] of Object.entries(entries) as [K, V | undefined][]) {
      if (value === undefined) continue;
      let values = this.byKey.get(key);
      if (!values) this.byKey.set(key, (values = new Map()));
      values.set(uid, value);
      keys.push(key);
    }
    if (keys.length > 0) this.keysOf.set(uid, keys);
  }

  remove(uid: string): void {
    for (const key of this.keysOf.get(uid) ?? []) {
      const values = this.byKey.get(key);
      values?.delete(uid);
      if (values?.size === 0) this.byKey.delete(key);
    }
    this.keysOf.delete(uid);
  }

  /** After a relist: objects not listed are gone. */
  retain(uids: ReadonlySet<string>): void {
    for (const uid of [...this.keysOf.keys()]) if (!uids.has(uid)) this.remove(uid);
  }

  listed(): void {
    this.complete = true;
  }
}

/**
 * Declares an index over `kind` (watched by the leader, `list` and `watch` granted by `kopfgen
 * manifests`): `fn` gives each object's keys and values (`{ [secretName]: ref }`). Returns the index,
 * readable from any handler.
 */
export function defineIndex<R, K extends string, V, W = R>(
  kind: ResourceDescriptor<R, W>,
  fn: (object: R) => IndexEntries<K, V>,
  options: IndexOptions = {},
): Index<K, V> {
  const registry = options.registry ?? defaultRegistry;
  const id = options.id ?? `${kind.plural}-${registry.indexes.length + 1}`;
  const store = new IndexStore<K, V>(id, fn);
  registry.registerIndex({ id, resource: kind, store });
  registry.declare({
    resource: { group: kind.group, version: kind.version, plural: kind.plural, kind: kind.kind, scope: kind.scope },
    verbs: INDEXED_ACCESS,
    via: `defineIndex(${kind.kind}, …)`,
  });
  return store;
}
