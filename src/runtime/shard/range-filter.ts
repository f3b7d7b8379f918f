/**
 * A watch consumer that passes on only the objects of the hash ranges this replica holds (ARCHITECTURE.md,
 * "Scaling out": memory per share). Where the API server honours KEP-5866's `shardSelector` it has
 * filtered already and this filter lets everything through unchanged; where it does not (every server
 * before 1.36, or the `ShardedListAndWatch` gate off: no `shardInfo` echoed on the list), objects are
 * filtered here on arrival, and that is said once. An object's key is its own uid, or for an owned kind
 * its controller owner's (children follow their parent's range, timebertt's `KeyForController`).
 */
import type { Logger } from '../api/context.js';
import type { KubernetesObject } from '../api/kube-types.js';
import { uidOf } from '../store.js';
import type { WatchConsumer } from '../watcher.js';
import { rangeOf, selectorHonoured } from './ranges.js';

/** The uid whose range an object belongs to: its own, or its controller owner's (an owned kind). */
export type ShardKey = (body: KubernetesObject) => string | undefined;

export const ownKey: ShardKey = (body) => uidOf(body);

export const controllerKey: ShardKey = (body) =>
  body.metadata?.ownerReferences?.find((ref) => ref.controller === true)?.uid;

export class RangeFilter implements WatchConsumer {
  private fallbackTold = false;

  constructor(
    private readonly inner: WatchConsumer,
    /** The number of ranges, K. */
    private readonly count: number,
    /** The ranges held now. */
    private readonly held: () => ReadonlySet<number>,
    private readonly key: ShardKey,
    private readonly logger: Logger,
    /** What the resource is called in the fallback's line. */
    private readonly what: string,
  ) {}

  /** Whether the object's range is held (an object with no key, e.g. a child with no controller: no). */
  holds(body: KubernetesObject): boolean {
    const key = this.key(body);
    return key !== undefined && this.held().has(rangeOf(key, this.count));
  }

  /**
   * A list page's metadata, with the selector that was asked for: when the server did not echo it back it
   * sent every object, and they are filtered here (said once per filter).
   */
  listMetadata(metadata: Record<string, unknown>, asked: string | undefined): void {
    if (asked === undefined || selectorHonoured(metadata, asked) || this.fallbackTold) return;
    this.fallbackTold = true;
    this.logger.info(
      `the API server does not filter ${this.what} by shardSelector (KEP-5866: no shardInfo on the list); ` +
        'each object is filtered by its hash range on arrival',
      { resource: this.what },
    );
  }

  upsert(body: KubernetesObject, event?: 'ADDED' | 'MODIFIED'): void {
    if (this.holds(body)) this.inner.upsert(body, event);
  }

  delete(body: KubernetesObject): void {
    if (this.holds(body)) this.inner.delete(body);
  }

  /**
   * The uids a (re)list found, as the inner consumer knows them: those of held ranges. For an owned kind
   * (keyed by owner) the list's uids are the children's own and cannot be mapped to a range here, so they
   * pass through: the inner consumer forgets only what it knew and is not listed.
   */
  listed(uids: Set<string>): void {
    if (this.key !== ownKey) return this.inner.listed(uids);
    const held = this.held();
    this.inner.listed(new Set([...uids].filter((uid) => held.has(rangeOf(uid, this.count)))));
  }
}
