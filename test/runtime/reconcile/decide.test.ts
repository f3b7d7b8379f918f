import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ABSENT, defineHandler, defineResource, Registry } from '../../../src/runtime/index.js';
import {
  FINALIZER,
  LAST_HANDLED_ANNOTATION,
  buildEssence,
  encodeEssence,
} from '../../../src/runtime/reconcile/essence.js';
import { applyMergePatch } from '../../../src/runtime/json.js';
import { decide, withCompletion, type Step } from '../../../src/runtime/reconcile/decide.js';
import { encodeProgress, progressAnnotation, type ProgressRecord } from '../../../src/runtime/reconcile/progress.js';
import { DEFAULT_MARKS, resolveMarks, type Marks } from '../../../src/runtime/reconcile/marks.js';

const resource = defineResource<{ spec: { image: string; replicas?: number } }>({
  group: 'example.com',
  version: 'v1',
  plural: 'myresources',
  kind: 'MyResource',
  scope: 'Namespaced',
  statusSubresource: true,
  printerColumns: [],
});
const now = new Date('2026-01-01T00:00:00Z');

function registry(setup: (r: Registry) => void): Registry {
  const r = new Registry();
  setup(r);
  return r;
}
const noop = () => undefined;

function object(
  extra: {
    annotations?: Record<string, string>;
    finalizers?: string[];
    deleting?: boolean;
    spec?: Record<string, unknown>;
  } = {},
): Record<string, unknown> {
  return {
    apiVersion: 'example.com/v1',
    kind: 'MyResource',
    metadata: {
      name: 'a',
      namespace: 'default',
      uid: 'u1',
      resourceVersion: '7',
      generation: 1,
      creationTimestamp: '2026-01-01T00:00:00Z',
      annotations: extra.annotations ?? {},
      finalizers: extra.finalizers ?? [],
      ...(extra.deleting ? { deletionTimestamp: '2026-01-01T00:00:01Z' } : {}),
    },
    spec: extra.spec ?? { image: 'nginx' },
    status: { myapp: { phase: 'Running' } },
  };
}

/** The same object after its cause was handled: the essence stored as kopf stores it. */
function handled(body: Record<string, unknown>): Record<string, unknown> {
  return applyMergePatch(body, {
    metadata: { annotations: { [LAST_HANDLED_ANNOTATION]: encodeEssence(buildEssence(body)) } },
  }) as Record<string, unknown>;
}

function run(step: Step): string {
  return step.kind === 'run' ? `${step.cause}:${step.key}` : step.kind;
}

describe('causes', () => {
  const handlers = registry((r) => {
    const h = defineHandler(resource, 'myapp');
    h.onCreate(noop, { registry: r });
    h.onUpdate(noop, { registry: r });
    h.onResume(noop, { registry: r });
    defineHandler(resource, 'scale').onField('spec.replicas', noop, { registry: r });
  }).handlers;

  it('create: never handled before', () => {
    assert.equal(run(decide({ body: object(), handlers, now, initial: true, marks: DEFAULT_MARKS })), 'create:myapp');
  });
  it('create runs field handlers whose field is set, not resume handlers', () => {
    const body = object({ spec: { image: 'nginx', replicas: 2 } });
    const first = decide({ body, handlers, now, initial: true, marks: DEFAULT_MARKS });
    const done = { started: now.toISOString(), purpose: 'create', retries: 1, success: true } as ProgressRecord;
    const after = applyMergePatch(body, {
      metadata: { annotations: { [progressAnnotation('myapp')]: encodeProgress(done) } },
    }) as Record<string, unknown>;
    assert.equal(run(first), 'create:myapp');
    const second = decide({ body: after, handlers, now, initial: true, marks: DEFAULT_MARKS });
    assert.equal(run(second), 'create:scale.field.spec.replicas');
    assert.deepEqual(second.kind === 'run' && second.diff, [['add', [], undefined, 2]]);
  });
  it('update: the essence changed; the field handler only when its field changed', () => {
    const body = handled(object());
    const changed = applyMergePatch(body, { spec: { image: 'httpd' } }) as Record<string, unknown>;
    const step = decide({ body: changed, handlers, now, initial: false, marks: DEFAULT_MARKS });
    assert.equal(run(step), 'update:myapp');
    assert.deepEqual(step.kind === 'run' && step.diff, [['change', ['spec', 'image'], 'nginx', 'httpd']]);
    const scaled = applyMergePatch(body, { spec: { replicas: 3 } }) as Record<string, unknown>;
    const done = { started: now.toISOString(), purpose: 'update', retries: 1, success: true } as ProgressRecord;
    const afterMyapp = applyMergePatch(scaled, {
      metadata: { annotations: { [progressAnnotation('myapp')]: encodeProgress(done) } },
    }) as Record<string, unknown>;
    assert.equal(
      run(decide({ body: afterMyapp, handlers, now, initial: false, marks: DEFAULT_MARKS })),
      'update:scale.field.spec.replicas',
    );
  });
  it("a field handler's old/new filters (kopf's old=/new=): due only for a change between the values given", () => {
    const scale = (options: Record<string, unknown>) =>
      registry((r) => defineHandler(resource, 'scale').onField('spec.replicas', noop, { registry: r, ...options }))
        .handlers;
    const body = handled(object({ spec: { image: 'nginx', replicas: 1 } }));
    const to = (replicas: number) => applyMergePatch(body, { spec: { replicas } }) as Record<string, unknown>;
    const cases: { name: string; options: Record<string, unknown>; body: Record<string, unknown>; want: string }[] = [
      { name: 'old and new match', options: { old: 1, new: 2 }, body: to(2), want: 'update:scale.field.spec.replicas' },
      { name: 'new differs', options: { old: 1, new: 2 }, body: to(3), want: 'patch' },
      { name: 'old differs', options: { old: 5 }, body: to(2), want: 'patch' },
      {
        name: 'a predicate of new',
        options: { new: (v: number) => v > 2 },
        body: to(3),
        want: 'update:scale.field.spec.replicas',
      },
      { name: 'old ABSENT on a change from a value', options: { old: ABSENT }, body: to(2), want: 'patch' },
    ];
    for (const c of cases) {
      const step = decide({ body: c.body, handlers: scale(c.options), now, initial: false, marks: DEFAULT_MARKS });
      assert.equal(run(step), c.want, c.name);
    }
  });
  it('resume: first sight of an unchanged object; nothing on later sights', () => {
    const body = handled(object());
    assert.equal(run(decide({ body, handlers, now, initial: true, marks: DEFAULT_MARKS })), 'resume:myapp.resume');
    assert.equal(decide({ body, handlers, now, initial: false, marks: DEFAULT_MARKS }).kind, 'none');
  });
  it("the operator's own writes (status, progress, finalizer, resourceVersion) are no change", () => {
    const body = handled(object());
    const own = applyMergePatch(body, {
      status: { myapp: { phase: 'Other' } },
      metadata: { resourceVersion: '99', generation: 5, annotations: { [progressAnnotation('x')]: '{}' } },
    }) as Record<string, unknown>;
    assert.equal(
      decide({
        body: own,
        handlers: handlers.filter((h) => h.cause !== 'delete'),
        now,
        initial: false,
        marks: DEFAULT_MARKS,
      }).kind,
      'none',
    );
  });
  it('completing a cause stores the essence and purges progress', () => {
    const done = { started: now.toISOString(), purpose: 'create', retries: 1, success: true } as ProgressRecord;
    const body = object({ annotations: { [progressAnnotation('myapp')]: encodeProgress(done) } });
    const step = decide({
      body,
      handlers: handlers.filter((h) => h.cause === 'create'),
      now,
      initial: false,
      marks: DEFAULT_MARKS,
    });
    assert.equal(step.kind, 'patch');
    const annotations = step.kind === 'patch' ? step.patch.metadata?.annotations : undefined;
    assert.equal(annotations?.[progressAnnotation('myapp')], null);
    assert.deepEqual(JSON.parse(annotations?.[LAST_HANDLED_ANNOTATION] ?? ''), buildEssence(body));
    assert.equal(step.kind === 'patch' && step.completes, 'create');
  });
});

describe('finalizer', () => {
  const withDelete = registry((r) => {
    defineHandler(resource, 'myapp').onCreate(noop, { registry: r });
    defineHandler(resource, 'cleanup').onDelete(noop, { registry: r });
  }).handlers;
  const withoutDelete = withDelete.filter((h) => h.cause !== 'delete');

  it('is added first, with the resourceVersion, while delete handlers exist', () => {
    const step = decide({
      body: object({ finalizers: ['other'] }),
      handlers: withDelete,
      now,
      initial: true,
      marks: DEFAULT_MARKS,
    });
    assert.deepEqual(step.kind === 'patch' && step.patch.metadata, {
      finalizers: ['other', FINALIZER],
      resourceVersion: '7',
    });
  });
  it('is removed when no delete handler exists', () => {
    const step = decide({
      body: object({ finalizers: [FINALIZER, 'other'] }),
      handlers: withoutDelete,
      now,
      initial: true,
      marks: DEFAULT_MARKS,
    });
    assert.deepEqual(step.kind === 'patch' && step.patch.metadata?.finalizers, ['other']);
  });
  it('delete: delete handlers run while the finalizer holds the object, then it is removed', () => {
    const body = object({ finalizers: [FINALIZER], deleting: true });
    assert.equal(
      run(decide({ body, handlers: withDelete, now, initial: false, marks: DEFAULT_MARKS })),
      'delete:cleanup',
    );
    const done = { started: now.toISOString(), purpose: 'delete', retries: 1, success: true } as ProgressRecord;
    const after = applyMergePatch(body, {
      metadata: { annotations: { [progressAnnotation('cleanup')]: encodeProgress(done) } },
    }) as Record<string, unknown>;
    const step = decide({ body: after, handlers: withDelete, now, initial: false, marks: DEFAULT_MARKS });
    assert.deepEqual(step.kind === 'patch' && step.patch.metadata?.finalizers, []);
    assert.equal(step.kind === 'patch' && step.completes, 'delete');
  });
  it('a permanently failed delete handler also releases the object', () => {
    const failed = {
      started: now.toISOString(),
      purpose: 'delete',
      retries: 1,
      failure: true,
      message: 'no',
    } as ProgressRecord;
    const body = object({
      finalizers: [FINALIZER],
      deleting: true,
      annotations: { [progressAnnotation('cleanup')]: encodeProgress(failed) },
    });
    const step = decide({ body, handlers: withDelete, now, initial: false, marks: DEFAULT_MARKS });
    assert.deepEqual(step.kind === 'patch' && step.patch.metadata?.finalizers, []);
  });
  it('deleting without our finalizer: nothing to do', () => {
    assert.equal(
      decide({ body: object({ deleting: true }), handlers: withDelete, now, initial: false, marks: DEFAULT_MARKS })
        .kind,
      'none',
    );
  });
});

describe('progress across restarts', () => {
  const handlers = registry((r) => {
    defineHandler(resource, 'myapp').onCreate(noop, { registry: r });
    defineHandler(resource, 'other').onCreate(noop, { registry: r });
  }).handlers;
  const rec = (extra: Partial<ProgressRecord>): string =>
    encodeProgress({ started: now.toISOString(), purpose: 'create', retries: 1, ...extra });

  it('a finished handler is not run again; a delayed one waits for its time', () => {
    const body = object({
      annotations: {
        [progressAnnotation('myapp')]: rec({ success: true }),
        [progressAnnotation('other')]: rec({ delayed: '2026-01-01T00:00:30Z' }),
      },
    });
    const step = decide({ body, handlers, now, initial: true, marks: DEFAULT_MARKS });
    assert.deepEqual(step, { kind: 'sleep', until: new Date('2026-01-01T00:00:30Z') });
    assert.equal(
      run(decide({ body, handlers, now: new Date('2026-01-01T00:00:31Z'), initial: true, marks: DEFAULT_MARKS })),
      'create:other',
    );
  });
  it('awake handlers with fewer attempts go first', () => {
    const body = object({
      annotations: { [progressAnnotation('myapp')]: rec({ retries: 2, delayed: '2025-12-31T00:00:00Z' }) },
    });
    assert.equal(run(decide({ body, handlers, now, initial: false, marks: DEFAULT_MARKS })), 'create:other');
  });
  it("exhausted limits (the handler's retries, timeout) fail the handler without running it", () => {
    const limited = registry((r) => {
      defineHandler(resource, 'myapp').onCreate(noop, { registry: r, retries: 3 });
      defineHandler(resource, 'other').onCreate(noop, { registry: r, timeout: 60 });
    }).handlers;
    const body = object({
      annotations: { [progressAnnotation('myapp')]: rec({ retries: 3, delayed: '2025-12-31T00:00:00Z' }) },
    });
    const step = decide({ body, handlers: limited, now, initial: false, marks: DEFAULT_MARKS });
    assert.deepEqual(step.kind === 'fail' && [step.key, step.message], ['myapp', 'gave up after 3 attempt(s)']);
    const late = object({
      annotations: {
        [progressAnnotation('other')]: rec({ started: '2025-12-31T23:58:00Z', delayed: '2025-12-31T23:59:00Z' }),
      },
    });
    const timedOut = decide({
      body: late,
      handlers: limited.filter((h) => h.id === 'other'),
      now,
      initial: false,
      marks: DEFAULT_MARKS,
    });
    assert.deepEqual(timedOut.kind === 'fail' && [timedOut.key, timedOut.message], ['other', 'timed out after 60s']);
  });
  it('a failure record of a finished cause stays visible but does not block the next cause', () => {
    const failed = rec({ failure: true, message: 'boom', done: true });
    const upd = registry((r) => defineHandler(resource, 'myapp').onUpdate(noop, { registry: r })).handlers;
    const body = applyMergePatch(handled(object()), {
      spec: { image: 'x' },
      metadata: { annotations: { [progressAnnotation('myapp')]: failed } },
    }) as Record<string, unknown>;
    assert.equal(run(decide({ body, handlers: upd, now, initial: false, marks: DEFAULT_MARKS })), 'update:myapp');
  });
});

describe('marks set per operator', () => {
  const marks = resolveMarks({ prefix: 'b.example.com' }) as Marks;
  const handlers = registry((r) => {
    defineHandler(resource, 'billing').onCreate(noop, { registry: r });
    defineHandler(resource, 'release').onDelete(noop, { registry: r });
  }).handlers;
  it("another operator's finalizer and last-handled configuration do not count as ours", () => {
    const theirs = handled(object({ finalizers: [FINALIZER] })); // handled by an operator with the default marks
    const step = decide({ body: theirs, handlers, now, initial: true, marks });
    assert.deepEqual(step.kind === 'patch' && step.patch.metadata, {
      finalizers: [FINALIZER, 'b.example.com/finalizer'],
      resourceVersion: '7',
    });
    const held = applyMergePatch(theirs, {
      metadata: { finalizers: [FINALIZER, 'b.example.com/finalizer'] },
    }) as Record<string, unknown>;
    assert.equal(run(decide({ body: held, handlers, now, initial: true, marks })), 'create:billing');
  });
  it("progress and the last-handled configuration go under our prefix; the other operator's marks stay untouched", () => {
    const done = { started: now.toISOString(), purpose: 'create', retries: 1, success: true } as ProgressRecord;
    const other = { started: now.toISOString(), purpose: 'create', retries: 1, success: true } as ProgressRecord;
    const body = handled(
      object({
        finalizers: ['b.example.com/finalizer'],
        annotations: {
          [progressAnnotation('billing', marks)]: encodeProgress(done),
          [progressAnnotation('myapp')]: encodeProgress(other),
        },
      }),
    );
    const step = decide({ body, handlers, now, initial: false, marks });
    assert.equal(step.kind === 'patch' && step.completes, 'create');
    const annotations = step.kind === 'patch' ? step.patch.metadata?.annotations : undefined;
    assert.deepEqual(Object.keys(annotations ?? {}).sort(), [
      'b.example.com/billing',
      'b.example.com/last-handled-configuration',
    ]);
    assert.equal(annotations?.['b.example.com/billing'], null);
  });
  it('our deletion waits for our finalizer only; a deletion held by the other operator alone is not ours', () => {
    const deleting = object({ finalizers: [FINALIZER], deleting: true });
    assert.equal(decide({ body: deleting, handlers, now, initial: false, marks }).kind, 'none');
    const both = object({ finalizers: [FINALIZER, 'b.example.com/finalizer'], deleting: true });
    assert.equal(run(decide({ body: both, handlers, now, initial: false, marks })), 'delete:release');
  });
});

describe('filters, optional delete handlers and daemons', () => {
  const labelled = (labels: Record<string, string>) =>
    applyMergePatch(object(), { metadata: { labels } }) as Record<string, unknown>;
  const withFinalizer = (body: Record<string, unknown>, deleting = false) =>
    applyMergePatch(body, {
      metadata: { finalizers: [FINALIZER], ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:01Z' } : {}) },
    }) as Record<string, unknown>;
  const cases: {
    name: string;
    setup: (r: Registry) => void;
    body: Record<string, unknown>;
    daemonsRunning?: boolean;
    initial?: boolean;
    want: string;
  }[] = [
    {
      name: 'a create handler whose labels match runs',
      setup: (r) => defineHandler(resource, 'myapp').onCreate(noop, { registry: r, labels: { tier: 'web' } }),
      body: labelled({ tier: 'web' }),
      want: 'create:myapp',
    },
    {
      name: 'one whose labels do not match does not, and nothing is written: no handler of the resource matches (kopf pre-matches)',
      setup: (r) => defineHandler(resource, 'myapp').onCreate(noop, { registry: r, labels: { tier: 'web' } }),
      body: labelled({ tier: 'db' }),
      want: 'none',
    },
    {
      name: 'a `when` that returns false keeps the handler out, and the object unwritten',
      setup: (r) => defineHandler(resource, 'myapp').onCreate(noop, { registry: r, when: () => false }),
      body: object(),
      want: 'none',
    },
    {
      name: 'an update handler matches while the create handler does not: the create cause completes (the essence is stored for the updates to come)',
      setup: (r) => {
        defineHandler(resource, 'myapp').onCreate(noop, { registry: r, labels: { tier: 'web' } });
        defineHandler(resource, 'audit').onUpdate(noop, { registry: r });
      },
      body: labelled({ tier: 'db' }),
      want: 'patch:create handled',
    },
    {
      name: 'handled before, matched by no handler now (its label changed): nothing written, the stored essence kept',
      setup: (r) => defineHandler(resource, 'myapp').onUpdate(noop, { registry: r, labels: { tier: 'web' } }),
      body: applyMergePatch(handled(labelled({ tier: 'web' })), {
        metadata: { labels: { tier: 'db' } },
        spec: { image: 'httpd' },
      }) as Record<string, unknown>,
      want: 'none',
    },
    {
      name: 'a matching delete handler needs the finalizer',
      setup: (r) => defineHandler(resource, 'cleanup').onDelete(noop, { registry: r, labels: { tier: 'web' } }),
      body: labelled({ tier: 'web' }),
      want: 'patch:adding the finalizer for delete handlers or daemons',
    },
    {
      name: 'a delete handler whose filters do not match needs none (kopf adds it only when they match), nor an essence',
      setup: (r) => defineHandler(resource, 'cleanup').onDelete(noop, { registry: r, labels: { tier: 'web' } }),
      body: labelled({ tier: 'db' }),
      want: 'none',
    },
    {
      name: 'an optional delete handler needs no finalizer',
      setup: (r) => defineHandler(resource, 'cleanup').onDelete(noop, { registry: r, optional: true }),
      body: object(),
      want: 'patch:create handled',
    },
    {
      name: 'an optional delete handler runs when the deletion is seen without our finalizer',
      setup: (r) => defineHandler(resource, 'cleanup').onDelete(noop, { registry: r, optional: true }),
      body: object({ deleting: true, finalizers: ['someone.else/hold'] }),
      want: 'delete:cleanup',
    },
    {
      name: 'a resume handler skips an object found being deleted (kopf: unless deleted=True)',
      setup: (r) => defineHandler(resource, 'resumer').onResume(noop, { registry: r }),
      body: object({ deleting: true, finalizers: ['someone.else/hold'] }),
      want: 'none',
    },
    {
      name: 'a resume handler with `deleted` runs for an object found being deleted, before the delete handlers',
      setup: (r) => {
        defineHandler(resource, 'resumer').onResume(noop, { registry: r, deleted: true });
        defineHandler(resource, 'cleanup').onDelete(noop, { registry: r });
      },
      body: withFinalizer(object(), true),
      want: 'delete:resumer.resume',
    },
    {
      name: 'a resume handler with `deleted` runs without our finalizer while another holds the object',
      setup: (r) => defineHandler(resource, 'resumer').onResume(noop, { registry: r, deleted: true }),
      body: object({ deleting: true, finalizers: ['someone.else/hold'] }),
      want: 'delete:resumer.resume',
    },
    {
      name: 'a resume handler with `deleted` is not due for a deletion seen after the first sight',
      setup: (r) => defineHandler(resource, 'resumer').onResume(noop, { registry: r, deleted: true }),
      body: object({ deleting: true, finalizers: ['someone.else/hold'] }),
      initial: false,
      want: 'none',
    },
    {
      name: 'a daemon needs the finalizer',
      setup: (r) => defineHandler(resource, 'watch').onDaemon(noop, { registry: r }),
      body: object(),
      want: 'patch:adding the finalizer for delete handlers or daemons',
    },
    {
      name: 'a timer needs no finalizer, nor an essence (no changing handler to compare it for)',
      setup: (r) => defineHandler(resource, 'tick').onTimer(noop, { registry: r, interval: 1 }),
      body: object(),
      want: 'none',
    },
    {
      name: 'deleting: the finalizer stays while daemons run',
      setup: (r) => defineHandler(resource, 'watch').onDaemon(noop, { registry: r }),
      body: withFinalizer(object(), true),
      daemonsRunning: true,
      want: 'none',
    },
    {
      name: 'deleting: once the daemons ended, the finalizer goes',
      setup: (r) => defineHandler(resource, 'watch').onDaemon(noop, { registry: r }),
      body: withFinalizer(object(), true),
      daemonsRunning: false,
      want: 'patch:delete handlers done: removing the finalizer',
    },
    {
      name: 'the finalizer goes when the only delete handler stops matching',
      setup: (r) => defineHandler(resource, 'cleanup').onDelete(noop, { registry: r, labels: { tier: 'web' } }),
      body: withFinalizer(labelled({ tier: 'db' })),
      want: 'patch:no delete handlers or daemons: removing the finalizer',
    },
  ];
  for (const { name, setup, body, daemonsRunning, initial = true, want } of cases) {
    it(name, () => {
      const handlers = registry(setup).handlers;
      const step = decide({ body, handlers, now, initial, marks: DEFAULT_MARKS, daemonsRunning });
      assert.equal(step.kind === 'patch' ? `patch:${step.reason}` : run(step), want);
    });
  }
});

describe("a handler's own edits (kopf: the state before the handler is stored)", () => {
  const handlers = registry((r) => {
    const h = defineHandler(resource, 'myapp');
    h.onCreate(noop, { registry: r });
    h.onUpdate(noop, { registry: r });
  }).handlers;
  const done = (purpose: string) =>
    encodeProgress({ started: now.toISOString(), purpose, retries: 1, success: true } as ProgressRecord);

  // given: the handler's outcome patch (its own edits, its success record); want: the next decision.
  const cases: { name: string; edits: Record<string, unknown>; want: string }[] = [
    { name: 'a spec edit', edits: { spec: { replicas: 3 } }, want: 'update:myapp' },
    { name: 'a label edit', edits: { metadata: { labels: { tier: 'web' } } }, want: 'update:myapp' },
    { name: 'a status edit (not in the essence)', edits: { status: { myapp: { phase: 'Ready' } } }, want: 'none' },
    { name: 'no edit', edits: {}, want: 'none' },
  ];
  for (const { name, edits, want } of cases) {
    it(`${name} completing a create: next decision ${want}`, () => {
      const body = object();
      const input = { body, handlers, now, initial: false, marks: DEFAULT_MARKS };
      const outcome = applyMergePatch(edits, {
        metadata: { annotations: { [progressAnnotation('myapp')]: done('create') } },
      }) as Record<string, unknown>;
      const { patch, completes } = withCompletion(input, outcome);
      assert.equal(completes, true);
      assert.equal(
        patch.metadata?.annotations?.[LAST_HANDLED_ANNOTATION],
        encodeEssence(buildEssence(body)),
        'the essence the handler saw is stored',
      );
      const after = applyMergePatch(body, patch) as Record<string, unknown>;
      const next = decide({ ...input, body: after });
      assert.equal(run(next), want);
      if (next.kind === 'run') assert.notDeepEqual(next.diff, []);
    });
  }
});

describe("a sensitive field (a Secret's data): the stored essence holds keyed digests, change detection works", () => {
  const secrets = defineResource<{ data?: Record<string, string> }>({
    group: '',
    version: 'v1',
    plural: 'secrets',
    kind: 'Secret',
    scope: 'Namespaced',
    statusSubresource: false,
    printerColumns: [],
  });
  const handlers = registry((r) => {
    const h = defineHandler(secrets, 'audit');
    h.onCreate(noop, { registry: r });
    h.onUpdate(noop, { registry: r });
  }).handlers;
  const secrecy = { paths: ['data'], key: Buffer.alloc(32, 1) };
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', namespace: 'default', uid: 'u9', resourceVersion: '3', annotations: {} },
    data: { token: 'U1VQRVJTRUNSRVQ=' },
  };
  const done = { started: now.toISOString(), purpose: 'create', retries: 1, success: true } as ProgressRecord;
  it('the completing patch stores no value, and an edit of data.token is an update naming data.token', () => {
    const recorded = applyMergePatch(secret, {
      metadata: { annotations: { [progressAnnotation('audit')]: encodeProgress(done) } },
    }) as Record<string, unknown>;
    const completion = decide({ body: recorded, handlers, now, initial: false, marks: DEFAULT_MARKS, secrecy });
    assert.equal(completion.kind, 'patch');
    assert.ok(completion.kind === 'patch');
    const stored = JSON.stringify(completion.patch);
    assert.ok(stored.includes('hmac-sha256:') && !stored.includes('U1VQRVJTRUNSRVQ='), stored);
    const handledSecret = applyMergePatch(recorded, completion.patch) as Record<string, unknown>;
    assert.equal(
      decide({ body: handledSecret, handlers, now, initial: false, marks: DEFAULT_MARKS, secrecy }).kind,
      'none',
    );
    const edited = applyMergePatch(handledSecret, { data: { token: 'T1RIRVI=' } }) as Record<string, unknown>;
    const step = decide({ body: edited, handlers, now, initial: false, marks: DEFAULT_MARKS, secrecy });
    assert.equal(run(step), 'update:audit');
    assert.deepEqual(step.kind === 'run' && step.diff.map(([op, path]) => `${op} ${path.join('.')}`), [
      'change data.token',
    ]);
  });
});
