/** Records the operator could not write: laid over the object until a write carries them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HeldRecords } from '../../../src/runtime/reconcile/held.js';

describe('HeldRecords', () => {
  const body = { metadata: { name: 'a', annotations: { team: 'x', 'kopfgen.dev/myapp': 'old' } }, spec: {} };
  it('lays held records over the annotations, leaves the object itself alone', () => {
    const held = new HeldRecords();
    assert.equal(held.overlay('u1', body), body, 'nothing held: the same object');
    held.hold('u1', 'kopfgen.dev/myapp', 'new');
    assert.deepEqual(held.overlay('u1', body).metadata?.annotations, { team: 'x', 'kopfgen.dev/myapp': 'new' });
    assert.equal(body.metadata.annotations['kopfgen.dev/myapp'], 'old');
    assert.equal(held.holding('u1'), true);
    assert.equal(held.holding('u2'), false);
  });
  it('lets a record go once a written patch carried its annotation, or when the object is forgotten', () => {
    const held = new HeldRecords();
    held.hold('u1', 'kopfgen.dev/a', '1');
    held.hold('u1', 'kopfgen.dev/b', '2');
    held.written('u1', { status: { a: {} } });
    assert.equal(held.holding('u1'), true, 'a patch without the annotation lets nothing go');
    held.written('u1', { metadata: { annotations: { 'kopfgen.dev/a': '3' } } });
    assert.deepEqual(held.overlay('u1', body).metadata?.annotations?.['kopfgen.dev/b'], '2');
    held.written('u1', { metadata: { annotations: { 'kopfgen.dev/b': null } } });
    assert.equal(held.holding('u1'), false);
    held.hold('u2', 'kopfgen.dev/a', '1');
    held.forget('u2');
    assert.equal(held.holding('u2'), false);
  });
});
