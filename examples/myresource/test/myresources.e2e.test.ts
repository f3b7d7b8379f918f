/**
 * The story end to end, in one line of setup: `startOperator` runs the operator in this process
 * against a real API server (`../shared/envtest`, or the cluster `KOPFGEN_E2E_KUBECONFIG` names,
 * e.g. kind or k3d in CI) and waits for a handler's status as `kubectl get myresources` shows it.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { startApiServer, startOperator, type ApiServer, type RunningOperator } from 'kopfgen/testing';
import { MyResourceDescriptor, MyResourceMyapp } from '../generated/index.js';
import * as handlers from '../handlers/myresources.js';

const envtest = resolve('../shared/envtest');
const cluster = process.env.KOPFGEN_E2E_KUBECONFIG;
const skip =
  process.env.KOPFGEN_TEST_SCOPE === 'unit'
    ? 'needs an API server: not run by npm run test:unit'
    : cluster || existsSync(`${envtest}/start.sh`)
      ? false
      : 'needs ../shared/envtest (or KOPFGEN_E2E_KUBECONFIG)';

let server: ApiServer | undefined;
let operator: RunningOperator | undefined;

before(
  async () => {
    if (skip) return;
    if (!cluster) server = await startApiServer({ start: `${envtest}/start.sh`, stop: `${envtest}/stop.sh` });
    operator = await startOperator(handlers, {
      kubeconfig: cluster ?? server?.kubeconfig,
      crds: ['crds/myresource.yaml'],
    });
  },
  { timeout: 900_000 },
);

after(async () => {
  await operator?.stop();
  await server?.stop();
});

test('first attempt → Pending (no image); the user sets one; the retry 30 s later → Starting, reason cleared', { skip, timeout: 120_000 }, async () => {
  const op = operator;
  if (!op) throw new Error('the operator did not start');
  // A blank image (kube-apiserver 1.20 built with Go ≥ 1.16 refuses an empty string: kubernetes#99804).
  await op.create(MyResourceDescriptor, { metadata: { name: 'web', namespace: 'default' }, spec: { image: ' ' } });
  await op.waitForStatus(MyResourceMyapp, 'web', { phase: 'Pending', reason: 'no-image' });

  op.advance(30); // the retry's delay passes (no real time)
  await op.patch(MyResourceDescriptor, 'web', { spec: { image: 'nginx' } });
  await op.waitForStatus(MyResourceMyapp, 'web', { phase: 'Starting', reason: null });
});
