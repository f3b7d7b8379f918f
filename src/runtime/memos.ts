/**
 * The per-object memos (kopf's `memo` kwarg for resource handlers): each object gets a shallow copy of the
 * operator's memo the first time any of its handlers asks, and keeps it while the object is known, so its
 * handlers (changing, event, timer, daemon, child) share one memo, and the operator's memo is never written
 * through an object's. kopf makes the copy (`copy.copy(memobase)`) when it first sees the object and drops it
 * with the object's memory once the object is gone; kopfgen drops it when the store forgets the object.
 */
import type { Memo } from './api/memo.js';

export class Memos {
  private readonly objects = new Map<string, Memo>();

  /** `root`: the operator's memo, the one the startup hooks filled. */
  constructor(readonly root: Memo) {}

  /** The object's memo: the one it has, else a shallow copy of the operator's, kept from now on. */
  of(uid: string): Memo {
    const known = this.objects.get(uid);
    if (known) return known;
    const made: Memo = { ...this.root };
    this.objects.set(uid, made);
    return made;
  }

  /** The object's memo is `memo` itself (kopfgen/testing: the test reads what the handlers stored). */
  place(uid: string, memo: Memo): void {
    this.objects.set(uid, memo);
  }

  /** The object is gone: its memo goes with it (a later object with the same uid cannot exist). */
  forget(uid: string): void {
    this.objects.delete(uid);
  }

  /** Objects holding a memo (for tests: a forgotten object leaves none). */
  get size(): number {
    return this.objects.size;
  }
}
