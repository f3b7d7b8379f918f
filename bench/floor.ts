/**
 * The runtime's floor: the cheapest client that makes the writes the runtime makes. What the
 * runtime writes for one object is captured from the runtime itself (`captureWrites`: its
 * `Operator`, in this process, over a client that records every write it sends while it handles one
 * object), so the floor follows whatever the runtime's patch builders produce. The floor itself
 * (`node floor.js --run …`, a process of its own like the operator's) lists and watches the
 * namespace as the runtime does and sends, for each object it sees for the first time, those
 * writes in the same order with the object's name, uid and resourceVersions put in: over one
 * keep-alive agent (the runtime's HTTP layer, `KubeClient`), `concurrency` objects at once, no
 * queue, store, decisions, records or handler.
 */
import { readFileSync } from 'node:fs';
import { defineHandler, Operator, Registry, type ResourceDescriptor } from '../src/runtime/index.js';
import type { KubernetesObject } from '../src/runtime/api/kube-types.js';
import { createLogger } from '../src/runtime/effects/log.js';
import { KubeClient, resourcePath, type RequestOptions } from '../src/runtime/kube/client.js';
import { readKubeconfig } from '../src/runtime/kube/kubeconfig.js';
import { watchResource } from '../src/runtime/watcher.js';

/** One write as the runtime sent it, its object-specific parts as `{{name}}`, `{{uid}}`, `{{rv<n>}}`. */
export interface WriteTemplate {
  method: string;
  path: string;
  contentType?: string;
  body: string;
}

const CALIBRATION = 'kopfgen-floor-calibration';

/** A client recording the writes to one object's paths, with the resourceVersion each answer carries. */
class RecordingClient extends KubeClient {
  readonly writes: { method: string; path: string; contentType?: string; body: string; answered?: string }[] = [];

  constructor(
    config: KubeClient['config'],
    private readonly objectPath: string,
  ) {
    super(config);
  }

  /**
   * The operator writes through its term's fenced client (`KubeClient.fenced`), a client of its own:
   * the calibration runs without leader election, so its term's fence never closes, and the recording
   * client stands for it.
   */
  override fenced(): KubeClient {
    return this;
  }

  override async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<T> {
    const answer = await super.request<T>(method, path, options);
    if (method !== 'GET' && (path === this.objectPath || path.startsWith(`${this.objectPath}/`))) {
      const rv = (answer as KubernetesObject | undefined)?.metadata?.resourceVersion;
      this.writes.push({
        method,
        path,
        contentType: options.contentType,
        body: JSON.stringify(options.body),
        answered: rv,
      });
    }
    return answer;
  }
}

/**
 * What the runtime writes for one object that a create handler returning `{ phase: 'Done' }`
 * handles: one object created in `namespace` and handled by the runtime's own `Operator`.
 */
export async function captureWrites(
  client: KubeClient,
  resource: ResourceDescriptor,
  namespace: string,
): Promise<WriteTemplate[]> {
  const created = await client.request<KubernetesObject>('POST', resourcePath(resource, namespace), {
    body: {
      apiVersion: `${resource.group}/${resource.version}`,
      kind: resource.kind,
      metadata: { name: CALIBRATION },
      spec: { image: 'nginx' },
    },
  });
  const uid = created.metadata?.uid ?? '';
  const objectPath = resourcePath(resource, namespace, CALIBRATION);
  const recording = new RecordingClient(client.config, objectPath);
  const registry = new Registry();
  defineHandler(resource, 'myapp').onCreate(() => ({ phase: 'Done' }), { registry });
  const operator = new Operator({
    registry,
    namespace,
    client: recording,
    leaderElection: false,
    concurrency: 1,
    logger: createLogger({ level: 'error' }),
  });
  await operator.start();
  const deadline = Date.now() + 60_000;
  const done = async () => {
    const now = await client.request<KubernetesObject>('GET', objectPath);
    return (now.status as { myapp?: { phase?: string } } | undefined)?.myapp?.phase === 'Done';
  };
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('floor: the runtime did not handle the calibration object in 60 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  // Whatever the runtime still writes after the status (records) is part of the object's writes.
  await new Promise((r) => setTimeout(r, 1000));
  await operator.stop();
  recording.close();
  await client.request('DELETE', objectPath);
  const versions = [created.metadata?.resourceVersion, ...recording.writes.map((w) => w.answered)];
  const placeholders = (text: string) => {
    let out = text.split(objectPath).join('{{path}}').split(`"${CALIBRATION}"`).join('"{{name}}"');
    out = out.split(`"${uid}"`).join('"{{uid}}"');
    versions.forEach((rv, i) => {
      if (rv) out = out.split(`"${rv}"`).join(`"{{rv${i}}}"`);
    });
    return out;
  };
  return recording.writes.map((w) => ({
    method: w.method,
    path: placeholders(w.path),
    contentType: w.contentType,
    body: placeholders(w.body),
  }));
}

/** A template's write for one object: its path, name, uid and the resourceVersions so far put in. */
function fill(template: WriteTemplate, object: KubernetesObject, path: string, versions: string[]) {
  const put = (text: string) =>
    text
      .split('{{path}}')
      .join(path)
      .split('{{name}}')
      .join(object.metadata?.name ?? '')
      .split('{{uid}}')
      .join(object.metadata?.uid ?? '')
      .replace(/\{\{rv(\d+)\}\}/g, (_, i: string) => versions[Number(i)] ?? '');
  return { path: put(template.path), body: JSON.parse(put(template.body)) as unknown };
}

/**
 * `node floor.js --run <group> <version> <plural> <kind> <namespace> <templates.json> <concurrency>`:
 * the floor until SIGTERM, then one JSON line with its peak RSS and CPU seconds (as the operator's).
 */
async function runFloor(argv: string[]): Promise<void> {
  const [group, version, plural, kind, namespace, templatesFile, concurrency] = argv;
  const templates = JSON.parse(readFileSync(templatesFile, 'utf8')) as WriteTemplate[];
  const read = readKubeconfig();
  if ('problem' in read) throw new Error(read.problem);
  const client = new KubeClient(read.config);
  const resource: ResourceDescriptor = {
    group,
    version,
    plural,
    kind,
    scope: 'Namespaced',
    statusSubresource: true,
    printerColumns: [],
  };
  const seen = new Set<string>();
  const waiting: KubernetesObject[] = [];
  let running = 0;
  const next = () => {
    while (running < Number(concurrency) && waiting.length > 0) {
      const object = waiting.shift();
      if (!object) break;
      running++;
      void handle(object).finally(() => {
        running--;
        next();
      });
    }
  };
  const handle = async (object: KubernetesObject) => {
    const path = resourcePath(resource, namespace, object.metadata?.name);
    const versions = [object.metadata?.resourceVersion ?? ''];
    for (const template of templates) {
      const write = fill(template, object, path, versions);
      for (let attempt = 1; ; attempt++) {
        try {
          const answer = await client.request<KubernetesObject>(template.method, write.path, {
            body: write.body,
            contentType: template.contentType,
          });
          versions.push(answer.metadata?.resourceVersion ?? '');
          break;
        } catch (error) {
          if (attempt >= 10) throw error;
          await new Promise((r) => setTimeout(r, Math.min(5000, 100 * 2 ** attempt)));
        }
      }
    }
  };
  const abort = new AbortController();
  const consumer = {
    upsert(body: KubernetesObject) {
      const uid = body.metadata?.uid;
      if (!uid || seen.has(uid)) return;
      seen.add(uid);
      waiting.push(body);
      next();
    },
    delete() {},
    listed() {},
  };
  process.on('SIGTERM', () => {
    abort.abort();
    const usage = process.resourceUsage();
    const cpuSeconds = (usage.userCPUTime + usage.systemCPUTime) / 1e6;
    process.stdout.write(`${JSON.stringify({ known: seen.size, peakRssMB: usage.maxRSS / 1024, cpuSeconds })}\n`);
    process.exit(0);
  });
  process.stdout.write('ready\n');
  await watchResource(client, resource, consumer, {
    namespace,
    signal: abort.signal,
    logger: createLogger({ level: 'error' }),
  });
}

if (process.argv[2] === '--run') await runFloor(process.argv.slice(3));
