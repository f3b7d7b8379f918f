import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PeerCertificate } from 'node:tls';
import { decidePeer, requestHeaders, type PeerAnswers } from '../../../src/runtime/webhooks/client-certificate.js';

const certificate = {
  subject: Object.assign(Object.create(null) as object, { CN: 'alice', O: ['a', 'b'] }),
  issuer: { CN: 'client CA' },
  subjectaltname: undefined,
  serialNumber: '01',
  valid_from: 'Dec  7 00:00:00 2026 GMT',
  valid_to: 'Dec  8 00:00:00 2026 GMT',
  fingerprint256: 'AA:BB',
} as unknown as PeerCertificate;

describe('decidePeer', () => {
  const rows: { name: string; asked: boolean; answers: PeerAnswers; want: ReturnType<typeof decidePeer> }[] = [
    {
      name: 'no client CA: nothing asked, nothing reported',
      asked: false,
      answers: { certificate, authorized: false, authorizationError: undefined },
      want: { kind: 'none' },
    },
    {
      name: 'asked, none sent (Node answers {})',
      asked: true,
      answers: { certificate: {}, authorized: false, authorizationError: 'UNABLE_TO_GET_ISSUER_CERT' },
      want: { kind: 'none' },
    },
    {
      name: 'sent and verified: its names as plain objects',
      asked: true,
      answers: { certificate, authorized: true, authorizationError: undefined },
      want: {
        kind: 'verified',
        certificate: {
          subject: { CN: 'alice', O: ['a', 'b'] },
          issuer: { CN: 'client CA' },
          subjectaltname: undefined,
          serialNumber: '01',
          validFrom: 'Dec  7 00:00:00 2026 GMT',
          validTo: 'Dec  8 00:00:00 2026 GMT',
          fingerprint256: 'AA:BB',
        },
      },
    },
    {
      name: 'sent and not verified: refused with the reason',
      asked: true,
      answers: { certificate, authorized: false, authorizationError: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' },
      want: { kind: 'refused', message: 'the client certificate does not verify: UNABLE_TO_VERIFY_LEAF_SIGNATURE' },
    },
  ];
  for (const row of rows) it(row.name, () => assert.deepEqual(decidePeer(row.asked, row.answers), row.want));
});

describe('requestHeaders', () => {
  it('keeps each header, joining a repeated one', () => {
    assert.deepEqual(requestHeaders({ 'x-a': 'b', 'set-cookie': ['c=1', 'd=2'], 'x-none': undefined }), {
      'x-a': 'b',
      'set-cookie': 'c=1, d=2',
    });
  });
});
