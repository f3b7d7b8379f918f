import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProgressRecord } from '../../../src/runtime/reconcile/progress.js';
import {
  decideSubhandler,
  parentDelay,
  subhandlerKey,
  type SubhandlerEntry,
  type SubhandlerStep,
} from '../../../src/runtime/reconcile/subhandler-decision.js';

const t0 = new Date('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000).toISOString();
const now = new Date(at(100));

const sub = (id: string, options: SubhandlerEntry['options'] = {}): SubhandlerEntry => ({ id, options });
const rec = (fields: Partial<ProgressRecord>): ProgressRecord => ({
  started: at(0),
  purpose: 'create',
  retries: 1,
  ...fields,
});
const ok = rec({ success: true, stopped: at(1) });
const failed = rec({ failure: true, stopped: at(1), message: 'boom' });
const delayed = (seconds: number, retries = 1) => rec({ delayed: at(seconds), retries, message: 'later' });

interface Row {
  given: string;
  subs: SubhandlerEntry[];
  /** Records by sub id (under parent key `create_fn`). */
  records: Record<string, ProgressRecord>;
  cause?: 'create' | 'update' | 'delete';
  want: SubhandlerStep;
}

const key = (id: string) => `create_fn/${id}`;

const ROWS: Row[] = [
  {
    given: 'none ran yet: the first registered',
    subs: [sub('a'), sub('b')],
    records: {},
    want: { kind: 'run', id: 'a', key: key('a'), record: undefined },
  },
  {
    given: 'the first succeeded: the next',
    subs: [sub('a'), sub('b')],
    records: { a: ok },
    want: { kind: 'run', id: 'b', key: key('b'), record: undefined },
  },
  {
    given: 'a retried one and a fresh one: fewest attempts first (kopf asap)',
    subs: [sub('a'), sub('b')],
    records: { a: delayed(50) },
    want: { kind: 'run', id: 'b', key: key('b'), record: undefined },
  },
  {
    given: 'the only one left is delayed: wait until it wakes',
    subs: [sub('a'), sub('b')],
    records: { a: delayed(130), b: ok },
    want: { kind: 'wait', until: new Date(at(130)) },
  },
  {
    given: 'two delayed: the earliest wake',
    subs: [sub('a'), sub('b')],
    records: { a: delayed(130), b: delayed(110) },
    want: { kind: 'wait', until: new Date(at(110)) },
  },
  {
    given: 'a delay passed: it runs with its record',
    subs: [sub('a'), sub('b')],
    records: { a: delayed(90), b: ok },
    want: { kind: 'run', id: 'a', key: key('a'), record: delayed(90) },
  },
  {
    given: 'its retries used up: fails without running',
    subs: [sub('a', { retries: 1 })],
    records: { a: delayed(90) },
    want: { kind: 'fail', id: 'a', key: key('a'), record: delayed(90), message: 'gave up after 1 attempt(s)' },
  },
  {
    given: 'its timeout passed: fails without running',
    subs: [sub('a', { timeout: 50 })],
    records: { a: delayed(90) },
    want: { kind: 'fail', id: 'a', key: key('a'), record: delayed(90), message: 'timed out after 50s' },
  },
  {
    given: 'all succeeded: done',
    subs: [sub('a'), sub('b')],
    records: { a: ok, b: ok },
    want: { kind: 'done', failures: [] },
  },
  {
    given: 'all finished, one failed for good: done, naming it',
    subs: [sub('a'), sub('b')],
    records: { a: failed, b: ok },
    want: { kind: 'done', failures: [{ id: 'a', message: 'boom' }] },
  },
  {
    given: 'a record of a finished cause (done) counts as absent: it runs again',
    subs: [sub('a')],
    records: { a: { ...failed, done: true } },
    want: { kind: 'run', id: 'a', key: key('a'), record: undefined },
  },
  {
    given: "a create record does not count for the deletion's sub-handlers",
    subs: [sub('a')],
    records: { a: ok },
    cause: 'delete',
    want: { kind: 'run', id: 'a', key: key('a'), record: undefined },
  },
  {
    given: 'no sub-handlers: done',
    subs: [],
    records: {},
    want: { kind: 'done', failures: [] },
  },
];

describe('decideSubhandler: which sub-handler runs (kopf execute + asap)', () => {
  for (const row of ROWS) {
    it(row.given, () => {
      const records = new Map(Object.entries(row.records).map(([id, r]) => [key(id), r]));
      const got = decideSubhandler({
        parentKey: 'create_fn',
        cause: row.cause ?? 'create',
        subhandlers: row.subs,
        records: (k) => records.get(k),
        now,
      });
      assert.deepEqual(got, row.want);
    });
  }
});

describe('parentDelay: when the parent runs again', () => {
  const ROWS: { given: string; step: SubhandlerStep; want: number | undefined }[] = [
    { given: 'a sub-handler due: at once', step: { kind: 'run', id: 'a', key: 'k', record: undefined }, want: 0 },
    { given: 'one to fail: at once', step: { kind: 'fail', id: 'a', key: 'k', record: ok, message: 'm' }, want: 0 },
    { given: 'waiting: until it wakes', step: { kind: 'wait', until: new Date(at(112.5)) }, want: 12.5 },
    { given: 'done: never', step: { kind: 'done', failures: [] }, want: undefined },
  ];
  for (const row of ROWS) it(row.given, () => assert.equal(parentDelay(row.step, now), row.want));
});

describe('subhandlerKey', () => {
  it("is kopf's sub-handler id: <parent>/<sub>", () => {
    assert.equal(subhandlerKey('create_fn', 'item1'), 'create_fn/item1');
    assert.equal(subhandlerKey('fn.field.spec.x', 'a'), 'fn.field.spec.x/a');
  });
});
