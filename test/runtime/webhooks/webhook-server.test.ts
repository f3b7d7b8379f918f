/**
 * The webhook server over real HTTPS (a self-signed pair in memory, files rotated on disk): routes,
 * bounded bodies, answers to admission and conversion reviews, and a rotated certificate served to
 * the next connection without a restart.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AdmissionError } from '../../../src/runtime/api/admission.js';
import { defineConversion } from '../../../src/runtime/api/conversion.js';
import { defineHandler, defineResource } from '../../../src/runtime/api/define.js';
import { Registry } from '../../../src/runtime/api/registry.js';
import { createLogger } from '../../../src/runtime/effects/log.js';
import { fileCertificates, selfSignedCertificates } from '../../../src/runtime/webhooks/certificates.js';
import { webhookPath } from '../../../src/runtime/webhooks/configurations.js';
import { createCa, createServing } from '../../../src/runtime/webhooks/self-signed.js';
import { startWebhookServer, type WebhookServer } from '../../../src/runtime/webhooks/webhook-server.js';
import { tempDir } from '../../helpers/temp-dirs.js';

interface Widget {
  apiVersion: 'example.com/v1';
  kind: 'Widget';
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec: { size: number; color?: string };
}
const widgets = defineResource<Widget>({
  group: 'example.com',
  version: 'v1',
  plural: 'widgets',
  kind: 'Widget',
  scope: 'Namespaced',
  statusSubresource: false,
  printerColumns: [],
});
const widgetsV1alpha1 = { ...widgets, version: 'v1alpha1' };

const lines: string[] = [];
const logger = createLogger({ write: (line) => lines.push(line), level: 'debug' });

function post(server: WebhookServer, path: string, body: unknown, ca: string, type = 'application/json') {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise<{ status: number; body: string; peer: X509Certificate }>((resolve, reject) => {
    const req = https.request(
      `${server.url}${path}`,
      { method: 'POST', ca, agent: false, headers: { 'Content-Type': type } },
      (res) => {
        const chunks: Buffer[] = [];
        const peer = new X509Certificate((res.socket as import('node:tls').TLSSocket).getPeerCertificate().raw);
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), peer }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function review(operation: string, object: unknown, oldObject?: unknown) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u-1', operation, object, oldObject, userInfo: { username: 'alice' } },
  };
}

const widget = (size: number): Widget => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns' },
  spec: { size },
});

describe('webhook server', () => {
  const registry = new Registry();
  const handler = defineHandler<Widget, never>(widgets, 'sizes');
  handler.onValidate(
    (ctx) => {
      if (ctx.spec.size > 10) throw new AdmissionError(`size ${ctx.spec.size} is above 10`);
      return ctx.operation === 'UPDATE' && ctx.old.spec.size !== ctx.spec.size ? ['size changed'] : undefined;
    },
    { registry },
  );
  handler.onMutate(
    (ctx) => {
      ctx.object.spec.color ??= 'blue';
    },
    { registry },
  );
  type Spokes = {
    v1alpha1: {
      toHub: (from: { spec: { width: number } }) => { spec: { size: number } };
      fromHub: (hub: Widget) => { spec: { width: number } };
    };
  };
  defineConversion<Spokes>(widgets, { v1alpha1: widgetsV1alpha1 }).register(
    'v1alpha1',
    { toHub: (from) => ({ spec: { size: from.spec.width } }), fromHub: (hub) => ({ spec: { width: hub.spec.size } }) },
    { registry },
  );
  let server: WebhookServer;
  let ca: string;
  after(() => server?.close());

  it('answers admission and conversion reviews at their paths', async () => {
    const source = await selfSignedCertificates({ hosts: ['127.0.0.1'], logger });
    ca = source.current().ca ?? '';
    server = await startWebhookServer({ port: 0, host: '127.0.0.1', registry, certificates: source, logger });
    const [validate, mutate] = registry.webhooks.map(webhookPath);
    assert.equal(validate, '/validate/example.com/v1/widgets/sizes');

    const denied = JSON.parse((await post(server, validate, review('CREATE', widget(11)), ca)).body);
    assert.deepEqual(denied.response, {
      uid: 'u-1',
      allowed: false,
      status: { code: 403, message: 'size 11 is above 10' },
    });
    assert.ok(lines.some((l) => l.includes('admission denied: validate sizes on CREATE widgets ns/w by alice')));
    const warned = JSON.parse((await post(server, validate, review('UPDATE', widget(3), widget(2)), ca)).body);
    assert.deepEqual(warned.response, { uid: 'u-1', allowed: true, warnings: ['size changed'] });

    const mutated = JSON.parse((await post(server, mutate, review('CREATE', widget(1)), ca)).body);
    assert.equal(mutated.response.patchType, 'JSONPatch');
    assert.deepEqual(JSON.parse(Buffer.from(mutated.response.patch, 'base64').toString()), [
      { op: 'add', path: '/spec/color', value: 'blue' },
    ]);

    const objects = Array.from({ length: 3 }, (_, i) => ({
      apiVersion: 'example.com/v1alpha1',
      kind: 'Widget',
      metadata: { name: `w${i}`, uid: `uid-${i}`, labels: { a: 'b' } },
      spec: { width: i },
    }));
    const converted = JSON.parse(
      (
        await post(
          server,
          '/convert/widgets.example.com',
          {
            apiVersion: 'apiextensions.k8s.io/v1',
            kind: 'ConversionReview',
            request: { uid: 'c-1', desiredAPIVersion: 'example.com/v1', objects },
          },
          ca,
        )
      ).body,
    );
    assert.equal(converted.response.uid, 'c-1');
    assert.deepEqual(converted.response.result, { status: 'Success' });
    assert.deepEqual(converted.response.convertedObjects[2], {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w2', uid: 'uid-2', labels: { a: 'b' } },
      spec: { size: 2 },
    });
  });

  it('refuses what is not a review: 404, 415, 400, 413', async () => {
    assert.equal((await post(server, '/validate/nothing', '{}', ca)).status, 404);
    const validate = webhookPath(registry.webhooks[0]);
    assert.equal((await post(server, validate, '{}', ca, 'text/plain')).status, 415);
    assert.equal((await post(server, validate, '{not json', ca)).status, 400);
    assert.equal((await post(server, validate, { kind: 'AdmissionReview', apiVersion: 'v1' }, ca)).status, 400);
    const big = JSON.stringify({ pad: 'x'.repeat(8 * 1024 * 1024) });
    assert.equal((await post(server, validate, big, ca)).status, 413);
    // Another kind at a Widget's path: refused before the typed callback reads it.
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, data: {} };
    const wrong = await post(server, validate, review('CREATE', configMap), ca);
    assert.equal(wrong.status, 400);
    assert.match(wrong.body, /ConfigMap v1, not Widget of example\.com/);
    const malformedItem =
      '{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"example.com/v1","objects":[{"a":tru}]}}';
    assert.equal((await post(server, '/convert/widgets.example.com', malformedItem, ca)).status, 400);
  });

  it('past its budget a request waits, then is answered 503 with Retry-After; the others are served', async () => {
    const source = await selfSignedCertificates({ hosts: ['127.0.0.1'], logger });
    const small = await startWebhookServer({
      port: 0,
      host: '127.0.0.1',
      registry,
      certificates: source,
      logger,
      budget: {
        conversion: { bytes: 1_000, requests: 1, waitMs: 200 },
        admission: { bytes: 100_000, requests: 10, waitMs: 200 },
      },
    });
    try {
      const own = source.current().ca ?? '';
      // A request that holds the conversion budget: its body is announced but not sent yet.
      const held = https.request(`${small.url}/convert/widgets.example.com`, {
        method: 'POST',
        ca: own,
        agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': '900' },
      });
      held.on('error', () => undefined);
      held.write(' ');
      held.flushHeaders();
      await new Promise((r) => setTimeout(r, 300));
      const refused = await post(small, '/convert/widgets.example.com', { kind: 'ConversionReview' }, own);
      assert.equal(refused.status, 503);
      const validate = webhookPath(registry.webhooks[0]);
      assert.equal((await post(small, validate, review('CREATE', widget(1)), own)).status, 200);
      held.destroy();
    } finally {
      await small.close();
    }
  });
});

describe('conversions from a keep-alive client', () => {
  it('40 conversions of 1,000 objects in a row are all answered, each closing its connection; none holds the budget', async () => {
    const registry = new Registry();
    type Spokes = {
      v1alpha1: {
        toHub: (from: { spec: { width: number } }) => { spec: { size: number } };
        fromHub: (hub: Widget) => { spec: { width: number } };
      };
    };
    defineConversion<Spokes>(widgets, { v1alpha1: widgetsV1alpha1 }).register(
      'v1alpha1',
      {
        toHub: (from) => ({ spec: { size: from.spec.width } }),
        fromHub: (hub) => ({ spec: { width: hub.spec.size } }),
      },
      { registry },
    );
    const source = await selfSignedCertificates({ hosts: ['127.0.0.1'], logger });
    const own = source.current().ca ?? '';
    // Two at a time, as the default budget: a leaked reservation would soon make every request wait, then 503.
    const conversion = { bytes: 64 * 1024 * 1024, requests: 2, waitMs: 2_000 };
    const server = await startWebhookServer({
      port: 0,
      host: '127.0.0.1',
      registry,
      certificates: source,
      logger,
      budget: { conversion, admission: { bytes: 1_000_000, requests: 10, waitMs: 200 } },
    });
    const agent = new https.Agent({ keepAlive: true });
    try {
      const body = JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: {
          uid: 'c',
          desiredAPIVersion: 'example.com/v1',
          objects: Array.from({ length: 1000 }, (_, i) => ({
            apiVersion: 'example.com/v1alpha1',
            kind: 'Widget',
            metadata: { name: `w${i}`, namespace: 'ns', uid: `uid-${i}`, labels: { app: 'x'.repeat(40) } },
            spec: { width: i },
          })),
        },
      });
      // Each conversion answer closes its connection (in a process of their own, client and server
      // met Node's HPE_PAUSED reset on a reused connection after a few dozen conversions, each reset
      // then holding its budget: every later conversion waited and got 503).
      const connections: (string | undefined)[] = [];
      const statuses: (number | string)[] = [];
      for (let n = 0; n < 40; n++)
        statuses.push(
          await new Promise<number | string>((resolve) => {
            const req = https.request(
              `${server.url}/convert/widgets.example.com`,
              { method: 'POST', ca: own, agent, headers: { 'Content-Type': 'application/json' } },
              (res) => {
                connections.push(res.headers.connection);
                res.resume();
                res.on('end', () => resolve(res.statusCode ?? 0));
              },
            );
            req.on('error', (error) => resolve(error.message));
            req.end(body);
          }),
        );
      assert.deepEqual(new Set(statuses), new Set([200]), statuses.join(' '));
      assert.deepEqual(new Set(connections), new Set(['close']));
    } finally {
      agent.destroy();
      await server.close();
    }
  });
});

describe('slowloris bounds', () => {
  it('headers sent a byte every 5 s are cut near the 10 s headers bound; a connection that never starts TLS too', async () => {
    const source = await selfSignedCertificates({ hosts: ['127.0.0.1'], logger });
    const server = await startWebhookServer({
      port: 0,
      host: '127.0.0.1',
      registry: new Registry(),
      certificates: source,
      logger,
    });
    const { connect } = await import('node:tls');
    const net = await import('node:net');
    const closedAfter = (socket: import('node:net').Socket, started: number) =>
      new Promise<number>((done) => {
        socket.on('error', () => undefined);
        socket.on('close', () => done(Date.now() - started));
      });
    try {
      const started = Date.now();
      const tls = connect({ host: '127.0.0.1', port: server.port, ca: source.current().ca });
      const slow = closedAfter(tls, started);
      const header = 'POST /convert/x HTTP/1.1\r\nHost: a\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
      let i = 0;
      tls.once('secureConnect', () => tls.write(header[i++]));
      const drip = setInterval(() => tls.writable && tls.write(header[i++ % header.length]), 5_000);
      const raw = net.connect({ host: '127.0.0.1', port: server.port });
      const idle = closedAfter(raw, started);
      const [slowMs, idleMs] = await Promise.all([slow, idle]);
      clearInterval(drip);
      // Bounds of 10 s (headers from the request's first byte), checked every second: about 11 s on an idle
      // machine; the margin is for a loaded one (with Node's default check interval alone the cut comes at 30 s or later).
      assert.ok(slowMs >= 9_000 && slowMs < 29_000, `slow headers cut after ${slowMs} ms`);
      assert.ok(idleMs >= 9_000 && idleMs < 29_000, `an idle handshake cut after ${idleMs} ms`);
    } finally {
      await server.close();
    }
  });
});

describe('certificates from files', () => {
  const dir = tempDir('kopfgen-certs-');
  const kept = tempDir('kopfgen-certs-kept-');
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(kept, { recursive: true, force: true });
  });

  it('serves a rotated pair to the next connection without a restart; a bad pair keeps the previous one', async () => {
    const ca = await createCa('test CA');
    const first = await createServing(ca, ['127.0.0.1']);
    writeFileSync(join(dir, 'tls.crt'), first.cert);
    writeFileSync(join(dir, 'tls.key'), first.key);
    const source = await fileCertificates({ dir, reloadMs: 50, lastGoodDir: kept, logger });
    const registry = new Registry();
    defineHandler<Widget, never>(widgets, 'any').onValidate(() => undefined, { registry });
    const server = await startWebhookServer({ port: 0, host: '127.0.0.1', registry, certificates: source, logger });
    try {
      const path = webhookPath(registry.webhooks[0]);
      const before = await post(server, path, review('CREATE', widget(1)), ca.cert);
      assert.equal(before.peer.serialNumber, new X509Certificate(first.cert).serialNumber);
      const second = await createServing(ca, ['127.0.0.1']);
      writeFileSync(join(dir, 'tls.key'), second.key);
      writeFileSync(join(dir, 'tls.crt'), second.cert);
      const want = new X509Certificate(second.cert).serialNumber;
      const deadline = Date.now() + 20_000;
      let served = before.peer.serialNumber;
      while (served !== want && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        served = (await post(server, path, review('CREATE', widget(1)), ca.cert)).peer.serialNumber;
      }
      assert.equal(served, want);
      // A broken rotation: a warning and the metric's count, the previous pair served, `/healthz` ok.
      writeFileSync(join(dir, 'tls.crt'), 'not a certificate');
      const until = Date.now() + 20_000;
      while (server.failedRotations() === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      assert.equal(server.failedRotations(), 1);
      assert.ok(lines.some((l) => /WARN.*rotated certificate .* does not load, the previous one is served/.test(l)));
      assert.deepEqual(server.problems(), []);
      assert.equal((await post(server, path, review('CREATE', widget(1)), ca.cert)).peer.serialNumber, want);
      // A restart during the broken rotation serves the last pair that loaded (kept on disk), no crash loop.
      const restarted = await fileCertificates({ dir, reloadMs: 50, lastGoodDir: kept, logger });
      const again = await startWebhookServer({ port: 0, host: '127.0.0.1', registry, certificates: restarted, logger });
      try {
        assert.equal((await post(again, path, review('CREATE', widget(1)), ca.cert)).peer.serialNumber, want);
        assert.deepEqual(again.problems(), []);
      } finally {
        await again.close();
      }
    } finally {
      await server.close();
    }
  });

  it('a first start on a broken pair with none kept serves a self-signed one and stays healthy', async () => {
    const empty = tempDir('kopfgen-certs-broken-');
    try {
      writeFileSync(join(empty, 'tls.crt'), 'not a certificate');
      writeFileSync(join(empty, 'tls.key'), 'not a key');
      const source = await fileCertificates({ dir: empty, lastGoodDir: join(empty, 'kept'), logger });
      try {
        assert.match(source.current().cert, /BEGIN CERTIFICATE/);
        assert.deepEqual(source.problems(), []);
        assert.ok(lines.some((l) => /WARN.*no certificate that loaded before is kept/.test(l)));
      } finally {
        source.close();
      }
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

/** A client certificate (extKeyUsage clientAuth, which OpenSSL requires of a client's) signed by `ca`. */
async function clientCertificate(ca: { cert: string; key: string }, commonName: string) {
  const forge = (await import('node-forge')).default;
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const caCert = forge.pki.certificateFromPem(ca.cert);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([
    { name: 'commonName', value: commonName },
    { name: 'organizationName', value: 'system:masters' },
  ]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', clientAuth: true },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.key), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
}

describe('webhook server: request headers and client certificates (kopf’s headers, sslpeer)', () => {
  it('gives the callbacks the headers, the verified client certificate and the memo; refuses one that does not verify', async () => {
    const clientCa = await createCa('client CA');
    const otherCa = await createCa('other CA');
    const alice = await clientCertificate(clientCa, 'alice');
    const mallory = await clientCertificate(otherCa, 'mallory');
    const registry = new Registry();
    const seen: { headers: Readonly<Record<string, string>>; cn: unknown; memo: unknown }[] = [];
    defineHandler<Widget, never>(widgets, 'peer').onValidate(
      (ctx) => void seen.push({ headers: ctx.headers, cn: ctx.sslpeer?.subject.CN, memo: ctx.memo }),
      { registry },
    );
    const memo: Record<string, unknown> = { tenant: 'blue' };
    const source = await selfSignedCertificates({ hosts: ['127.0.0.1'], logger });
    const serverCa = source.current().ca ?? '';
    const server = await startWebhookServer({
      port: 0,
      host: '127.0.0.1',
      registry,
      certificates: source,
      logger,
      clientCa: clientCa.cert,
      memo,
    });
    const path = webhookPath(registry.webhooks[0]);
    const send = (client?: { cert: string; key: string }) =>
      new Promise<number>((resolve, reject) => {
        const req = https.request(
          `${server.url}${path}`,
          {
            method: 'POST',
            ca: serverCa,
            agent: false,
            headers: { 'Content-Type': 'application/json', 'X-Audit': 'yes' },
            ...client,
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(review('CREATE', widget(1))));
      });
    try {
      const given = [
        { name: 'no certificate: served, sslpeer undefined', client: undefined, status: 200, cn: undefined },
        { name: "the client CA's certificate: its subject", client: alice, status: 200, cn: 'alice' },
        { name: "another CA's certificate: refused", client: mallory, status: 401, cn: undefined },
      ];
      for (const row of given) {
        const before = seen.length;
        assert.equal(await send(row.client), row.status, row.name);
        if (row.status !== 200) {
          assert.equal(seen.length, before, `${row.name}: no callback`);
          continue;
        }
        const call = seen[seen.length - 1];
        assert.equal(call?.cn, row.cn, row.name);
        assert.equal(call?.headers['x-audit'], 'yes', row.name);
        assert.equal(call?.memo, memo, row.name);
      }
      assert.ok(lines.some((l) => /WARN.*refused: the client certificate does not verify/.test(l)));
    } finally {
      await server.close();
    }
  });
});
