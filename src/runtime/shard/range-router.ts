/**
 * One handled resource's watch on a sharded replica, routed to the range terms (ARCHITECTURE.md, "Scaling
 * out"): the watch is the replica's (one per resource, whatever it holds), the controllers are the range
 * terms' (one per resource and range held). An object goes to the controller of its uid's range, a child's
 * news to the controller of its owner's range (children follow their parent, timebertt's
 * `KeyForController`); an object of a range with no term is dropped, so the stores hold the replica's
 * share only. A range term attached asks for a relist (`restart`), so it starts from a fresh list of its
 * range: several ranges taken in one look cost one relist, not one each.
 */
import type { ResourceDescriptor } from '../api/define.js';
import type { KubernetesObject } from '../api/kube-types.js';
import type { ChildNews } from '../children.js';
import type { ChildOwner } from '../secondary-watch.js';
import { uidOf } from '../store.js';
import type { WatchConsumer } from '../watcher.js';
import { rangeOf } from './ranges.js';

/** What a range term gives the router for one resource: its controller (controller.ts). */
export interface RangeConsumer extends WatchConsumer {
  childChanged(owner: string, news: ChildNews): void;
}

/** A range's relist is asked this long after its term attaches, so the ranges of one look share one. */
export const RELIST_AFTER_MS = 50;

export class RangeRouter implements WatchConsumer, ChildOwner {
  private readonly terms = new Map<number, RangeConsumer>();
  /** The ranges with a term attached (RangeFilter's `held`). */
  readonly held = new Set<number>();
  private relisting?: NodeJS.Timeout;
  /** Ends the replica's watch of the resource so that it lists again (set by the watch loop). */
  restart: () => void = () => undefined;

  constructor(
    readonly resource: ResourceDescriptor,
    /** The number of ranges, K. */
    private readonly count: number,
  ) {}

  /** Range `range`'s term now takes the resource's objects of the range; a relist follows shortly. */
  attach(range: number, consumer: RangeConsumer): void {
    this.terms.set(range, consumer);
    this.held.add(range);
    this.relisting ??= setTimeout(() => {
      this.relisting = undefined;
      this.restart();
    }, RELIST_AFTER_MS);
  }

  /** The term is over: the range's objects are dropped from now on (unless a newer term took its place). */
  detach(range: number, consumer: RangeConsumer): void {
    if (this.terms.get(range) !== consumer) return;
    this.terms.delete(range);
    this.held.delete(range);
  }

  /** No relist is asked any more (the replica stops). */
  close(): void {
    clearTimeout(this.relisting);
    this.relisting = undefined;
  }

  private termOf(uid: string): RangeConsumer | undefined {
    return this.terms.get(rangeOf(uid, this.count));
  }

  upsert(body: KubernetesObject, event?: 'ADDED' | 'MODIFIED'): void {
    this.termOf(uidOf(body))?.upsert(body, event);
  }

  delete(body: KubernetesObject): void {
    this.termOf(uidOf(body))?.delete(body);
  }

  /** Each term hears of the uids of its own range: what it knew and is not among them is gone. */
  listed(uids: Set<string>): void {
    const byRange = new Map<number, Set<string>>([...this.terms.keys()].map((range) => [range, new Set()]));
    for (const uid of uids) byRange.get(rangeOf(uid, this.count))?.add(uid);
    for (const [range, consumer] of this.terms) consumer.listed(byRange.get(range) ?? new Set());
  }

  childChanged(owner: string, news: ChildNews): void {
    this.termOf(owner)?.childChanged(owner, news);
  }
}
