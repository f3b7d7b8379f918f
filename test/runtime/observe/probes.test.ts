import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { liveness, readiness, type Role, type WatchState } from '../../../src/runtime/observe/probes.js';

const t0 = new Date('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const watch = (resource: string, listed: boolean, lastSeen?: number): WatchState => ({
  resource,
  listed,
  lastSeen: lastSeen === undefined ? undefined : at(lastSeen),
});

describe('liveness', () => {
  const cases: {
    name: string;
    watches: WatchState[];
    now: number;
    stall?: number;
    others?: string[];
    want: string[];
  }[] = [
    { name: 'no watches (a standby) is alive', watches: [], now: 1000, want: [] },
    { name: 'a watch heard from within the limit', watches: [watch('a', true, 0)], now: 90, want: [] },
    { name: 'a watch not yet heard from is not a stall', watches: [watch('a', false)], now: 1000, want: [] },
    {
      name: 'each silent watch is one problem',
      watches: [watch('a', true, 0), watch('b', true, 50), watch('c', true, 5)],
      now: 96,
      want: ['watch a: nothing received for 96 s (limit 90 s)', 'watch c: nothing received for 91 s (limit 90 s)'],
    },
    {
      name: 'past the limit by a fraction of a second is past it (not rounded back to 90 s)',
      watches: [watch('a', true, 0)],
      now: 90.4,
      want: ['watch a: nothing received for 90 s (limit 90 s)'],
    },
    { name: 'exactly the limit is still within it', watches: [watch('a', true, 0)], now: 90, want: [] },
    {
      name: 'a problem found elsewhere (leader election that cannot reach its Lease) is one more line',
      watches: [watch('a', true, 0)],
      now: 10,
      others: ['leader election: no read or write of lease ns/op succeeded for 16 s'],
      want: ['leader election: no read or write of lease ns/op succeeded for 16 s'],
    },
    {
      name: 'the limit is an option',
      watches: [watch('a', true, 0)],
      now: 31,
      stall: 30,
      want: ['watch a: nothing received for 31 s (limit 30 s)'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = liveness(c.watches, at(c.now), c.stall, c.others);
      assert.deepEqual(got, { ok: c.want.length === 0, problems: c.want });
    });
  }
});

describe('readiness', () => {
  const cases: { name: string; role: Role; watches: WatchState[]; want: string[] }[] = [
    {
      name: 'before the election decides',
      role: 'starting',
      watches: [],
      want: ['leader election: neither leader nor standby yet'],
    },
    { name: 'a standby is ready without watches', role: 'standby', watches: [], want: [] },
    {
      name: 'a leader whose watches all listed',
      role: 'leader',
      watches: [watch('a', true), watch('b', true, 3)],
      want: [],
    },
    {
      name: 'a leader with a watch still listing',
      role: 'leader',
      watches: [watch('a', true), watch('b', false)],
      want: ['watch b: the initial list has not finished'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(readiness(c.role, c.watches), { ok: c.want.length === 0, problems: c.want });
    });
  }
});
