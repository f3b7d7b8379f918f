import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { childLogger } from '../../../src/runtime/effects/log.js';
import { createJsonLogger } from '../../../src/runtime/observe/json-logger.js';

function capture() {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => void lines.push(line) } };
}

describe('JSON logger', () => {
  it('writes one JSON object per line with time, level, msg and the fields given', () => {
    const { lines, destination } = capture();
    const logger = createJsonLogger({ destination });
    const resource = 'myresources.example.com/v1';
    const fields = { resource, namespace: 'ns', name: 'a', handler: 'myapp', cause: 'create' };
    logger.info('handler succeeded', { ...fields, outcome: 'success' });
    logger.warn('handler failed temporarily', { ...fields, outcome: 'temporary', delay: 10, skipped: undefined });
    assert.equal(lines.length, 2);
    assert.ok(lines.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n')));
    const [first, second] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(Object.keys(first).slice(0, 2), ['level', 'time']);
    assert.match(String(first.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(
      { ...first, time: undefined },
      {
        level: 'info',
        time: undefined,
        msg: 'handler succeeded',
        ...fields,
        outcome: 'success',
      },
    );
    assert.deepEqual(
      { ...second, time: undefined },
      {
        level: 'warn',
        time: undefined,
        msg: 'handler failed temporarily',
        ...fields,
        outcome: 'temporary',
        delay: 10,
      },
    );
  });

  it('below the level nothing is written; errors as their message; reserved keys renamed', () => {
    const { lines, destination } = capture();
    const logger = createJsonLogger({ level: 'warn', destination });
    logger.debug('hidden');
    logger.info('hidden');
    logger.error('write failed', { error: new Error('409 Conflict'), level: 'x', msg: 'y' });
    assert.equal(lines.length, 1);
    const line = JSON.parse(lines[0]) as Record<string, unknown>;
    const got = [line.level, line.msg, line.error, line.level_, line.msg_];
    assert.deepEqual(got, ['error', 'write failed', '409 Conflict', 'x', 'y']);
  });

  it("works under the runtime's childLogger", () => {
    const { lines, destination } = capture();
    childLogger(createJsonLogger({ destination, level: 'debug' }), 'ns/a').debug('resumed', { handler: 'h' });
    assert.deepEqual(JSON.parse(lines[0]).msg, 'ns/a: resumed');
  });
});
