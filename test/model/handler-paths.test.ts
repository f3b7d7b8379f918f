/**
 * `webhookSegment`: a handler id as its admission webhook's path segment, an RFC 1123 subdomain (what
 * a Service path demands of every segment), given/want; the generator's and the runtime's agree.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { webhookSegment } from '../../src/model/handler-paths.js';
import { webhookSegment as runtimeSegment } from '../../src/runtime/webhooks/configurations.js';

const SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const cases: [string, string][] = [
  ['create_fn', 'create-fn'],
  ['CreateFn', 'createfn'],
  ['a.b', 'a.b'],
  ['a..b', 'a.b'],
  ['a_.b', 'a.b'],
  ['_x_', 'x'],
  ['é', 'handler'],
  ['my-app', 'my-app'],
];
for (const [id, want] of cases)
  it(`${id} → ${want}`, () => {
    assert.equal(webhookSegment(id), want);
    assert.equal(runtimeSegment(id), want);
    assert.match(want, SUBDOMAIN);
  });
