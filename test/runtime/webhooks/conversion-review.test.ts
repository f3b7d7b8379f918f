/**
 * ConversionReviews (conversion-review.ts): spoke → hub, hub → spoke, spoke → spoke through the hub;
 * metadata kept but for labels and annotations; the uid echoed; one failure fails the whole review.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RegisteredConversion } from '../../../src/runtime/api/registry.js';
import { createLogger } from '../../../src/runtime/effects/log.js';
import {
  conversionAnswerText,
  conversionRequest,
  reviewConversion,
} from '../../../src/runtime/webhooks/conversion-review.js';
import { shapeErrors } from '../../../src/runtime/admission/schema-admission.js';
import { BadReview } from '../../../src/runtime/webhooks/admission-review.js';

type Obj = { spec: Record<string, unknown>; metadata?: Record<string, unknown> };
const conversion: RegisteredConversion = {
  group: 'example.com',
  plural: 'widgets',
  kind: 'Widget',
  hub: 'v2',
  spokes: new Map([
    [
      'v1',
      {
        toHub: (from) => ({ spec: { size: (from as Obj).spec.width } }),
        fromHub: (hub) => ({
          spec: { width: (hub as Obj).spec.size },
          metadata: { labels: { from: 'v2' }, name: 'x' },
        }),
      },
    ],
    [
      'v3',
      {
        toHub: (from) => {
          if ((from as Obj).spec.bad) throw new Error('cannot');
          return { spec: { size: (from as Obj).spec.big } };
        },
        fromHub: (hub) => ({ spec: { big: (hub as Obj).spec.size } }),
      },
    ],
  ]),
};
const object = (version: string, spec: Record<string, unknown>, name = 'w') => ({
  apiVersion: `example.com/${version}`,
  kind: 'Widget',
  metadata: { name, uid: `uid-${name}`, resourceVersion: '7', labels: { keep: 'me' } },
  spec,
});
const logger = createLogger({ write: () => undefined });
const review = (desired: string, objects: unknown[]) =>
  reviewConversion(conversion, { uid: 'c1', desiredAPIVersion: `example.com/${desired}`, objects }, logger);

describe('reviewConversion', () => {
  it('spoke → hub and hub → spoke; metadata kept, labels from the result', () => {
    assert.deepEqual(review('v2', [object('v1', { width: 3 })]), {
      uid: 'c1',
      convertedObjects: [
        {
          apiVersion: 'example.com/v2',
          kind: 'Widget',
          metadata: { name: 'w', uid: 'uid-w', resourceVersion: '7', labels: { keep: 'me' } },
          spec: { size: 3 },
        },
      ],
      result: { status: 'Success' },
    });
    const [v1] = review('v1', [object('v2', { size: 4 })]).convertedObjects;
    assert.deepEqual(v1.metadata, { name: 'w', uid: 'uid-w', resourceVersion: '7', labels: { from: 'v2' } });
    assert.deepEqual(v1.spec, { width: 4 });
  });

  it('spoke → spoke through the hub; an object already in the version is returned as it is', () => {
    const out = review('v1', [object('v3', { big: 9 }, 'a'), object('v1', { width: 1 }, 'b')]);
    assert.deepEqual(
      out.convertedObjects.map((o) => [o.apiVersion, o.spec]),
      [
        ['example.com/v1', { width: 9 }],
        ['example.com/v1', { width: 1 }],
      ],
    );
  });

  it('one object failing fails the review with its message; nothing converted is returned', () => {
    const out = review('v2', [object('v1', { width: 1 }, 'ok'), object('v3', { bad: true }, 'broken')]);
    assert.deepEqual(out.result, {
      status: 'Failure',
      message: 'broken: example.com/v3 → example.com/v2: cannot',
    });
    assert.deepEqual(out.convertedObjects, []);
    assert.equal(out.uid, 'c1');
    assert.equal(review('v9', [object('v1', { width: 1 })]).result.status, 'Failure');
    assert.match(
      JSON.stringify(
        reviewConversion(conversion, { uid: 'c2', desiredAPIVersion: 'other.io/v1', objects: [] }, logger),
      ),
      /not a version of example\.com/,
    );
  });

  it('a body that is not an apiextensions.k8s.io/v1 ConversionReview is a BadReview', () => {
    assert.throws(
      () => conversionRequest({ kind: 'ConversionReview', apiVersion: 'apiextensions.k8s.io/v1beta1' }),
      BadReview,
    );
    assert.throws(
      () => conversionRequest({ kind: 'ConversionReview', apiVersion: 'apiextensions.k8s.io/v1', request: {} }),
      BadReview,
    );
  });
});

describe('what every review is checked for', () => {
  it('a desired version the operator does not convert fails, with no objects too', () => {
    const out = review('v9', []);
    assert.equal(out.result.status, 'Failure');
    assert.match(JSON.stringify(out.result), /not a version this operator converts \(v2, v1, v3\)/);
  });

  it('an object of another kind fails the review: never relabelled', () => {
    const gizmo = { ...object('v1', { width: 1 }), kind: 'Gizmo' };
    assert.deepEqual(review('v2', [gizmo]).result, { status: 'Failure', message: 'w: kind Gizmo is not Widget' });
  });

  it('an object its version schema refuses fails, naming the field, before the function runs', () => {
    const schema = { type: 'object' as const, required: ['spec'], properties: { spec: { type: 'object' as const } } };
    const out = reviewConversion(
      conversion,
      {
        uid: 'c3',
        desiredAPIVersion: 'example.com/v2',
        objects: [{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'bare' } }],
      },
      logger,
      (o) => shapeErrors(o, schema),
    );
    assert.deepEqual(out.result, {
      status: 'Failure',
      message: 'bare: example.com/v1 is invalid: spec: Required value',
    });
  });
});

describe('conversionAnswerText', () => {
  const text = async (desired: string, objects: unknown[]) => {
    const request = { uid: 'c1', desiredAPIVersion: `example.com/${desired}`, objects };
    const items = { count: objects.length, item: (i: number) => structuredClone(objects[i]) };
    let pauses = 0;
    const chunks = await conversionAnswerText(conversion, request, items, logger, async () => void pauses++);
    return { review: JSON.parse(Buffer.concat(chunks).toString()), pauses };
  };
  it('is the review reviewConversion answers, as text, pausing between slices', async () => {
    const many = Array.from({ length: 1_200 }, (_, i) =>
      object(i % 2 ? 'v1' : 'v3', i % 2 ? { width: i } : { big: i }, `w${i}`),
    );
    for (const [desired, objects] of [
      ['v2', many],
      ['v1', []],
      ['v2', [object('v1', { width: 1 }, 'ok'), object('v3', { bad: true }, 'broken')]],
      ['v9', []],
    ] as const) {
      const got = await text(desired, [...objects]);
      assert.deepEqual(got.review, {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        response: review(desired, structuredClone([...objects])),
      });
    }
    assert.equal((await text('v2', many)).pauses, 2);
  });
});
