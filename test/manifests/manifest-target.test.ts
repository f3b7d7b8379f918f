import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultName, resolveTarget } from '../../src/manifests/manifest-target.js';
import { resource } from '../helpers/manifest-fixtures.js';

describe('defaultName', () => {
  const cases: { given: Parameters<typeof defaultName>[0]; want: string }[] = [
    { given: [resource()], want: 'myresource-operator' },
    { given: [resource(), resource({ version: 'v2' })], want: 'myresource-operator' },
    { given: [resource(), resource({ plural: 'others', kind: 'Other' })], want: 'example-com-operator' },
    {
      given: [
        resource({ group: '', plural: 'pods', kind: 'Pod' }),
        resource({ group: '', plural: 'services', kind: 'Service' }),
      ],
      want: 'core-operator',
    },
  ];
  for (const { given, want } of cases) {
    it(`${given.map((r) => `${r.kind}.${r.group}/${r.version}`).join(', ')} -> ${want}`, () =>
      assert.equal(defaultName(given), want));
  }
});

describe('resolveTarget', () => {
  it('cluster-wide: the operator gets a namespace of its own, and an image named after it', () => {
    const { target } = resolveTarget([resource()], { module: 'dist/operator.js', source: 'x' });
    assert.equal(target?.operatorNamespace, 'myresource-operator-system');
    assert.equal(target?.createNamespace, true);
    assert.equal(target?.watchNamespace, undefined);
    assert.equal(target?.image, 'myresource-operator:latest');
    assert.equal(target?.healthPort, 8080);
    assert.equal(target?.replicas, 2, 'one leads, one stands by (DEFAULT_REPLICAS)');
    assert.equal(target?.shards, undefined, 'one leader unless --shards');
  });

  it('-n: the operator runs in the watched namespace, which is never created or owned by the manifests', () => {
    const { target } = resolveTarget([resource()], {
      module: 'dist/operator.js',
      source: 'x',
      namespace: 'team-a',
      name: 'op',
      image: 'r/op:1',
    });
    assert.deepEqual(
      [target?.operatorNamespace, target?.watchNamespace, target?.createNamespace, target?.image],
      ['team-a', 'team-a', false, 'r/op:1'],
    );
  });

  const bad: { given: Parameters<typeof resolveTarget>[1]; want: RegExp }[] = [
    {
      given: { module: 'm.js', source: 'x', name: 'My_Operator' },
      want: /^--name "My_Operator" must be a DNS-1123 label/,
    },
    { given: { module: 'm.js', source: 'x', name: 'a'.repeat(48) }, want: /at most 47 characters/ },
    {
      given: { module: 'm.js', source: 'x', namespace: 'Bad_NS!' },
      want: /^-n "Bad_NS!" is not a valid namespace name/,
    },
    { given: { module: 'm.js', source: 'x', healthPort: 70000 }, want: /^--health-port 70000 is not a port number/ },
    {
      given: { module: '../elsewhere/op.js', source: 'x' },
      want: /must be relative to the image's working directory/,
    },
    { given: { module: '/abs/op.js', source: 'x' }, want: /must be relative to the image's working directory/ },
    { given: { module: 'm.js', source: 'x', replicas: 0 }, want: /^--replicas 0 is not a positive integer/ },
    { given: { module: 'm.js', source: 'x', replicas: 1.5 }, want: /^--replicas 1.5 is not a positive integer/ },
    { given: { module: 'm.js', source: 'x', shards: 0 }, want: /^--shards: the number of shards must be .* \(got 0\)/ },
    { given: { module: 'm.js', source: 'x', shards: 1025 }, want: /^--shards: .*from 1 to 1024 \(got 1025\)/ },
  ];
  for (const { given, want } of bad) {
    it(`rejects ${JSON.stringify(given)}`, () => {
      const resolved = resolveTarget([resource()], given);
      assert.equal(resolved.target, undefined);
      assert.equal(resolved.problems.length, 1);
      assert.match(resolved.problems[0], want);
    });
  }
});
