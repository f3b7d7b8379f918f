import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  COMBINED_PREFIX,
  EventCorrelator,
  Lru,
  type CorrelatorOptions,
  type EventInput,
  type EventStep,
} from '../../../src/runtime/observe/event-correlator.js';

const t0 = new Date('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const source = { component: 'kopfgen', host: 'pod-1' };
const ref = (name: string) => ({
  apiVersion: 'example.com/v1',
  kind: 'MyResource',
  name,
  namespace: 'ns',
  uid: `uid-${name}`,
});
const warning = (message: string, reason = 'CreateFailed', object = 'a'): EventInput => ({
  object: ref(object),
  type: 'Warning',
  reason,
  message,
});

/** `kind count` plus the message when it is not the plain `m`: enough to read a decision at a glance. */
const summary = (step: EventStep) =>
  `${step.kind} ${step.event.count}${step.event.message === 'm' ? '' : ` ${step.event.message}`}`;

interface Case {
  name: string;
  options?: CorrelatorOptions;
  /** [seconds after t0, event] in order. */
  given: [number, EventInput][];
  want: string[];
}

const repeat = (n: number, seconds: number, input: EventInput) =>
  Array.from({ length: n }, () => [seconds, input] as [number, EventInput]);
const messages = (n: number, reason = 'CreateFailed') =>
  Array.from({ length: n }, (_, i) => [i, warning(`m${i + 1}`, reason)] as [number, EventInput]);

const cases: Case[] = [
  {
    name: 'identical events: one create, then count bumps',
    given: repeat(4, 0, warning('m')),
    want: ['create 1', 'patch 2', 'patch 3', 'patch 4'],
  },
  {
    name: 'the 10th distinct message on one object and reason within 10 min is combined; later ones bump it',
    given: messages(11),
    want: [
      ...Array.from({ length: 9 }, (_, i) => `create 1 m${i + 1}`),
      `create 1 ${COMBINED_PREFIX}m10`,
      `patch 2 ${COMBINED_PREFIX}m11`,
    ],
  },
  {
    name: 'a message among those remembered is a count bump, not a combination',
    given: [...messages(9), [10, warning('m3')]],
    want: [...Array.from({ length: 9 }, (_, i) => `create 1 m${i + 1}`), 'patch 2 m3'],
  },
  {
    name: 'different reasons are not similar',
    given: Array.from({ length: 11 }, (_, i) => [0, warning(`m${i}`, `Reason${i}`)] as [number, EventInput]),
    want: Array.from({ length: 11 }, (_, i) => `create 1 m${i}`),
  },
  {
    name: 'the similarity record is forgotten after 10 min without a similar event',
    given: [...messages(9), [9 + 601, warning('m10')]],
    want: [...Array.from({ length: 9 }, (_, i) => `create 1 m${i + 1}`), 'create 1 m10'],
  },
  {
    name: 'default spam filter: 25 writes per object, then drops that still count',
    given: repeat(27, 0, warning('m')),
    want: ['create 1', ...Array.from({ length: 24 }, (_, i) => `patch ${i + 2}`), 'drop 26', 'drop 27'],
  },
  {
    name: 'burst exhausted: drop; one token back after the refill period carries the true count',
    options: { burst: 2, refillSeconds: 300 },
    given: [...repeat(3, 0, warning('m')), [299, warning('m')], [300, warning('m')], [301, warning('m')]],
    want: ['create 1', 'patch 2', 'drop 3', 'drop 4', 'patch 5', 'drop 6'],
  },
  {
    name: 'the bucket is per object: another object still writes',
    options: { burst: 1 },
    given: [
      [0, warning('m', 'R', 'a')],
      [0, warning('m', 'R', 'a')],
      [0, warning('m', 'R', 'b')],
    ],
    want: ['create 1', 'drop 2', 'create 1'],
  },
  {
    name: 'the caches are bounded: an evicted key starts afresh',
    options: { cacheSize: 2 },
    given: ['a', 'b', 'c', 'a'].map((object) => [0, warning('m', 'R', object)] as [number, EventInput]),
    want: ['create 1', 'create 1', 'create 1', 'create 1'],
  },
];

describe('EventCorrelator.decide', () => {
  for (const c of cases) {
    it(c.name, () => {
      const correlator = new EventCorrelator(source, c.options);
      assert.deepEqual(
        c.given.map(([seconds, input]) => summary(correlator.decide(input, at(seconds)))),
        c.want,
      );
    });
  }

  it('a count bump patches the Event created first: same name, first timestamp kept, count and last time new', () => {
    const correlator = new EventCorrelator(source);
    const first = correlator.decide(warning('m'), at(0));
    const second = correlator.decide(warning('m'), at(90));
    assert.equal(first.kind, 'create');
    assert.equal(second.kind, 'patch');
    if (second.kind !== 'patch') return;
    assert.equal(second.event.metadata.name, first.event.metadata.name);
    assert.equal(second.event.firstTimestamp, '2026-01-01T00:00:00Z');
    assert.deepEqual(second.patch, { count: 2, lastTimestamp: '2026-01-01T00:01:30Z', message: 'm' });
  });

  it('builds a core/v1 Event: client-go name, namespace of the object, source, cut reason and message', () => {
    const correlator = new EventCorrelator(source);
    const step = correlator.decide({ ...warning('x'.repeat(2000), 'R'.repeat(200)) }, at(0));
    assert.match(step.event.metadata.name, /^a\.[0-9a-f]+$/);
    assert.equal(step.event.metadata.namespace, 'ns');
    assert.deepEqual(step.event.source, source);
    assert.deepEqual([step.event.reportingComponent, step.event.reportingInstance], ['kopfgen', 'pod-1']);
    assert.deepEqual([step.event.reason.length, step.event.message.length], [128, 1024]);
    assert.deepEqual(step.event.involvedObject, ref('a'));
  });

  it('names: unique within a millisecond, at most 253 characters; cluster-scoped objects use default', () => {
    const correlator = new EventCorrelator(source, { burst: 100 });
    const long = { apiVersion: 'v1', kind: 'Node', name: 'n'.repeat(253), uid: 'u' };
    const steps = Array.from({ length: 50 }, (_, i) =>
      correlator.decide({ object: long, type: 'Normal', reason: `R${i}`, message: 'm' }, at(0)),
    );
    assert.deepEqual(new Set(steps.map((s) => s.kind)), new Set(['create']));
    assert.equal(new Set(steps.map((s) => s.event.metadata.name)).size, 50);
    for (const s of steps) assert.ok(s.event.metadata.name.length <= 253, s.event.metadata.name);
    assert.equal(steps[0].event.metadata.namespace, 'default');
  });
});

describe('Lru', () => {
  it('evicts the least recently used entry; a read counts as a use', () => {
    const lru = new Lru<number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    assert.equal(lru.get('a'), 1);
    lru.set('c', 3);
    assert.deepEqual([lru.get('a'), lru.get('b'), lru.get('c'), lru.size], [1, undefined, 3, 2]);
  });
});
