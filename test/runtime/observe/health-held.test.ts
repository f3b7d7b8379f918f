/**
 * What the health worker answers for a probe the event loop has not answered in time (health-held.ts),
 * given/want: the loop's last answer while its heartbeat is within the tolerance, a failure naming how
 * long the loop has been silent past it, or that it never answered.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { heldAnswer, text, type Answer } from '../../../src/runtime/observe/health-held.js';

const ok = text(200, 'ok\n');
const notReady = text(500, '[-]watch a: the initial list has not finished\nreadyz check failed\n');

describe('heldAnswer', () => {
  const cases: {
    name: string;
    probe: 'healthz' | 'readyz';
    last?: Answer;
    silentMs: number;
    want: Answer;
  }[] = [
    { name: 'a heartbeat 2 s old: its answer', probe: 'healthz', last: ok, silentMs: 2_000, want: ok },
    { name: 'a failing answer is held as it is', probe: 'readyz', last: notReady, silentMs: 15_000, want: notReady },
    { name: 'exactly at the tolerance: still held', probe: 'healthz', last: ok, silentMs: 30_000, want: ok },
    {
      name: 'past the tolerance: fails, naming how long',
      probe: 'healthz',
      last: ok,
      silentMs: 31_500,
      want: text(500, "[-]the operator's event loop has not answered for 31 s (limit 30 s)\nhealthz check failed\n"),
    },
    {
      name: 'readiness too',
      probe: 'readyz',
      last: ok,
      silentMs: 45_000,
      want: text(500, "[-]the operator's event loop has not answered for 45 s (limit 30 s)\nreadyz check failed\n"),
    },
    {
      name: 'no heartbeat yet',
      probe: 'healthz',
      silentMs: 1_000,
      want: text(500, "[-]the operator's event loop has not answered yet\nhealthz check failed\n"),
    },
  ];
  for (const { name, probe, last, silentMs, want } of cases)
    it(name, () => assert.deepEqual(heldAnswer(probe, last, silentMs, 30_000), want));
});
