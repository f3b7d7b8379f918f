/** The watcher's state machine: given a state and an input, the next state, the store's steps, the note. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeError, type KubeClient } from '../../src/runtime/kube/client.js';
import { createLogger } from '../../src/runtime/effects/log.js';
import { myResourceDescriptor } from '../helpers/resource-env.js';
import {
  watchResource,
  watchTimeoutSeconds,
  initialState,
  transition,
  type Transition,
  type WatchedKind,
  type WatcherInput,
  type WatcherState,
} from '../../src/runtime/watcher.js';

const watched: WatchedKind = {
  apiVersion: 'example.com/v1',
  kind: 'MyResource',
  path: '/apis/example.com/v1/myresources',
};
const obj = (uid: string, rv: string) => ({ metadata: { name: uid, uid, resourceVersion: rv } });
type Watching = Extract<WatcherState, { phase: 'watching' }>;
const watching = (rv: string, failures = 0): Watching => ({ phase: 'watching', resourceVersion: rv, failures });
const event = (type: string, object: unknown): WatcherInput => ({ kind: 'event', event: { type, object } });

/** The steps in a short form: `apply:<uid>@<rv>`, `delete:<uid>`, `listed:<uids>`. */
function steps(t: Transition): string[] {
  return t.steps.map((s) => {
    if (s.kind === 'listed') return `listed:${[...s.uids].sort().join(',')}`;
    const meta = s.object.metadata ?? {};
    return s.kind === 'apply' ? `apply:${meta.uid}@${meta.resourceVersion}` : `delete:${meta.uid}`;
  });
}

describe('watcher: listing', () => {
  it('delivers each page, stamps apiVersion/kind, reports the uids, then watches from the list resourceVersion', () => {
    const page = { items: [obj('a', '1')], continueToken: 'c1', resourceVersion: '9' };
    const first = transition(initialState(), { kind: 'page', page }, watched);
    assert.deepEqual(steps(first), ['apply:a@1']);
    assert.deepEqual(first.state.phase === 'listing' && first.state.continueToken, 'c1');
    const applied = first.steps[0];
    assert.ok(applied.kind === 'apply');
    assert.deepEqual([applied.object.apiVersion, applied.object.kind], ['example.com/v1', 'MyResource']);
    const lastPage = { items: [obj('b', '2')], resourceVersion: '10' };
    const last = transition(first.state, { kind: 'page', page: lastPage }, watched);
    assert.deepEqual(steps(last), ['apply:b@2', 'listed:a,b']);
    assert.deepEqual(first.state.phase === 'listing' && [...first.state.uids], ['a'], 'the earlier state is unchanged');
    assert.deepEqual(last.state, watching('10'));
  });
  it('a failed list backs off (growing, capped at 30 s) and lists again from the first page', () => {
    const cases: { given: number; want: number }[] = [
      { given: 0, want: 500 },
      { given: 1, want: 1000 },
      { given: 6, want: 30_000 },
      { given: 20, want: 30_000 },
    ];
    for (const { given, want } of cases) {
      const state: WatcherState = { phase: 'listing', continueToken: 'c', uids: new Set(['x']), failures: given };
      const t = transition(state, { kind: 'failed', error: new Error('refused') }, watched);
      assert.equal(t.state.phase === 'backoff' && t.state.delayMs, want, `after ${given} failures`);
      assert.equal(t.note?.level, 'warn');
      const next = transition(t.state, { kind: 'waited' }, watched).state;
      assert.deepEqual(next, { phase: 'listing', uids: new Set(), failures: given + 1 });
    }
  });

  it('an expired continue token (410) lists again at once in one unpaginated request, as client-go; then pages again', () => {
    const state: WatcherState = { phase: 'listing', continueToken: 'c', uids: new Set(['x']), failures: 0 };
    const t = transition(state, { kind: 'failed', error: new KubeError('expired', 410, undefined) }, watched);
    assert.deepEqual(t.state, { phase: 'listing', uids: new Set(), failures: 0, unpaginated: true });
    assert.match(t.note?.message ?? '', /continue token expired \(410\), listing again in one request/);
    const listed = transition(
      t.state,
      { kind: 'page', page: { items: [obj('a', '1')], resourceVersion: '9' } },
      watched,
    );
    assert.deepEqual(steps(listed), ['apply:a@1', 'listed:a']);
    assert.deepEqual(listed.state, watching('9'));
    const first: WatcherState = { phase: 'listing', uids: new Set(), failures: 0 };
    const gone = transition(first, { kind: 'failed', error: new KubeError('expired', 410, undefined) }, watched);
    assert.equal(gone.state.phase, 'backoff', 'a 410 without a continue token is an ordinary failure');
  });
});

describe('watcher: watching', () => {
  it('given an event, wants the step and the resourceVersion to resume from', () => {
    const cases: { given: WatcherInput; want: string[]; rv: string }[] = [
      { given: event('ADDED', obj('a', '11')), want: ['apply:a@11'], rv: '11' },
      { given: event('MODIFIED', obj('a', '12')), want: ['apply:a@12'], rv: '12' },
      { given: event('DELETED', obj('a', '13')), want: ['delete:a'], rv: '13' },
      { given: event('BOOKMARK', { metadata: { resourceVersion: '14' } }), want: [], rv: '14' },
      { given: event('ADDED', { metadata: { uid: 'b' } }), want: ['apply:b@undefined'], rv: '10' },
    ];
    for (const { given, want, rv } of cases) {
      const t = transition(watching('10'), given, watched);
      assert.deepEqual(steps(t), want, JSON.stringify(given));
      assert.deepEqual(t.state, watching(rv));
    }
  });
  it('410 Gone, as an ERROR event or an HTTP status, relists at once', () => {
    const inputs: WatcherInput[] = [
      event('ERROR', { code: 410, message: 'too old' }),
      { kind: 'failed', error: new KubeError('gone', 410, undefined) },
    ];
    for (const input of inputs) {
      const t = transition(watching('10', 2), input, watched);
      assert.deepEqual(t.state, { phase: 'listing', uids: new Set(), failures: 2 });
      assert.match(t.note?.message ?? '', /410 Gone, relisting/);
    }
  });
  it('another failure backs off (growing, capped at 10 s) and resumes from the same resourceVersion', () => {
    const cases: { given: number; want: number }[] = [
      { given: 0, want: 200 },
      { given: 2, want: 800 },
      { given: 9, want: 10_000 },
    ];
    for (const { given, want } of cases) {
      for (const input of [{ kind: 'failed', error: new Error('reset') } as const, event('ERROR', { code: 500 })]) {
        const t = transition(watching('10', given), input, watched);
        assert.equal(t.state.phase === 'backoff' && t.state.delayMs, want);
        assert.match(t.note?.message ?? '', /dropped, resuming from resourceVersion 10/);
        assert.deepEqual(transition(t.state, { kind: 'waited' }, watched).state, watching('10', given + 1));
      }
    }
  });
  it('a clean end (server timeout) watches again from where it was, failures forgotten', () => {
    assert.deepEqual(transition(watching('10', 3), { kind: 'ended' }, watched), { state: watching('10'), steps: [] });
  });
  it('an input the state does not expect leaves it unchanged', () => {
    assert.deepEqual(transition(watching('10'), { kind: 'waited' }, watched).state, watching('10'));
    const backoff: WatcherState = { phase: 'backoff', delayMs: 5, then: watching('10') };
    assert.deepEqual(transition(backoff, event('ADDED', obj('a', '1')), watched), { state: backoff, steps: [] });
  });
});

describe('watcher: timeouts', () => {
  it('the server-side timeout falls in 50-75 % of the idle limit, so a healthy quiet watch ends before it', () => {
    const cases: [number, number, number][] = [
      [60, 0, 30],
      [60, 0.999, 44],
      [60, 0.5, 37],
      [1, 0, 1],
    ];
    for (const [idle, random, want] of cases)
      assert.equal(
        watchTimeoutSeconds(idle, () => random),
        want,
      );
  });
});

describe('watchResource: the shard selector', () => {
  it('is sent with the list and the watch; each list page metadata is reported', async () => {
    const asked: Record<string, unknown>[] = [];
    const metas: Record<string, unknown>[] = [];
    const stop = new AbortController();
    const client = {
      request: async (_method: string, _path: string, options: { query?: Record<string, unknown> }) => {
        asked.push({ list: options.query?.shardSelector });
        return { metadata: { resourceVersion: '5', shardInfo: { selector: 'S' } }, items: [] };
      },
      stream: async (_path: string, query: Record<string, unknown>) => {
        asked.push({ watch: query.shardSelector });
        stop.abort();
      },
    };
    const consumer = { upsert: () => undefined, delete: () => undefined, listed: () => undefined };
    await watchResource(client as unknown as KubeClient, myResourceDescriptor(), consumer, {
      signal: stop.signal,
      logger: createLogger({ write: () => undefined }),
      shardSelector: () => 'S',
      listMetadata: (meta) => void metas.push(meta),
    });
    assert.deepEqual(asked, [{ list: 'S' }, { watch: 'S' }]);
    assert.deepEqual(metas, [{ resourceVersion: '5', shardInfo: { selector: 'S' } }]);
  });
});
