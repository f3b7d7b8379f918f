/**
 * One AdmissionReview in, its answer out (admission-review.ts), given/want: operations and filters
 * that exclude the object allow it untouched; an AdmissionError denies with its code and message; a
 * failing or timed-out callback is answered by the failure policy; a mutation answers with the JSON
 * patch of its edit, returned or in place; warnings travel with any answer.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdmissionError } from '../../../src/runtime/api/admission.js';
import type { RegisteredWebhook } from '../../../src/runtime/api/registry.js';
import { createLogger } from '../../../src/runtime/effects/log.js';
import {
  admissionRequest,
  BadReview,
  callBudgetMs,
  checkKind,
  reviewAdmission,
  type AdmissionRequest,
} from '../../../src/runtime/webhooks/admission-review.js';
import { shapeErrors } from '../../../src/runtime/admission/schema-admission.js';
import { resource } from '../../helpers/manifest-fixtures.js';

const object = (spec: Record<string, unknown>, labels?: Record<string, string>) => ({
  apiVersion: 'example.com/v1',
  kind: 'MyResource',
  metadata: { name: 'web', namespace: 'demo', ...(labels ? { labels } : {}) },
  spec,
});

const request = (over: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
  uid: 'u1',
  operation: 'CREATE',
  object: object({ image: 'nginx' }),
  userInfo: { username: 'alice' },
  ...over,
});

function webhook(kind: 'validate' | 'mutate', fn: RegisteredWebhook['fn'], options: RegisteredWebhook['options'] = {}) {
  return { resource: resource(), id: 'check', kind, fn, options } satisfies RegisteredWebhook;
}

function run(w: RegisteredWebhook, r = request()) {
  const lines: string[] = [];
  return reviewAdmission(w, r, createLogger({ write: (l) => lines.push(l), level: 'debug' })).then((response) => ({
    response,
    lines,
  }));
}

const decode = (patch: string | undefined) => JSON.parse(Buffer.from(patch ?? '', 'base64').toString());

describe('reviewAdmission', () => {
  const cases: {
    name: string;
    webhook: RegisteredWebhook;
    request?: AdmissionRequest;
    want: Record<string, unknown>;
    logged?: RegExp;
  }[] = [
    {
      name: 'nothing returned: allowed',
      webhook: webhook('validate', () => undefined),
      want: { uid: 'u1', allowed: true },
    },
    {
      name: 'warnings returned: allowed with them',
      webhook: webhook('validate', () => ['careful']),
      want: { uid: 'u1', allowed: true, warnings: ['careful'] },
    },
    {
      name: 'an AdmissionError thrown: denied with its code and message, one log line',
      webhook: webhook('validate', () => {
        throw new AdmissionError('no image from there', { code: 422 });
      }),
      want: { uid: 'u1', allowed: false, status: { code: 422, message: 'no image from there' } },
      logged: /WARN {2}admission denied: validate check on CREATE myresources demo\/web by alice: no image from there/,
    },
    {
      name: 'an AdmissionError returned: denied (403 by default), warnings kept',
      webhook: webhook('validate', (ctx) => {
        ctx.warnings.push('looked');
        return new AdmissionError('no');
      }),
      want: { uid: 'u1', allowed: false, status: { code: 403, message: 'no' }, warnings: ['looked'] },
    },
    {
      name: 'an ordinary error, failurePolicy Fail (default): denied with 500',
      webhook: webhook('validate', () => {
        throw new Error('database down');
      }),
      want: {
        uid: 'u1',
        allowed: false,
        status: { code: 500, message: 'validate handler check failed: database down' },
      },
    },
    {
      name: 'an ordinary error, failurePolicy Ignore: allowed, logged once as an error',
      webhook: webhook(
        'validate',
        () => {
          throw new Error('database down');
        },
        { failurePolicy: 'Ignore' },
      ),
      want: { uid: 'u1', allowed: true },
      logged:
        /ERROR admission validate check on CREATE myresources demo\/web by alice failed, allowed \(failurePolicy Ignore\): database down/,
    },
    {
      name: 'past timeoutSeconds: the failure policy answers before the API server gives up',
      webhook: webhook(
        'validate',
        (ctx) => new Promise((r) => ctx.signal.addEventListener('abort', () => r(undefined))),
        {
          timeoutSeconds: 1,
          failurePolicy: 'Fail',
        },
      ),
      want: {
        uid: 'u1',
        allowed: false,
        status: { code: 500, message: 'validate handler check failed: timed out after 0.9 s' },
      },
    },
    {
      name: 'an operation not registered: allowed without a call',
      webhook: webhook('validate', () => new AdmissionError('called'), { operations: ['UPDATE'] }),
      want: { uid: 'u1', allowed: true },
    },
    {
      name: 'filters that do not match: allowed without a call',
      webhook: webhook('validate', () => new AdmissionError('called'), { labels: { tier: 'web' } }),
      want: { uid: 'u1', allowed: true },
    },
    {
      name: 'old on UPDATE, absent on CREATE',
      webhook: webhook('validate', (ctx) => [
        `${ctx.operation} ${JSON.stringify((ctx.old as { spec?: unknown } | undefined)?.spec ?? null)}`,
      ]),
      request: request({ operation: 'UPDATE', oldObject: object({ image: 'old' }) }),
      want: { uid: 'u1', allowed: true, warnings: ['UPDATE {"image":"old"}'] },
    },
    {
      name: 'DELETE: the deleted object is the body; a mutation patches nothing',
      webhook: webhook(
        'mutate',
        (ctx) => {
          ctx.warnings.push(String(ctx.name));
        },
        { operations: ['DELETE'] },
      ),
      request: request({ operation: 'DELETE', object: null, oldObject: object({ image: 'gone' }) }),
      want: { uid: 'u1', allowed: true, warnings: ['web'] },
    },
    {
      name: 'a mutation that changes nothing: no patch',
      webhook: webhook('mutate', () => undefined),
      want: { uid: 'u1', allowed: true },
    },
  ];
  for (const c of cases)
    it(c.name, async () => {
      const { response, lines } = await run(c.webhook, c.request);
      assert.deepEqual(response, c.want);
      if (c.logged) {
        assert.equal(lines.filter((l) => c.logged?.test(l)).length, 1, lines.join('\n'));
        assert.equal(lines.length, 1, 'logged once');
      }
    });

  it('a mutation edited in place and one returned: the RFC 6902 patch of the difference', async () => {
    const inPlace = await run(
      webhook('mutate', (ctx) => {
        const o = ctx.object as { spec: Record<string, unknown>; metadata: { labels?: Record<string, string> } };
        o.spec.replicas = 2;
        o.metadata.labels = { 'a/b': 'c' };
      }),
    );
    assert.equal(inPlace.response.patchType, 'JSONPatch');
    assert.deepEqual(decode(inPlace.response.patch), [
      { op: 'add', path: '/metadata/labels', value: { 'a/b': 'c' } },
      { op: 'add', path: '/spec/replicas', value: 2 },
    ]);
    const returned = await run(webhook('mutate', (ctx) => ({ ...(ctx.object as object), spec: { image: 'nginx:2' } })));
    assert.deepEqual(decode(returned.response.patch), [{ op: 'replace', path: '/spec/image', value: 'nginx:2' }]);
    const refused = await run(webhook('mutate', () => 'not an object'));
    assert.equal(refused.response.allowed, false);
  });

  it('the time bound leaves the API server a margin', () => {
    assert.deepEqual([callBudgetMs(undefined), callBudgetMs(1), callBudgetMs(30)], [9000, 900, 29000]);
  });

  it('a body that is not an admission.k8s.io/v1 review is a BadReview', () => {
    const bad = [
      {},
      { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1beta1', request: request() },
      { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request: { uid: 'x' } },
      { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request: { uid: 'x', operation: 'CREATE' } },
    ];
    for (const review of bad) assert.throws(() => admissionRequest(review), BadReview);
    const good = { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request: request() };
    assert.equal(admissionRequest(good).uid, 'u1');
  });
});

describe('before the callback', () => {
  it('a mutation of an object without what its schema requires is denied as the API server words it, the callback not called', async () => {
    let called = false;
    const w = webhook('mutate', () => {
      called = true;
    });
    const lines: string[] = [];
    const schema = { type: 'object' as const, required: ['spec'], properties: { spec: { type: 'object' as const } } };
    const response = await reviewAdmission(
      w,
      request({ object: { apiVersion: 'example.com/v1', kind: 'MyResource', metadata: { name: 'web' } } }),
      createLogger({ write: (l) => lines.push(l) }),
      (o) => shapeErrors(o, schema),
    );
    assert.equal(called, false);
    assert.deepEqual(response, {
      uid: 'u1',
      allowed: false,
      status: { code: 422, message: 'MyResource.example.com "web" is invalid: spec: Required value' },
    });
  });

  it('a review of another kind than the registration is a BadReview (the server answers 400)', () => {
    const w = webhook('validate', () => undefined);
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    assert.throws(() => checkKind(w, request({ object: configMap })), BadReview);
    assert.throws(() => checkKind(w, request({ object: { ...object({}), apiVersion: 'other.io/v1' } })), BadReview);
    assert.doesNotThrow(() => checkKind(w, request()));
    // A subresource's object has its own kind (Scale): not checked.
    const scale = webhook('validate', () => undefined, { subresource: 'scale' });
    assert.doesNotThrow(() => checkKind(scale, request({ object: { apiVersion: 'autoscaling/v1', kind: 'Scale' } })));
  });

  const mutations: { what: string; value: unknown; want: string }[] = [
    { what: 'NaN', value: Number.NaN, want: 'NaN at spec.n' },
    { what: 'Infinity', value: Number.POSITIVE_INFINITY, want: 'Infinity at spec.n' },
    { what: 'a BigInt', value: 10n, want: 'a BigInt at spec.n' },
    { what: 'a function', value: () => 'grey', want: 'a function at spec.n' },
    { what: 'a symbol', value: Symbol('grey'), want: 'a symbol at spec.n' },
    { what: 'a function in a list', value: ['a', () => 'b'], want: 'a function at spec.n.1' },
    { what: 'a symbol in a list', value: [Symbol('a')], want: 'a symbol at spec.n.0' },
    { what: 'undefined in a list', value: ['a', undefined], want: 'undefined at spec.n.1' },
    { what: 'a function deep in a list', value: [{ f: () => 1 }], want: 'a function at spec.n.0.f' },
  ];
  for (const { what, value, want } of mutations)
    it(`a mutation that sets ${what} fails by the failure policy, naming the path`, async () => {
      const { response } = await run(
        webhook('mutate', (ctx) => {
          Reflect.set(Object(Reflect.get(Object(ctx.object), 'spec')), 'n', value);
        }),
      );
      assert.equal(response.allowed, false);
      assert.equal(response.patch, undefined);
      assert.equal(
        response.status?.message,
        `mutate handler check failed: the mutated object holds ${want}, which JSON cannot carry`,
      );
    });

  it('a mutation that makes a cycle fails naming where', async () => {
    const { response } = await run(
      webhook('mutate', (ctx) => {
        const spec: object = Object(Reflect.get(Object(ctx.object), 'spec'));
        Reflect.set(spec, 'self', spec);
      }),
    );
    assert.match(response.status?.message ?? '', /a cycle at spec\.self/);
  });
});

it('an AdmissionError code is an HTTP error status, 400 to 599; another throws where it is made', () => {
  for (const code of [400, 422, 599]) assert.equal(new AdmissionError('no', { code }).code, code);
  assert.equal(new AdmissionError('no').code, 403);
  for (const code of [0, 200, 399, 600, 999, 403.5, Number.NaN])
    assert.throws(() => new AdmissionError('no', { code }), /400 to 599; got/);
});
