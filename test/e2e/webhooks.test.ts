/**
 * Webhooks against a real API server (one cluster for the file), the widgets example
 * (examples/widgets: v1 storage, v1alpha1 served) run in this process:
 *
 * - self-signed from a cold start: nothing pre-created; the operator makes its CA Secret, and writes
 *   the webhook configurations (URL + caBundle) and the CRD's `spec.conversion`;
 * - validate: `kubectl apply` of a widget above the limit prints the handler's message, nothing is
 *   stored; mutate: the default is in the stored object; `--dry-run=server` runs both, stores nothing;
 * - conversion: created as v1alpha1, read back as v1 converted and as v1alpha1 unchanged; a list of
 *   500 widgets read as v1alpha1 converts in one request;
 * - failure policy with the webhook server stopped: `Ignore` lets a write through, `Fail` refuses it;
 *   that server runs on certificates from files and serves a rotated one without a restart; a rotation
 *   to a broken pair while the API server calls is a warning, `/healthz` stays 200 and the previous
 *   certificate is served, also by a process restarted meanwhile (the kept pair);
 * - a validator that spins the CPU for 15 s: `/healthz` answers meanwhile within its bound.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join, resolve } from 'node:path';
import { connect } from 'node:tls';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { defineHandler, defineResource } from '../../src/runtime/api/define.js';
import { defaultRegistry, Registry } from '../../src/runtime/api/registry.js';
import { KubeError } from '../../src/runtime/kube/client.js';
import { Operator } from '../../src/runtime/operator.js';
import { webhookConfigurations } from '../../src/runtime/webhooks/configurations.js';
import { defaultWebhookName } from '../../src/runtime/webhooks/serve-webhooks.js';
import { createCa, createServing } from '../../src/runtime/webhooks/self-signed.js';
import { captureLogger, type Body } from '../helpers/e2e-objects.js';
import { E2eSuite } from '../helpers/e2e-suite.js';
import { eventually, skip, TEST_TIMEOUT } from '../helpers/envtest.js';
import { tempDir } from '../helpers/temp-dirs.js';
import { freePort } from '../helpers/free-port.js';

const WIDGETS_CRD = { file: 'examples/widgets/widgets.yaml', group: 'example.com', version: 'v1', plural: 'widgets' };
const suite = new E2eSuite({ crds: [WIDGETS_CRD] });
const WidgetDescriptor = defineResource<Body>({
  group: 'example.com',
  version: 'v1',
  plural: 'widgets',
  kind: 'Widget',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [],
});
const NS = 'default';
const path = (version: string, name?: string) =>
  `/apis/example.com/${version}/namespaces/${NS}/widgets${name === undefined ? '' : `/${name}`}`;

/**
 * `kubectl apply -f <file>` of one object; the exit status and both outputs (kubectl prints the denial
 * on stderr). Asynchronous: the webhook server answering kubectl's requests runs in this process.
 */
async function apply(
  object: Body,
  ...flags: string[]
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const dir = tempDir('kopfgen-apply-');
  try {
    const file = join(dir, 'object.json');
    writeFileSync(file, JSON.stringify(object));
    const child = spawn('kubectl', ['--kubeconfig', suite.cluster.kubeconfig, 'apply', '-f', file, ...flags]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const status = await new Promise<number | null>((done) => child.on('close', done));
    return { status, stdout, stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const widget = (name: string, spec: Body, labels?: Record<string, string>): Body => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: NS, ...(labels ? { labels } : {}) },
  spec,
});

/** A JSON POST to the webhook server, trusting `ca`. */
function post(url: string, ca: string, body: unknown): Promise<Body> {
  return new Promise((done, fail) => {
    const req = request(url, { method: 'POST', ca, headers: { 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => done(JSON.parse(text) as Body));
    });
    req.on('error', fail);
    req.end(JSON.stringify(body));
  });
}

/**
 * GETs `url` every 200 ms for `forMs` from a child process (so a held event loop in this one does not
 * delay the probes): when each was sent (epoch ms), its status and how long it took.
 */
function pollFromAnotherProcess(url: string, forMs: number): Promise<{ at: number; status: number; ms: number }[]> {
  const script = `
    const polls = [];
    const until = Date.now() + ${forMs};
    while (Date.now() < until) {
      const at = Date.now();
      const t = performance.now();
      const status = await fetch(${JSON.stringify(url)}).then(async (r) => (await r.text(), r.status), () => 0);
      polls.push({ at, status, ms: performance.now() - t });
      await new Promise((r) => setTimeout(r, 200));
    }
    console.log(JSON.stringify(polls));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((done, fail) =>
    child.once('exit', (code) => (code === 0 ? done(JSON.parse(out)) : fail(new Error(`the poller exited ${code}`)))),
  );
}

/** The serial number of the certificate the server on `port` serves to a new connection. */
function servedSerial(port: number, ca: string): Promise<string> {
  return new Promise<string>((done, fail) => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername: undefined }, () => {
      done(socket.getPeerX509Certificate()?.serialNumber ?? '');
      socket.end();
    });
    socket.on('error', fail);
  });
}

async function absent(p: string): Promise<boolean> {
  try {
    await suite.get(p);
    return false;
  } catch (error) {
    if (error instanceof KubeError && error.status === 404) return true;
    throw error;
  }
}

describe('webhooks against a real API server', { skip, timeout: 600_000 }, () => {
  suite.hooks();
  const logger = captureLogger();
  let unregister: (() => Promise<void>) | undefined;
  let port = 0;
  let operator: Operator;

  before(async () => {
    if (skip) return;
    // The example as `kopfgen run` loads it: a .ts module through tsx, registering into the default registry.
    const { register } = await import('tsx/esm/api');
    unregister = register();
    await import(pathToFileURL(resolve('examples/widgets/operator.ts')).href);
    // A mutation that deletes annotations named like Object.prototype members.
    defineHandler<Body, never>(WidgetDescriptor, 'scrub').onMutate((ctx) => {
      const annotations = ctx.object.metadata?.annotations;
      if (annotations) for (const key of ['constructor', 'hasOwnProperty']) delete annotations[key];
    });
    port = await freePort();
    operator = suite.track(
      new Operator({
        registry: defaultRegistry,
        client: suite.client,
        logger,
        leaderElection: false,
        webhooks: {
          port,
          host: '127.0.0.1',
          certificates: { selfSigned: true },
          endpoint: { url: `https://127.0.0.1:${port}` },
        },
      }),
    );
  });
  after(async () => {
    await unregister?.();
  });

  it(
    'self-signed from a cold start: the CA Secret, the configurations and the conversion are written',
    { timeout: TEST_TIMEOUT },
    async () => {
      const name = defaultWebhookName(defaultRegistry);
      const secret = `/api/v1/namespaces/default/secrets/${name}-webhook-ca`;
      assert.ok(await absent(secret), 'nothing pre-created');
      await operator.start();
      const stored = await suite.get(secret);
      const ca = Buffer.from(stored.data['ca.crt'], 'base64').toString();
      assert.ok(new X509Certificate(ca).ca);
      const validating = await suite.get(
        `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`,
      );
      assert.equal(
        validating.webhooks[0].clientConfig.url,
        `https://127.0.0.1:${port}/validate/example.com/v1/widgets/sizer`,
      );
      assert.equal(Buffer.from(validating.webhooks[0].clientConfig.caBundle, 'base64').toString(), ca);
      const crd = await suite.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com');
      assert.equal(crd.spec.conversion.strategy, 'Webhook');
      assert.equal(
        crd.spec.conversion.webhook.clientConfig.url,
        `https://127.0.0.1:${port}/convert/widgets.example.com`,
      );
    },
  );

  it(
    'validate denies with the handler message and stores nothing; mutate defaults what is stored',
    { timeout: TEST_TIMEOUT },
    async () => {
      // The API server may take a moment to use the configurations it was just given.
      const denied = await eventually('the validating webhook to deny', async () => {
        const run = await apply(widget('huge', { size: 500 }));
        return run.status !== 0 && run.stderr.includes('size 500 is above 100') ? run : undefined;
      });
      assert.match(
        denied.stderr,
        /admission webhook "sizer\.validate\.widgets\.example\.com" denied the request: size 500 is above 100/,
      );
      assert.ok(await absent(path('v1', 'huge')));
      assert.ok(
        logger.lines.some((l) => l.includes('admission denied: validate sizer on CREATE widgets default/huge')),
      );

      assert.equal((await apply(widget('plain', { size: 3 }))).status, 0);
      assert.equal((await suite.get(path('v1', 'plain'))).spec.color, 'grey');
    },
  );

  it('--dry-run=server runs both webhooks and stores nothing', { timeout: TEST_TIMEOUT }, async () => {
    const dry = await apply(widget('dry', { size: 4 }), '--dry-run=server', '-o', 'json');
    assert.equal(dry.status, 0, dry.stderr);
    assert.equal(JSON.parse(dry.stdout).spec.color, 'grey', 'the mutation ran');
    assert.ok(await absent(path('v1', 'dry')));
    const deniedDry = await apply(widget('dry', { size: 400 }), '--dry-run=server');
    assert.notEqual(deniedDry.status, 0);
    assert.match(deniedDry.stderr, /size 400 is above 100/);
    assert.ok(await absent(path('v1', 'dry')));
  });

  it(
    'created as v1alpha1: read back as v1 converted and as v1alpha1 unchanged',
    { timeout: TEST_TIMEOUT },
    async () => {
      const alpha = {
        apiVersion: 'example.com/v1alpha1',
        kind: 'Widget',
        metadata: { name: 'alpha', namespace: NS, annotations: { note: 'kept' } },
        spec: { width: 7, colour: 'red' },
      };
      const run = await apply(alpha);
      assert.equal(run.status, 0, run.stderr);
      const v1 = await suite.get(path('v1', 'alpha'));
      assert.equal(v1.apiVersion, 'example.com/v1');
      assert.deepEqual(v1.spec, { size: 7, color: 'red' });
      const back = await suite.get(path('v1alpha1', 'alpha'));
      assert.equal(back.apiVersion, 'example.com/v1alpha1');
      assert.deepEqual(back.spec, alpha.spec);
      assert.equal(back.metadata.annotations.note, 'kept');
      assert.equal(back.metadata.uid, v1.metadata.uid, 'metadata kept through the conversion');
    },
  );

  it('a list of 500 widgets reads as v1alpha1; 500 objects convert in one request', { timeout: 300_000 }, async () => {
    const names = Array.from({ length: 500 }, (_, i) => `many-${i}`);
    for (let i = 0; i < names.length; i += 25)
      await Promise.all(
        names.slice(i, i + 25).map((name, j) =>
          suite.client.request('POST', path('v1'), {
            body: widget(name, { size: 1 + ((i + j) % 90), shape: 'round' }),
          }),
        ),
      );
    const list = await suite.client.request<{ items: Body[] }>('GET', path('v1alpha1'));
    const many = list.items.filter((item) => String(item.metadata.name).startsWith('many-'));
    assert.equal(many.length, 500);
    assert.ok(many.every((item) => item.apiVersion === 'example.com/v1alpha1' && item.spec.width >= 1));
    assert.ok(many.every((item) => item.metadata.annotations['widgets.example.com/shape'] === 'round'));
    // kube-apiserver 1.20 converts a list read from etcd item by item (a review per object); the same 500
    // objects in one ConversionReview, as an API server may send them, posted to the operator's /convert:
    const sizes = logger.lines.flatMap(
      (l) => /converted (\d+) widgets\.example\.com to example\.com\/v1alpha1/.exec(l)?.[1] ?? [],
    );
    assert.ok(sizes.length >= 500, `${sizes.length} reviews answered for the list`);
    const stored = await suite.client.request<{ items: Body[] }>('GET', path('v1'));
    const objects = stored.items.filter((item) => String(item.metadata.name).startsWith('many-'));
    const ca = Buffer.from(
      (await suite.get(`/api/v1/namespaces/default/secrets/${defaultWebhookName(defaultRegistry)}-webhook-ca`)).data[
        'ca.crt'
      ],
      'base64',
    ).toString();
    const review = await post(`https://127.0.0.1:${port}/convert/widgets.example.com`, ca, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { uid: 'list-500', desiredAPIVersion: 'example.com/v1alpha1', objects },
    });
    assert.equal(review.response.uid, 'list-500');
    assert.deepEqual(review.response.result, { status: 'Success' });
    assert.equal(review.response.convertedObjects.length, 500);
    review.response.convertedObjects.forEach((o: Body, i: number) => {
      assert.equal(o.metadata.uid, objects[i].metadata.uid);
      assert.deepEqual(o.spec, { width: objects[i].spec.size, colour: 'grey' });
    });
  });

  it(
    'a mutation deleting annotations named constructor and hasOwnProperty: gone from the stored object',
    { timeout: TEST_TIMEOUT },
    async () => {
      const object = widget('protos', { size: 2 });
      object.metadata.annotations = { constructor: 'x', hasOwnProperty: 'y', keep: 'z' };
      await suite.client.request('POST', path('v1'), { body: object });
      assert.deepEqual((await suite.get(path('v1', 'protos'))).metadata.annotations, { keep: 'z' });
    },
  );

  it(
    'a Widget without spec, as v1 and as v1alpha1: refused naming spec, no handler called',
    { timeout: TEST_TIMEOUT },
    async () => {
      for (const apiVersion of ['example.com/v1', 'example.com/v1alpha1']) {
        // kubectl's own schema check is off, as a client without one would send it.
        const run = await apply(
          { apiVersion, kind: 'Widget', metadata: { name: 'bare', namespace: NS } },
          '--validate=false',
        );
        assert.notEqual(run.status, 0);
        assert.match(run.stderr, /spec: Required value/, `${apiVersion}: ${run.stderr}`);
        assert.doesNotMatch(run.stderr, /Cannot read properties|handler sizer failed|\n\s+at /);
      }
      assert.ok(await absent(path('v1', 'bare')));
      assert.ok(!logger.lines.some((l) => /handler sizer failed|Cannot read properties/.test(l)));
    },
  );

  it(
    'a handler id create_fn: its configuration in Service mode applies (server-side dry run); URL mode uses the same path',
    { timeout: TEST_TIMEOUT },
    async () => {
      const registry = new Registry();
      defineHandler<Body, never>(WidgetDescriptor, 'create_fn').onValidate(() => undefined, { registry });
      const service = { service: { name: 'op', namespace: NS } };
      const [config] = webhookConfigurations(registry.webhooks, 'e2e-create-fn', service, { caBundle: 'Y2E=' });
      await suite.client.request(
        'POST',
        '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations?dryRun=All',
        { body: config },
      );
      const [inUrlMode] = webhookConfigurations(registry.webhooks, 'e2e-create-fn', { url: 'https://127.0.0.1:1' });
      const url = String(Object(Object(Object(inUrlMode.webhooks)[0]).clientConfig).url);
      assert.equal(new URL(url).pathname, Object(Object(Object(config.webhooks)[0]).clientConfig).service.path);
      assert.equal(new URL(url).pathname, '/validate/example.com/v1/widgets/create-fn');
    },
  );

  it(
    'a validator that spins the CPU for 15 s: /healthz answers meanwhile within its bound, and the write goes through',
    { timeout: TEST_TIMEOUT },
    async () => {
      const registry = new Registry();
      const spins: { from: number; to: number }[] = [];
      defineHandler<Body, never>(WidgetDescriptor, 'spin').onValidate(
        () => {
          // A synchronous loop that never awaits: it holds this process's event loop for 15 s.
          const from = Date.now();
          while (Date.now() - from < 15_000);
          spins.push({ from, to: Date.now() });
        },
        { registry, labels: { load: 'spin' }, timeoutSeconds: 30 },
      );
      const spinPort = await freePort();
      const spinner = suite.track(
        new Operator({
          registry,
          client: suite.client,
          logger,
          leaderElection: false,
          health: { port: 0, host: '127.0.0.1' },
          webhooks: {
            port: spinPort,
            host: '127.0.0.1',
            certificates: { selfSigned: true, inMemory: true },
            endpoint: { url: `https://127.0.0.1:${spinPort}` },
            name: 'e2e-spin',
          },
        }),
      );
      await spinner.start();
      try {
        // The probes come from another process: this one's loop is the one held.
        const poller = pollFromAnotherProcess(`${spinner.health?.url ?? ''}/healthz`, 35_000);
        await new Promise((r) => setTimeout(r, 2_000));
        let attempt = 0;
        const written = await eventually('the spinning validator to be called', async () => {
          const run = await apply(widget(`spun-${attempt++}`, { size: 2 }, { load: 'spin' }));
          return spins.length > 0 ? run : undefined;
        });
        assert.equal(written.status, 0, written.stderr);
        const polls = await poller;
        const [spin] = spins;
        const during = polls.filter((p) => p.at >= spin.from && p.at + p.ms <= spin.to + 1_000);
        assert.ok(during.length >= 10, `${during.length} probes during the 15 s spin`);
        assert.deepEqual([...new Set(polls.map((p) => p.status))], [200]);
        const worst = Math.max(...polls.map((p) => p.ms));
        // The stated bound is 0.5 s (the wait for the loop's own answer); 2 s leaves a loaded machine its margin.
        assert.ok(worst < 2_000, `/healthz answered in ${worst.toFixed(0)} ms at worst while the loop was held`);
        process.stderr.write(
          `cpu-bound validator: ${during.length} /healthz probes during a 15 s spin, worst ${worst.toFixed(0)} ms\n`,
        );
      } finally {
        await spinner.stop();
      }
    },
  );

  it(
    'four concurrent 40 MB ConversionReviews to the operator process: peak RSS within 300 MB, each answered or refused retryably, admission answered meanwhile',
    { timeout: 300_000 },
    async () => {
      const dir = tempDir('kopfgen-e2e-memory-');
      const ca = await createCa('e2e memory CA');
      const serving = await createServing(ca, ['127.0.0.1']);
      writeFileSync(join(dir, 'tls.crt'), serving.cert);
      writeFileSync(join(dir, 'tls.key'), serving.key);
      writeFileSync(join(dir, 'ca.crt'), ca.cert);
      const childPort = await freePort();
      const script =
        "import { runOperator } from './dist/src/cli/run.js'; process.exitCode = await runOperator(process.argv[1], JSON.parse(process.env.RUN_OPTIONS));";
      const child = spawn(
        process.execPath,
        ['--input-type=module', '-e', script, 'dist/examples/widgets/operator.js'],
        {
          env: {
            ...process.env,
            KUBECONFIG: suite.cluster.kubeconfig,
            // The operator keeps its last good certificate pair under the temporary directory: the test's own.
            TMPDIR: dir,
            RUN_OPTIONS: JSON.stringify({
              namespace: 'kopfgen-memory',
              webhookPort: childPort,
              webhookHost: '127.0.0.1',
              webhookCertDir: dir,
              leaderElectionId: 'kopfgen-memory',
            }),
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      try {
        await eventually('the operator process to serve webhooks', async () =>
          output.includes('serving webhooks on') ? true : undefined,
        );
        const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) / 1024;
        const before = hwm();
        // About 40 MB: Widgets as the API server would send them, to convert to v1alpha1.
        const objects = Array.from({ length: 118_000 }, (_, n) => ({
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: {
            name: `widget-${n}`,
            namespace: NS,
            uid: `0f1e2d3c-4b5a-6978-8796-${String(n).padStart(12, '0')}`,
            resourceVersion: String(1000 + n),
            generation: 1,
            creationTimestamp: '2026-12-06T02:00:00Z',
            labels: { app: 'widgets' },
          },
          spec: { size: (n % 100) + 1, color: 'grey', shape: 'round' },
          status: { sizer: { phase: 'Made' } },
        }));
        const body = Buffer.from(
          JSON.stringify({
            apiVersion: 'apiextensions.k8s.io/v1',
            kind: 'ConversionReview',
            request: { uid: 'big', desiredAPIVersion: 'example.com/v1alpha1', objects },
          }),
        );
        assert.ok(body.length > 40e6, `${body.length} bytes`);
        const send = (route: string, payload: Buffer) =>
          new Promise<{ status: number; text: string; ms: number }>((done, fail) => {
            const started = Date.now();
            const req = request(
              `https://127.0.0.1:${childPort}${route}`,
              {
                method: 'POST',
                ca: ca.cert,
                agent: false,
                headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length },
              },
              (res) => {
                const chunks: Buffer[] = [];
                res.on('data', (c: Buffer) => chunks.push(c));
                res.on('end', () =>
                  done({
                    status: res.statusCode ?? 0,
                    text: Buffer.concat(chunks).toString(),
                    ms: Date.now() - started,
                  }),
                );
              },
            );
            req.on('error', fail);
            req.end(payload);
          });
        let loading = true;
        const admissions: number[] = [];
        const admission = Buffer.from(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            request: {
              uid: 'a',
              operation: 'CREATE',
              object: widget('small', { size: 3 }),
              userInfo: { username: 'e2e' },
            },
          }),
        );
        const meanwhile = (async () => {
          while (loading) {
            const answer = await send('/validate/example.com/v1/widgets/sizer', admission);
            assert.equal(answer.status, 200);
            admissions.push(answer.ms);
            await new Promise((r) => setTimeout(r, 250));
          }
        })();
        // The four reviews from a process of their own: their TLS and parsing would delay this one's probes.
        writeFileSync(join(dir, 'review.json'), body);
        const sender = spawn(
          process.execPath,
          [
            'test/fixtures/webhooks/post-reviews.mjs',
            join(dir, 'review.json'),
            `https://127.0.0.1:${childPort}/convert/widgets.example.com`,
            '4',
            join(dir, 'ca.crt'),
          ],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        let sent = '';
        sender.stdout.on('data', (d: Buffer) => (sent += d.toString()));
        await new Promise((r) => sender.once('exit', r));
        const answers: { status: number; result?: unknown; count?: number; spec7?: unknown }[] = sent
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
        loading = false;
        await meanwhile;
        const peak = hwm();
        for (const answer of answers) {
          assert.ok([200, 429, 503].includes(answer.status), `status ${answer.status}`);
          if (answer.status === 200)
            assert.deepEqual(answer, {
              status: 200,
              result: { status: 'Success' },
              count: objects.length,
              spec7: { width: 8, colour: 'grey' },
            });
        }
        assert.ok(answers.some((a) => a.status === 200));
        assert.ok(peak <= 300, `peak RSS ${peak.toFixed(0)} MB (${before.toFixed(0)} MB before)`);
        // The admission requests were answered while the conversions ran: 339 ms at worst on a quiet machine
        // (printed below); the bound leaves a loaded one a margin (1.7 s was seen at a load average of 24)
        // and stays well below the API server's 10 s timeout.
        assert.ok(admissions.length >= 3, `${admissions.length} admission requests`);
        assert.ok(Math.max(...admissions) <= 5_000, `admission answered in ${Math.max(...admissions)} ms at worst`);
        process.stderr.write(
          `webhook memory: peak RSS ${peak.toFixed(0)} MB (${before.toFixed(0)} MB before), statuses ${answers.map((a) => a.status).join(' ')}, admission worst ${Math.max(...admissions)} ms over ${admissions.length}\n`,
        );
      } finally {
        child.kill('SIGTERM');
        if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it(
    'with the webhook server stopped, failurePolicy Ignore lets writes through and Fail refuses them; files rotate without a restart',
    { timeout: TEST_TIMEOUT },
    async () => {
      const dir = tempDir('kopfgen-e2e-certs-');
      try {
        const ca = await createCa('e2e CA');
        const first = await createServing(ca, ['127.0.0.1']);
        writeFileSync(join(dir, 'tls.crt'), first.cert);
        writeFileSync(join(dir, 'tls.key'), first.key);
        const registry = new Registry();
        const gate = defineHandler<Body, never>(WidgetDescriptor, 'gate');
        gate.onValidate(() => undefined, { registry, labels: { tier: 'strict' }, failurePolicy: 'Fail' });
        defineHandler(gate.resource, 'lenient').onValidate(() => undefined, {
          registry,
          labels: { tier: 'lenient' },
          failurePolicy: 'Ignore',
        });
        const gatePort = await freePort();
        const endpoint = { url: `https://127.0.0.1:${gatePort}` };
        const gatesOperator = () =>
          suite.track(
            new Operator({
              registry,
              client: suite.client,
              logger,
              leaderElection: false,
              health: { port: 0, host: '127.0.0.1' },
              webhooks: {
                port: gatePort,
                host: '127.0.0.1',
                certificates: { dir, reloadSeconds: 0.1, keptDir: join(dir, 'kept') },
                endpoint,
                name: 'e2e-gates',
              },
            }),
          );
        let gates = gatesOperator();
        await gates.start();
        // Files mode: the configurations come from manifests (cert-manager injects the caBundle); here, the test writes them.
        for (const object of webhookConfigurations(registry.webhooks, 'e2e-gates', endpoint, {
          caBundle: Buffer.from(ca.cert).toString('base64'),
        }))
          await suite.client.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
            body: object,
          });
        await eventually('the strict webhook to be called', async () =>
          (await apply(widget('strict-up', { size: 2 }, { tier: 'strict' }))).status === 0 ? true : undefined,
        );

        const second = await createServing(ca, ['127.0.0.1']);
        writeFileSync(join(dir, 'tls.key'), second.key);
        writeFileSync(join(dir, 'tls.crt'), second.cert);
        const want = new X509Certificate(second.cert).serialNumber;
        await eventually('the rotated certificate to be served', async () =>
          (await servedSerial(gatePort, ca.cert)) === want ? true : undefined,
        );
        const rotated = await apply(widget('strict-rotated', { size: 2 }, { tier: 'strict' }));
        assert.equal(rotated.status, 0, rotated.stderr);

        // A rotation to a broken pair (a new key beside the old certificate: a rotation half written)
        // while the API server calls the webhook: a warning, the previous certificate served, no restart.
        const calls = (async () => {
          const runs = [];
          for (let n = 0; n < 4; n++)
            runs.push(await apply(widget(`strict-broken-${n}`, { size: 2 }, { tier: 'strict' })));
          return runs;
        })();
        const mark = logger.lines.length;
        writeFileSync(join(dir, 'tls.key'), (await createServing(ca, ['127.0.0.1'])).key);
        await eventually('the broken rotation to be a warning', async () =>
          logger.lines
            .slice(mark)
            .some((l) => /WARN.*rotated certificate in .* does not load, the previous one is served/.test(l))
            ? true
            : undefined,
        );
        for (const run of await calls) assert.equal(run.status, 0, run.stderr);
        const probe = async (what: string) => {
          const res = await fetch(`${gates.health?.url ?? ''}/${what}`);
          return { status: res.status, body: await res.text() };
        };
        assert.deepEqual(await probe('healthz'), { status: 200, body: 'ok\n' }, 'the liveness probe does not restart');
        assert.match((await probe('metrics')).body, /^kopfgen_webhook_certificate_rotation_failures [1-9]\d*$/m);
        assert.equal(await servedSerial(gatePort, ca.cert), want, 'the previous certificate is served');
        assert.equal((await apply(widget('strict-broken-after', { size: 2 }, { tier: 'strict' }))).status, 0);

        // A restart while the files still hold the broken pair serves the last good one (kept in keptDir).
        await gates.stop();
        const warnings = logger.lines.length;
        gates = gatesOperator();
        await gates.start();
        assert.ok(
          logger.lines
            .slice(warnings)
            .some((l) => /WARN.*cannot be served.*serving the last certificate that loaded \(kept in /.test(l)),
        );
        assert.equal(await servedSerial(gatePort, ca.cert), want, 'the kept certificate is served after a restart');
        assert.equal((await probe('healthz')).status, 200);
        const restarted = await apply(widget('strict-restarted', { size: 2 }, { tier: 'strict' }));
        assert.equal(restarted.status, 0, restarted.stderr);

        await gates.stop();
        const refused = await apply(widget('strict-down', { size: 2 }, { tier: 'strict' }));
        assert.notEqual(refused.status, 0);
        assert.match(refused.stderr, /failed calling webhook "gate\.validate\.widgets\.example\.com"/);
        assert.ok(await absent(path('v1', 'strict-down')));
        const through = await apply(widget('lenient-down', { size: 2 }, { tier: 'lenient' }));
        assert.equal(through.status, 0, through.stderr);
        assert.equal((await suite.get(path('v1', 'lenient-down'))).spec.size, 2);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
