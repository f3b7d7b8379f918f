/** Metadata as the API server validates it (`ValidateObjectMeta`): given metadata, want field errors. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { metadataErrors } from '../../../src/runtime/admission/metadata-check.js';

const cases: { name: string; given: unknown; want: string[] }[] = [
  {
    name: 'a valid object',
    given: {
      name: 'web',
      labels: { 'app.kubernetes.io/name': 'web', tier: '' },
      annotations: { 'example.com/Note': 'any text at all' },
      finalizers: ['example.com/cleanup'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u', controller: true }],
    },
    want: [],
  },
  { name: 'generateName alone', given: { generateName: 'web-' }, want: [] },
  { name: 'no name', given: {}, want: ['metadata.name: Required value: name or generateName is required'] },
  {
    name: 'a name that is not a subdomain',
    given: { name: 'Web' },
    want: [
      `metadata.name: Invalid value: "Web": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
  },
  {
    name: 'a label value that is an object',
    given: { name: 'a', labels: { app: { nested: true } } },
    want: [
      'metadata.labels.app: Invalid value: "object": metadata.labels.app in body must be of type string: "object"',
    ],
  },
  {
    name: 'a label value too long and a bad label key',
    given: { name: 'a', labels: { 'a/b/c': 'x'.repeat(64) } },
    want: [
      `metadata.labels: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      `metadata.labels: Invalid value: "${'x'.repeat(64)}": must be no more than 63 characters`,
    ],
  },
  {
    name: 'an annotation key with a space',
    given: { name: 'a', annotations: { 'my note': 'x' } },
    want: [
      `metadata.annotations: Invalid value: "my note": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ],
  },
  {
    name: 'an owner reference without uid, and two controllers',
    given: {
      name: 'a',
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', controller: true },
        { apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'u', controller: true },
      ],
    },
    want: [
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
      'metadata.ownerReferences: Invalid value: "array": Only one reference can have Controller set to true',
    ],
  },
  {
    name: 'ownerReferences that is not a list',
    given: { name: 'a', ownerReferences: { kind: 'x' } },
    want: [
      'metadata.ownerReferences: Invalid value: "object": metadata.ownerReferences in body must be of type array: "object"',
    ],
  },
];

for (const c of cases)
  test(`metadata: ${c.name}`, () =>
    assert.deepEqual(
      metadataErrors(c.given).map((e) => `${e.path}: ${e.message}`),
      c.want,
    ));
