/** Filter matching (kopf's labels/annotations/field+value/when): given an object and filters, want a match or not. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ABSENT, PRESENT, type Filters } from '../../../src/runtime/api/filters.js';
import { matchesFilters } from '../../../src/runtime/reconcile/filter-match.js';

const body = {
  apiVersion: 'example.com/v1',
  kind: 'MyResource',
  metadata: {
    name: 'a',
    namespace: 'ns',
    uid: 'u1',
    labels: { tier: 'web', team: 'blue' },
    annotations: { 'example.com/owner': 'ops' },
  },
  spec: { replicas: 3, image: { name: 'nginx' } },
};

const cases: { name: string; filters: Filters; want: boolean }[] = [
  { name: 'no filters', filters: {}, want: true },
  { name: 'label equal', filters: { labels: { tier: 'web' } }, want: true },
  { name: 'label different', filters: { labels: { tier: 'db' } }, want: false },
  { name: 'every label must match', filters: { labels: { tier: 'web', team: 'red' } }, want: false },
  { name: 'label present', filters: { labels: { team: PRESENT } }, want: true },
  { name: 'label present, missing', filters: { labels: { zone: PRESENT } }, want: false },
  { name: 'label absent', filters: { labels: { zone: ABSENT } }, want: true },
  { name: 'label absent, there', filters: { labels: { tier: ABSENT } }, want: false },
  { name: 'label predicate', filters: { labels: { tier: (v) => v?.startsWith('w') === true } }, want: true },
  {
    name: 'label predicate sees undefined when absent',
    filters: { labels: { zone: (v) => v === undefined } },
    want: true,
  },
  { name: 'annotation equal', filters: { annotations: { 'example.com/owner': 'ops' } }, want: true },
  { name: 'annotation different', filters: { annotations: { 'example.com/owner': 'dev' } }, want: false },
  { name: 'field present (no value)', filters: { field: 'spec.replicas' }, want: true },
  { name: 'field missing (no value)', filters: { field: 'spec.paused' }, want: false },
  { name: 'field equals', filters: { field: 'spec.replicas', value: 3 }, want: true },
  { name: 'field differs', filters: { field: 'spec.replicas', value: 2 }, want: false },
  { name: 'field equals deeply', filters: { field: 'spec.image', value: { name: 'nginx' } }, want: true },
  { name: 'field absent', filters: { field: 'spec.paused', value: ABSENT }, want: true },
  { name: 'field predicate', filters: { field: 'spec.replicas', value: (v: unknown) => Number(v) > 2 }, want: true },
  {
    name: "label predicate sees the object too (kopf's callback filters get its kwargs)",
    filters: { labels: { tier: (v, ctx) => v === 'web' && ctx.name === 'a' && ctx.namespace === 'ns' } },
    want: true,
  },
  {
    name: 'annotation predicate: false from the object',
    filters: { annotations: { 'example.com/owner': (v, ctx) => v === 'ops' && ctx.name === 'other' } },
    want: false,
  },
  { name: 'when true', filters: { when: (ctx) => ctx.name === 'a' && ctx.namespace === 'ns' }, want: true },
  { name: 'when false', filters: { when: () => false }, want: false },
  {
    name: 'all kinds at once',
    filters: { labels: { tier: 'web' }, field: 'spec.replicas', value: 3, when: () => true },
    want: true,
  },
];

describe('matchesFilters', () => {
  for (const { name, filters, want } of cases) it(name, () => assert.equal(matchesFilters(filters, body), want));
  it('a predicate that throws: the exception reaches the caller (the error policy)', () => {
    const when = () => {
      throw new Error('boom');
    };
    assert.throws(() => matchesFilters({ when }, body), /boom/);
  });
});
