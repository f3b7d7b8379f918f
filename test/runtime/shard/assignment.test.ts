/**
 * The assignment of ranges to members: given/want rows, then a simulation of K = 32 ranges with 1 to 20
 * members joining and leaving at random (a seeded generator, so a failure repeats): after every change
 * each range has a live member, no member has more than ⌈K/N⌉ (nor fewer than ⌊K/N⌋), and a join or
 * leave moves at most ⌈K/N⌉ + 1 ranges; the same inputs in another order give the same answer.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assignRanges } from '../../../src/runtime/shard/assignment.js';

const counts = (owners: (string | undefined)[]) => {
  const map = new Map<string, number>();
  for (const owner of owners) if (owner !== undefined) map.set(owner, (map.get(owner) ?? 0) + 1);
  return map;
};

describe('assignRanges', () => {
  it('no member: no range is assigned', () => {
    assert.deepEqual(assignRanges({ count: 3, members: [], holders: ['a', 'b', undefined] }), [
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('one member holds every range (the behaviour without sharding)', () => {
    const owners = assignRanges({ count: 32, members: ['a'], holders: [] });
    assert.deepEqual(new Set(owners), new Set(['a']));
  });

  it('a balanced assignment is kept as it is', () => {
    const holders = ['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b'];
    assert.deepEqual(assignRanges({ count: 8, members: ['c', 'b', 'a'], holders }), holders);
  });

  it('holders that are not live members are ignored; their ranges go to members with room', () => {
    const owners = assignRanges({ count: 4, members: ['a', 'b'], holders: ['a', 'gone', 'gone', 'b'] });
    assert.equal(owners[0], 'a');
    assert.equal(owners[3], 'b');
    assert.deepEqual([...counts(owners).values()], [2, 2]);
  });

  it('a member over its quota keeps ⌈K/N⌉ and sheds the rest to the newcomer', () => {
    const owners = assignRanges({ count: 4, members: ['a', 'b'], holders: ['a', 'a', 'a', 'a'] });
    assert.deepEqual(
      counts(owners),
      new Map([
        ['a', 2],
        ['b', 2],
      ]),
    );
  });

  it('simulation: K = 32, 1 to 20 members joining and leaving at random', () => {
    const K = 32;
    let seed = 0x2545f491;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    let next = 0;
    let members = ['m0'];
    let owners = assignRanges({ count: K, members, holders: [] });
    let worst = 0;
    for (let step = 0; step < 600; step++) {
      const join = members.length === 1 || (members.length < 20 && random() < 0.5);
      if (join) members = [...members, `m${++next}`];
      else {
        const leaver = Math.floor(random() * members.length);
        members = members.filter((_, i) => i !== leaver);
      }
      const before = owners;
      owners = assignRanges({ count: K, members, holders: before });
      const N = members.length;
      const load = counts(owners);
      assert.ok(
        owners.every((o) => o !== undefined && members.includes(o)),
        `step ${step}: every range has a live member`,
      );
      for (const member of members) {
        const n = load.get(member) ?? 0;
        assert.ok(
          n <= Math.ceil(K / N) && n >= Math.floor(K / N),
          `step ${step}: ${member} holds ${n} of ${K} with ${N} members`,
        );
      }
      const moved = owners.filter((o, i) => o !== before[i]).length;
      worst = Math.max(worst, moved - Math.ceil(K / N));
      assert.ok(
        moved <= Math.ceil(K / N) + 1,
        `step ${step} (${join ? 'join' : 'leave'}, N=${N}): ${moved} ranges moved`,
      );
      const shuffled = [...members].reverse();
      assert.deepEqual(assignRanges({ count: K, members: shuffled, holders: before }), owners, 'order does not matter');
    }
    process.stdout.write(
      `# 600 joins and leaves: at most ⌈K/N⌉ ${worst >= 0 ? '+' : '−'} ${Math.abs(worst)} ranges moved per change\n`,
    );
  });
});
