/** The per-object limit on self-caused updates: when an update runs, waits, or is reported as a loop. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SelfUpdates } from '../../../src/runtime/reconcile/self-updates.js';

const limits = { burst: 3, refillMs: 1_000 };

describe('SelfUpdates', () => {
  it('a burst of self-caused updates runs, then one per refill period; the first wait reports the loop', () => {
    const self = new SelfUpdates(limits);
    const answers: string[] = [];
    for (let i = 0; i < 5; i++) {
      self.wrote('u', `e${i}`, 0);
      const answer = self.take('u', `e${i}`, 0);
      answers.push(answer.kind === 'run' ? 'run' : `wait ${answer.ms}${answer.loopDetected ? ' loop' : ''}`);
    }
    assert.deepEqual(answers, ['run', 'run', 'run', 'wait 1000 loop', 'wait 1000']);
    assert.deepEqual(self.take('u', 'e4', 400), { kind: 'wait', ms: 600, loopDetected: false });
    assert.deepEqual(self.take('u', 'e4', 1_000), { kind: 'run' });
  });
  it('an update someone else caused always runs, and spends nothing', () => {
    const self = new SelfUpdates(limits);
    self.wrote('u', 'ours', 0);
    for (let i = 0; i < 10; i++) assert.deepEqual(self.take('u', `theirs-${i}`, 0), { kind: 'run' });
    assert.deepEqual(self.take('u', 'unknown object', 0), { kind: 'run' });
    assert.deepEqual(self.take('v', 'ours', 0), { kind: 'run' });
  });
  it('an object at rest ends the episode: the next dry bucket is reported again', () => {
    const self = new SelfUpdates({ burst: 1, refillMs: 1_000 });
    self.wrote('u', 'e', 0);
    self.take('u', 'e', 0);
    assert.deepEqual(self.take('u', 'e', 0), { kind: 'wait', ms: 1_000, loopDetected: true });
    self.rested('u');
    assert.deepEqual(self.take('u', 'e', 0), { kind: 'wait', ms: 1_000, loopDetected: true });
    self.forget('u');
    assert.deepEqual(self.take('u', 'e', 0), { kind: 'run' });
  });
});
