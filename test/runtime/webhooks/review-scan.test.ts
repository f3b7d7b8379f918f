/**
 * review-scan.ts: a ConversionReview scanned with its objects parsed one at a time reads as JSON.parse
 * reads it (nesting, strings with escaped quotes and brackets, duplicate keys, empty lists), and
 * refuses what JSON.parse refuses.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { scanConversionReview } from '../../../src/runtime/webhooks/review-scan.js';

/** The scanned review with its objects put back, as JSON.parse would give it. */
function whole(text: string): unknown {
  const { review, objects } = scanConversionReview(Buffer.from(text));
  if (!objects) return review;
  const top: object = Object(review);
  const request: object = Object(Reflect.get(top, 'request'));
  return {
    ...top,
    request: { ...request, objects: Array.from({ length: objects.count }, (_, i) => objects.item(i)) },
  };
}

const valid = [
  '{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"a/v1","objects":[]}}',
  ' { "kind" : "ConversionReview" , "request" : { "objects" : [ { "a" : [1, {"b": "]}\\"\\\\"}], "c": null } , 2 , "x" , true ] , "uid" : "u" } } ',
  '{"request":{"objects":[{"s":"\\\\\\"}"}],"objects":[{"n":1}]}}',
  '{"request":{"objects":{"not":"a list"}}}',
  '{"request":[1,2]}',
  '[1]',
  '{"kind":"K","kind":"L","request":{"uid":"é ☃ \\u00e9"}}',
];
for (const text of valid)
  it(`reads as JSON.parse: ${text.slice(0, 60)}`, () => assert.deepEqual(whole(text), JSON.parse(text)));

const invalid = [
  '',
  '{',
  '{"request":{"objects":[{"a":1},]}}',
  '{"request":{"objects":[{"a":1}{"b":2}]}}',
  '{"request":{"objects":[{"a":1]}}',
  '{"request":{"objects":[tru]}}',
  '{"a":1} x',
  '{"a" 1}',
  '{"request":{"objects":["unterminated]}}',
];
for (const text of invalid)
  it(`refused as JSON.parse refuses it: ${JSON.stringify(text)}`, () => {
    assert.throws(() => JSON.parse(text));
    assert.throws(() => whole(text));
  });
