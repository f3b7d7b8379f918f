import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defaultIdentity,
  leaseNamespace,
  processSurroundings,
  SERVICE_ACCOUNT_NAMESPACE,
  type Surroundings,
} from '../../../src/runtime/leader/leader-identity.js';

function surroundings(env: Record<string, string>, files: Record<string, string> = {}): Surroundings {
  return { env, hostname: () => 'laptop', readFile: (path) => files[path], random: () => 'r4nd' };
}

describe('defaultIdentity', () => {
  const cases: { name: string; env: Record<string, string>; want: string }[] = [
    { name: 'POD_NAME first', env: { POD_NAME: 'op-7d9-x', HOSTNAME: 'other' }, want: 'op-7d9-x_r4nd' },
    { name: 'else HOSTNAME (the pod name in a pod)', env: { HOSTNAME: 'op-7d9-y' }, want: 'op-7d9-y_r4nd' },
    { name: 'else the OS hostname', env: {}, want: 'laptop_r4nd' },
    { name: 'blank values do not count', env: { POD_NAME: ' ', HOSTNAME: '' }, want: 'laptop_r4nd' },
  ];
  for (const c of cases) it(c.name, () => assert.equal(defaultIdentity(surroundings(c.env)), c.want));

  it('two processes with one pod name get different identities', () => {
    const env = { POD_NAME: 'op' };
    const first = defaultIdentity({ ...surroundings(env), random: () => 'a' });
    assert.notEqual(first, defaultIdentity({ ...surroundings(env), random: () => 'b' }));
    const real = { ...processSurroundings, env };
    assert.match(defaultIdentity(real), /^op_[0-9a-f-]{36}$/);
    assert.notEqual(defaultIdentity(real), defaultIdentity(real));
  });
});

describe('leaseNamespace', () => {
  const sa = { [SERVICE_ACCOUNT_NAMESPACE]: 'team-ops\n' };
  interface Case {
    name: string;
    option?: string;
    env: Record<string, string>;
    files?: Record<string, string>;
    want: string;
  }
  const cases: Case[] = [
    { name: 'the option first', option: 'flagged', env: { POD_NAMESPACE: 'x' }, files: sa, want: 'flagged' },
    { name: 'else the service account namespace file', env: { POD_NAMESPACE: 'x' }, files: sa, want: 'team-ops' },
    { name: 'else POD_NAMESPACE', env: { POD_NAMESPACE: 'from-env' }, want: 'from-env' },
    { name: "else 'default'", env: {}, want: 'default' },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(leaseNamespace(c.option, surroundings(c.env, c.files)), c.want));
  }
});
