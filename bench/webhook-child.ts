/**
 * The server side of the webhooks bench, in a process of its own (so the client's work is not in its
 * figures): `kopfgen` serves the runtime's webhook server with a validate, a mutate and a conversion;
 * `floor` serves the same Node HTTPS stack with the same certificate, reading each body whole and
 * answering a constant review, which is what any webhook server costs before it does anything.
 * Prints `port <n>` when listening; on SIGTERM prints `rss <MB>` (peak) and exits.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { AdmissionError } from '../src/runtime/api/admission.js';
import { defineConversion } from '../src/runtime/api/conversion.js';
import { defineHandler, defineResource } from '../src/runtime/api/define.js';
import { Registry } from '../src/runtime/api/registry.js';
import { createLogger } from '../src/runtime/effects/log.js';
import { selfSignedCertificates } from '../src/runtime/webhooks/certificates.js';
import { startWebhookServer } from '../src/runtime/webhooks/webhook-server.js';

interface Gizmo {
  apiVersion: 'example.com/v1';
  kind: 'Gizmo';
  metadata?: { name?: string };
  spec: { size: number; color?: string; tags?: string[] };
}
const v1 = defineResource<Gizmo>({
  group: 'example.com',
  version: 'v1',
  plural: 'gizmos',
  kind: 'Gizmo',
  scope: 'Namespaced',
  statusSubresource: false,
  printerColumns: [],
});

const mode = process.argv[2];
const logger = createLogger({ level: 'error' });
const certificates = await selfSignedCertificates({ hosts: ['127.0.0.1'], logger });
process.stdout.write(`ca ${Buffer.from(certificates.current().ca ?? '').toString('base64')}\n`);

let port: number;
if (mode === 'floor') {
  const constant = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: 'u', allowed: true },
  });
  const server = https.createServer(
    { cert: certificates.current().cert, key: certificates.current().key, minVersion: 'TLSv1.2' },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        Buffer.concat(chunks); // read whole, as a real server must before it answers
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(constant) });
        res.end(constant);
      });
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
} else {
  const registry = new Registry();
  const gizmo = defineHandler<Gizmo, never>(v1, 'check');
  gizmo.onValidate(
    (ctx) => {
      if (ctx.spec.size > 100) throw new AdmissionError('too big');
      return ctx.spec.tags?.length ? undefined : ['no tags'];
    },
    { registry },
  );
  gizmo.onMutate(
    (ctx) => {
      ctx.object.spec.color ??= 'grey';
    },
    { registry },
  );
  type Spokes = {
    v1alpha1: {
      toHub: (from: { spec: { width: number; colour?: string } }) => { spec: { size: number; color?: string } };
      fromHub: (hub: Gizmo) => { spec: { width: number; colour?: string } };
    };
  };
  defineConversion<Spokes>(v1, { v1alpha1: { ...v1, version: 'v1alpha1' } }).register(
    'v1alpha1',
    {
      toHub: (from) => ({ spec: { size: from.spec.width, color: from.spec.colour } }),
      fromHub: (hub) => ({ spec: { width: hub.spec.size, colour: hub.spec.color } }),
    },
    { registry },
  );
  const server = await startWebhookServer({ port: 0, host: '127.0.0.1', registry, certificates, logger });
  port = server.port;
}
process.stdout.write(`port ${port}\n`);
process.on('SIGTERM', () => {
  process.stdout.write(`rss ${(process.resourceUsage().maxRSS / 1024).toFixed(0)}\n`);
  process.exit(0);
});
