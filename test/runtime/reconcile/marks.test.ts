/** The operator's marks: derived from one prefix, each settable, refused when Kubernetes would refuse them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MARKS, resolveMarks } from '../../../src/runtime/reconcile/marks.js';

describe('resolveMarks', () => {
  const cases: { given: Parameters<typeof resolveMarks>[0]; want: ReturnType<typeof resolveMarks> }[] = [
    {
      given: undefined,
      want: {
        prefix: 'kopfgen.dev',
        finalizer: 'kopfgen.dev/finalizer',
        lastHandled: 'kopfgen.dev/last-handled-configuration',
      },
    },
    {
      given: { prefix: 'billing.example.com' },
      want: {
        prefix: 'billing.example.com',
        finalizer: 'billing.example.com/finalizer',
        lastHandled: 'billing.example.com/last-handled-configuration',
      },
    },
    {
      given: { prefix: 'a.example', finalizer: 'a.example/cleanup' },
      want: {
        prefix: 'a.example',
        finalizer: 'a.example/cleanup',
        lastHandled: 'a.example/last-handled-configuration',
      },
    },
    {
      given: { prefix: 'Bad_Prefix' },
      want: 'marks prefix "Bad_Prefix" is not a DNS subdomain (e.g. billing.example.com)',
    },
    { given: { prefix: '' }, want: 'marks prefix "" is not a DNS subdomain (e.g. billing.example.com)' },
  ];
  for (const { given, want } of cases) {
    it(JSON.stringify(given) ?? 'defaults', () => assert.deepEqual(resolveMarks(given), want));
  }
  it("the defaults are today's kopfgen.dev marks", () => assert.deepEqual(resolveMarks(), DEFAULT_MARKS));
});
