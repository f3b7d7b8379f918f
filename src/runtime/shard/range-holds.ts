/**
 * The holds a replica has on hash ranges (ARCHITECTURE.md, "Scaling out"), as the start gate and the
 * writes see them: each range held has a term fence laid over the member Lease's fence (its renew
 * deadline covers every range of the replica), closed when the range is released or lost; a range being
 * handed over refuses new starts while its fence still lets the running handlers' writes out. An object's
 * hold is its range's (`holdOf(uid)`, for `startGate`); an object of a range not held gets a closed hold.
 */
import { setMaxListeners } from 'node:events';
import { TermFence, type WriteFence } from '../kube/fence.js';
import type { Hold } from '../start-gate.js';
import { rangeOf } from './ranges.js';

/** What the holds need of the member Lease's elector (leader/leader-elector.ts). */
export interface MemberHold {
  fence(): WriteFence;
  lapse(): void;
}

interface RangeTerm {
  fence: TermFence;
  /** Set once the range is being handed over: why new starts are refused. */
  handover?: string;
}

export class RangeHolds {
  private readonly terms = new Map<number, RangeTerm>();

  constructor(
    /** The number of ranges, K. */
    readonly count: number,
    private readonly member: MemberHold,
    /** `namespace/name` of range i's Lease, for the refusals' text. */
    private readonly leaseName: (range: number) => string,
  ) {}

  /** A new term on `range` (its Lease was just written naming this replica): its fence, over the member's. */
  open(range: number): TermFence {
    this.terms.get(range)?.fence.close(`a new term on range ${range} began`);
    const member = this.member.fence();
    setMaxListeners(0, member.signal); // each range's fence listens to the member's: K listeners, by design
    const fence = new TermFence([member]);
    this.terms.set(range, { fence });
    return fence;
  }

  /** The range is being handed over: no new start in it; its fence stays open for what still runs. */
  drain(range: number): void {
    const term = this.terms.get(range);
    if (term) term.handover = `range ${range} is being handed over (lease ${this.leaseName(range)})`;
  }

  /** The range's term is over (released, lost): its fence closes, what is in flight of it is aborted. */
  close(range: number, reason: string): void {
    this.terms.get(range)?.fence.close(reason);
    this.terms.delete(range);
  }

  /** The ranges with an open term (draining ones included). */
  held(): number[] {
    return [...this.terms.keys()].sort((a, b) => a - b);
  }

  /** The hold covering the object with this uid: its range's term, or a closed hold. */
  holdOf(uid: string): Hold {
    return this.holdOfRange(rangeOf(uid, this.count));
  }

  /**
   * The hold of range `range` as it is now: its term, or a closed hold. A range term's start gate asks this
   * (every object it handles is of the range; a child handler's start is its owner's).
   */
  holdOfRange(range: number): Hold {
    const term = this.terms.get(range);
    if (!term) {
      const why = `this replica does not hold range ${range} (lease ${this.leaseName(range)})`;
      return { fence: { refuse: () => why, signal: AbortSignal.abort(new Error(why)) }, lapse: () => undefined };
    }
    return { fence: term.fence, lapse: () => this.member.lapse(), handover: () => term.handover };
  }
}
