/**
 * The hash ranges: FNV-1a 64 against the published vectors and uids hashed by an independent
 * implementation (Python's, frozen here), a hash's range at the bounds, and the `shardSelector` text in
 * KEP-5866's syntax.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  fnv1a64,
  hexBound,
  rangeCountProblem,
  rangeOf,
  rangeOfHash,
  rangeStart,
  selectorHonoured,
  shardSelector,
} from '../../../src/runtime/shard/ranges.js';

describe('fnv1a64', () => {
  const cases: { given: string; want: string }[] = [
    // the FNV reference vectors (draft-eastlake-fnv; Go's hash/fnv tests)
    { given: '', want: 'cbf29ce484222325' },
    { given: 'a', want: 'af63dc4c8601ec8c' },
    { given: 'foobar', want: '85944171f73967e8' },
    // uids, hashed over their bytes by a separate implementation
    { given: '6ba7b810-9dad-11d1-80b4-00c04fd430c8', want: 'ad05fd9059563830' },
    { given: 'f81d4fae-7dec-11d0-a765-00a0c91e6bf6', want: 'bdb29fb2917eed69' },
    { given: '3e5f2b8a-0c1d-4e2f-9a7b-1c2d3e4f5a6b', want: 'f277e21ca8fe728d' },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.given)} → ${c.want}`, () =>
      assert.equal(fnv1a64(c.given).toString(16).padStart(16, '0'), c.want));
  }
});

describe('ranges', () => {
  it('range i of K starts at ⌊i·2^64/K⌋; K ranges end at 2^64', () => {
    assert.equal(rangeStart(0, 32), 0n);
    assert.equal(rangeStart(1, 32), 1n << 59n);
    assert.equal(rangeStart(32, 32), 1n << 64n);
    assert.equal(rangeStart(1, 3), 6148914691236517205n); // ⌊2^64/3⌋
  });

  const cases: { hash: bigint; count: number; want: number }[] = [
    { hash: 0n, count: 32, want: 0 },
    { hash: (1n << 59n) - 1n, count: 32, want: 0 },
    { hash: 1n << 59n, count: 32, want: 1 },
    { hash: (1n << 64n) - 1n, count: 32, want: 31 },
    { hash: 6148914691236517204n, count: 3, want: 0 },
    { hash: 6148914691236517205n, count: 3, want: 1 },
    { hash: 12297829382473034410n, count: 3, want: 2 }, // ⌊2·2^64/3⌋
    { hash: 12297829382473034409n, count: 3, want: 1 },
    { hash: 123n, count: 1, want: 0 },
  ];
  for (const c of cases) {
    it(`hash ${c.hash} of ${c.count} ranges is in range ${c.want}`, () => {
      assert.equal(rangeOfHash(c.hash, c.count), c.want);
      assert.ok(rangeStart(c.want, c.count) <= c.hash && c.hash < rangeStart(c.want + 1, c.count));
    });
  }

  it("a uid's range is the top bits of its hash when K is a power of two", () => {
    assert.equal(rangeOf('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 32), 21); // 0xad05… >> 59
    assert.equal(rangeOf('3e5f2b8a-0c1d-4e2f-9a7b-1c2d3e4f5a6b', 32), 30); // 0xf277… >> 59
  });

  it('refuses a number of shards that is not a whole number from 1 to 1024', () => {
    assert.equal(rangeCountProblem(32), undefined);
    assert.match(rangeCountProblem(0) ?? '', /from 1 to 1024 \(got 0\)/);
    assert.match(rangeCountProblem(2.5) ?? '', /got 2.5/);
  });
});

describe('shardSelector (KEP-5866 syntax)', () => {
  const uid = 'object.metadata.uid';
  const cases: { name: string; ranges: number[]; count: number; want: string | undefined }[] = [
    { name: 'none held: nothing to ask for', ranges: [], count: 32, want: undefined },
    { name: 'every range: no selector', ranges: [0, 1], count: 2, want: undefined },
    {
      name: 'the first half',
      ranges: [0],
      count: 2,
      want: `shardRange(${uid}, '0x0000000000000000', '0x8000000000000000')`,
    },
    {
      name: 'the last range ends at 2^64, written with 17 digits',
      ranges: [1],
      count: 2,
      want: `shardRange(${uid}, '0x8000000000000000', '0x10000000000000000')`,
    },
    {
      name: 'adjacent ranges merged, runs joined by ||, in order',
      ranges: [5, 0, 1, 31],
      count: 32,
      want:
        `shardRange(${uid}, '0x0000000000000000', '0x1000000000000000') || ` +
        `shardRange(${uid}, '0x2800000000000000', '0x3000000000000000') || ` +
        `shardRange(${uid}, '0xf800000000000000', '0x10000000000000000')`,
    },
    {
      name: 'thirds: bounds lowercase, zero-padded',
      ranges: [1],
      count: 3,
      want: `shardRange(${uid}, '0x5555555555555555', '0xaaaaaaaaaaaaaaaa')`,
    },
  ];
  for (const c of cases) it(c.name, () => assert.equal(shardSelector(c.ranges, c.count), c.want));

  it('hexBound pads to 16 digits', () => {
    assert.equal(hexBound(255n), '0x00000000000000ff');
  });

  it('the selector is honoured only when echoed back as shardInfo.selector', () => {
    const asked = shardSelector([0], 2) ?? '';
    assert.equal(selectorHonoured({ resourceVersion: '5', shardInfo: { selector: asked } }, asked), true);
    assert.equal(selectorHonoured({ resourceVersion: '5' }, asked), false, 'an older server ignores the parameter');
    assert.equal(selectorHonoured({ shardInfo: { selector: 'other' } }, asked), false);
    assert.equal(selectorHonoured(undefined, asked), false);
  });
});
