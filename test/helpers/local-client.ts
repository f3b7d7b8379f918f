/** A KubeClient for a local plain-HTTP test server (no credentials), as a kubeconfig naming it gives. */
import assert from 'node:assert/strict';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeClient } from '../../src/runtime/kube/client.js';
import { kubeconfigFromDocument } from '../../src/runtime/kube/kubeconfig.js';

export function localClient(server: http.Server): KubeClient {
  const read = kubeconfigFromDocument({
    clusters: [{ name: 'c', cluster: { server: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } }],
    users: [{ name: 'u', user: {} }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  });
  assert.ok('config' in read);
  return new KubeClient(read.config);
}
