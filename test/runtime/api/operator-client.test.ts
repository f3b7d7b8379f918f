/** operatorClient() (api/operator-client.ts): reads through the term's client or the operator's own, writes only through a term's. */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { FencedWriteError, type Client } from '../../../src/runtime/api/client-api.js';
import { clientSlot, operatorClient } from '../../../src/runtime/api/operator-client.js';
import { builtins } from '../../../src/runtime/builtin-kinds.js';

/** A client that says which one answered. */
function named(name: string, calls: string[]): Client {
  const answer = async (verb: string) => {
    calls.push(`${name} ${verb}`);
    return undefined as never;
  };
  return {
    get: () => answer('get'),
    list: () => answer('list'),
    create: () => answer('create'),
    apply: () => answer('apply'),
    patch: () => answer('patch'),
    delete: () => answer('delete'),
  };
}

describe('operatorClient', () => {
  afterEach(() => {
    clientSlot().base = undefined;
    clientSlot().term = undefined;
  });

  it('before the start: every call rejects, saying so', async () => {
    await assert.rejects(operatorClient().get(builtins.pods, 'p', { namespace: 'n' }), /the operator has not started/);
  });

  it("standing by: reads through the operator's client, writes refused as FencedWriteError; leading: the term's", async () => {
    const calls: string[] = [];
    clientSlot().base = named('base', calls);
    const client = operatorClient();
    await client.get(builtins.pods, 'p', { namespace: 'n' });
    await client.list(builtins.pods);
    await assert.rejects(
      client.apply(builtins.configMaps, { metadata: { name: 'c', namespace: 'n' } }),
      (error: unknown) => error instanceof FencedWriteError && /this replica does not lead/.test(error.message),
    );
    clientSlot().term = named('term', calls);
    await client.get(builtins.pods, 'p', { namespace: 'n' });
    await client.delete(builtins.pods, 'p', { namespace: 'n' });
    assert.deepEqual(calls, ['base get', 'base list', 'term get', 'term delete']);
  });
});
