/** Whether a status schema has what kstatus reads, and the note (KG209) where a CRD with handlers lacks it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SchemaNode } from '../../src/model/ir.js';
import {
  conditionsHint,
  statusConditionFields,
  type StatusConditionFields,
} from '../../src/model/status-conditions.js';
import { array, crd, FILE, obj, scalar, version } from '../helpers/handler-fixtures.js';

const condition = (type: SchemaNode = scalar('string')) =>
  obj({ type, status: scalar('string'), reason: scalar('string'), message: scalar('string') });

describe('status-conditions', () => {
  it('statusConditionFields: a metav1.Condition list and an integer observedGeneration', () => {
    const rows: { name: string; status: SchemaNode | null; want: StatusConditionFields }[] = [
      {
        name: 'both',
        status: obj({ conditions: array(condition()), observedGeneration: scalar('integer') }),
        want: { conditions: true, observedGeneration: true },
      },
      { name: 'no status', status: null, want: { conditions: false, observedGeneration: false } },
      {
        name: 'an open status without the fields',
        status: obj({}, { open: true }),
        want: { conditions: false, observedGeneration: false },
      },
      {
        name: 'conditions of strings, observedGeneration a string',
        status: obj({ conditions: array(scalar('string')), observedGeneration: scalar('string') }),
        want: { conditions: false, observedGeneration: false },
      },
      {
        name: 'an enum of types allowing the runtime’s own',
        status: obj({
          conditions: array(condition(scalar('string', { enum: ['Ready', 'Reconciling', 'Stalled', 'Degraded'] }))),
        }),
        want: { conditions: true, observedGeneration: false },
      },
      {
        name: 'an enum without Reconciling: the server would refuse the runtime’s writes',
        status: obj({ conditions: array(condition(scalar('string', { enum: ['Ready', 'Stalled'] }))) }),
        want: { conditions: false, observedGeneration: false },
      },
    ];
    for (const { name, status, want } of rows) assert.deepEqual(statusConditionFields(version({ status })), want, name);
  });

  it('conditionsHint: once per CRD with handlers lacking either field, at its storage version', () => {
    const full = obj({ conditions: array(condition()), observedGeneration: scalar('integer') });
    assert.equal(conditionsHint(crd({ versions: [{ status: full }] }), true), undefined);
    assert.equal(conditionsHint(crd({ versions: [{ status: obj({}) }] }), false), undefined, 'no handlers: no hint');
    const hint = conditionsHint(
      crd({
        versions: [
          { name: 'v1beta1', status: obj({}), storage: false },
          { name: 'v1', status: obj({}), storage: true },
        ],
      }),
      true,
    );
    assert.ok(hint);
    assert.deepEqual(
      [hint.severity, hint.code, hint.file, hint.line, hint.pointer],
      ['note', 'KG209', FILE, 6, '/spec/versions/1'],
    );
    assert.match(
      hint.message,
      /^MyResource has handlers but its status schema \(version v1\) has no conditions and observedGeneration/,
    );
    assert.match(hint.message, /x-kubernetes-list-type: map, x-kubernetes-list-map-keys: \[type\]/);
    assert.match(
      hint.message,
      /\{name: Ready, type: string, jsonPath: '\.status\.conditions\[\?\(@\.type=="Ready"\)\]\.status'\}/,
    );
    const half = conditionsHint(crd({ versions: [{ status: obj({ conditions: array(condition()) }) }] }), true);
    assert.match(half?.message ?? '', /has no observedGeneration:/);
  });
});
