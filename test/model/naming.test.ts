/**
 * The naming pass returns every name: module names per served version, an interface name per
 * named object node, and each handler's exported names and status shape (extends the schema's
 * type, emitted by the handler section, or an alias), claimed in module order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveHandlers, withoutHandlers } from '../../src/model/handler-pass.js';
import { nameCrd } from '../../src/model/naming.js';
import { crd, obj, scalar } from '../helpers/handler-fixtures.js';

test('a served version: module names, the root and nested types named, the IR left untouched', () => {
  const model = crd({ versions: [{ status: obj({ phase: scalar('string') }) }] });
  const before = JSON.stringify(model);
  const named = nameCrd(withoutHandlers(model), 'MyResource');
  assert.equal(JSON.stringify(model), before, 'naming writes nothing into the IR');
  const [v] = named.versions;
  const module = 'example.com/v1/myresources';
  const descriptor = 'MyResourceDescriptor';
  assert.deepEqual(v.names, { module, prefix: 'MyResource', resource: 'MyResource', descriptor });
  const schema = v.version.schema;
  assert.ok(schema);
  assert.equal(v.types.get(schema), 'MyResource');
  const status = schema.properties.find((p) => p.name === 'status')?.schema;
  assert.ok(status?.type === 'object');
  assert.equal(v.types.get(status), 'MyResourceStatus');
});

test('handler names in module order, and the shape of each status', () => {
  const model = crd({
    annotations: { 'kopfgen.dev/handlers': 'myapp, count' },
    versions: [{ status: obj({ myapp: obj({ ready: scalar('boolean') }), count: scalar('integer') }) }],
  });
  const { crds, diagnostics } = resolveHandlers([model], {});
  assert.deepEqual(diagnostics, []);
  const [v] = nameCrd(crds[0], 'MyResource').versions;
  const byId = Object.fromEntries(v.handlers.map((h) => [h.handler.id, h]));
  assert.deepEqual(byId.myapp.names, {
    definition: 'MyResourceMyapp',
    status: 'MyResourceMyappStatus',
    temporaryError: 'MyResourceMyappTemporaryError',
    permanentError: 'MyResourceMyappPermanentError',
  });
  assert.deepEqual(byId.myapp.shape, { kind: 'extends', schemaType: 'MyResourceStatusMyapp' });
  assert.deepEqual(byId.count.shape, { kind: 'alias' });
});

test('a status the handler section emits itself gets its nested types named after the status type', () => {
  const model = crd({
    annotations: { 'kopfgen.dev/handlers': 'myapp' },
    versions: [{ status: null, rootOpen: true }],
  });
  const { crds } = resolveHandlers([model], { handlers: { MyResource: ['myapp'] } });
  const [v] = nameCrd(crds[0], 'MyResource').versions;
  const [h] = v.handlers;
  assert.deepEqual(h.shape, { kind: 'own' });
  assert.equal(h.names.status, 'MyResourceMyappStatus');
});

test('unserved versions get no names; a non-storage version adds its version to the prefix', () => {
  const versions = [
    { name: 'v1beta1', storage: false, status: null },
    { name: 'v1', storage: true, status: null },
  ];
  const model = crd({ versions });
  model.versions[0].served = false;
  assert.deepEqual(
    nameCrd(withoutHandlers(model), 'MyResource').versions.map((v) => v.names.prefix),
    ['MyResource'],
  );
  model.versions[0].served = true;
  const prefixes = nameCrd(withoutHandlers(model), 'MyResource').versions.map((v) => v.names.prefix);
  assert.deepEqual(prefixes, ['MyResourceV1beta1', 'MyResource']);
});
