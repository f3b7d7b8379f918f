import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GenerateOptions } from '../../src/api.js';
import type { Diagnostic } from '../../src/diagnostics.js';
import {
  resolveHandlers,
  unmatchedHandlerKeys,
  type HandledCrd,
  type HandledVersion,
} from '../../src/model/handler-pass.js';
import type { CrdModel } from '../../src/model/ir.js';
import { parseColumnPath } from '../../src/model/handler-paths.js';
import {
  ANNOTATION_COL,
  ANNOTATION_LINE,
  FILE,
  array,
  columnLine,
  crd,
  obj,
  scalar,
  statusProperty,
} from '../helpers/handler-fixtures.js';

const codes = (ds: Diagnostic[]) => ds.map((d) => `${d.severity} ${d.code} ${d.line}:${d.col}`);

/** What the pass returned per CRD model, so each test reads the handled versions beside its diagnostics. */
const results = new Map<CrdModel, HandledCrd>();

/** Runs the pass, keeps its CRDs for `handled`, returns its diagnostics. */
function pass(crds: CrdModel[], options: GenerateOptions = {}): Diagnostic[] {
  const result = resolveHandlers(crds, options);
  assert.equal(result.crds.length, crds.length);
  crds.forEach((c, i) => results.set(c, result.crds[i]));
  return result.diagnostics;
}

function handled(model: CrdModel, version = 0): HandledVersion {
  const found = results.get(model)?.versions[version];
  assert.ok(found, 'the pass ran over this model');
  return found;
}

test('column paths: fields, quoted fields and steps that cannot be followed', () => {
  assert.deepEqual(parseColumnPath('.status.myapp.phase'), [
    { kind: 'field', name: 'status' },
    { kind: 'field', name: 'myapp' },
    { kind: 'field', name: 'phase' },
  ]);
  assert.deepEqual(parseColumnPath(".status['a.b'].x")[1], { kind: 'field', name: 'a.b' });
  assert.deepEqual(parseColumnPath('.status.conditions[?(@.type=="Ready")].status').slice(2), [
    { kind: 'opaque', text: '[?(@.type=="Ready")]' },
    { kind: 'field', name: 'status' },
  ]);
  assert.deepEqual(parseColumnPath('{.status.x[0]}').slice(1), [
    { kind: 'field', name: 'x' },
    { kind: 'opaque', text: '[0]' },
  ]);
  assert.equal(parseColumnPath('.status..phase')[1].kind, 'opaque');
});

test('printer column .status.myapp.phase in an open status names handler myapp and synthesises its status', () => {
  const model = crd({
    versions: [
      {
        status: obj({}, { open: true }),
        columns: [{ name: 'Status', type: 'string', jsonPath: '.status.myapp.phase' }],
      },
    ],
  });
  const diagnostics = pass([model], {});
  assert.deepEqual(diagnostics, []);
  const [h] = handled(model, 0).handlers;
  assert.equal(h.id, 'myapp');
  assert.deepEqual(h.sources, ['printer-column']);
  assert.equal(h.synthesized, true);
  assert.deepEqual(h.pos, { file: FILE, line: columnLine(0, 0), col: 21 });
  assert.equal(
    h.pointer,
    '/spec/versions/0/additionalPrinterColumns/0/jsonPath',
    'pointer and position name the same place',
  );
  assert.equal(h.columns[0].name, 'Status');
  assert.ok(h.status.type === 'object' && h.status.preserveUnknownFields, 'the synthesised status stays open');
  // Placed in the returned version's schema, so the resource's status type shows it.
  assert.equal(statusProperty(handled(model, 0).version, 'myapp'), h.status);
  const phase = statusProperty(handled(model, 0).version, 'myapp.phase');
  assert.equal(phase?.type, 'string');
  assert.equal(
    phase?.pointer,
    '/spec/versions/0/schema/openAPIV3Schema/properties/status/properties/myapp/properties/phase',
  );
});

test('synthesis: column types map to scalar types, nested paths nest, .status.<id> alone is scalar', () => {
  const model = crd({
    versions: [
      {
        status: obj({}, { open: true }),
        columns: [
          { name: 'Replicas', type: 'integer', jsonPath: '.status.scale.replicas' },
          { name: 'Ratio', type: 'number', jsonPath: '.status.scale.ratio' },
          { name: 'Ready', type: 'boolean', jsonPath: '.status.scale.health.ready' },
          { name: 'Since', type: 'date', jsonPath: '.status.scale.health.since' },
          { name: 'Msg', type: 'string', jsonPath: '.status.create_fn' },
        ],
      },
    ],
  });
  assert.deepEqual(pass([model], {}), []);
  const v = handled(model);
  assert.deepEqual(
    v.handlers.map((h) => h.id),
    ['create_fn', 'scale'],
  );
  assert.equal(statusProperty(v.version, 'scale.replicas')?.type, 'integer');
  assert.equal(statusProperty(v.version, 'scale.ratio')?.type, 'number');
  assert.equal(statusProperty(v.version, 'scale.health.ready')?.type, 'boolean');
  const since = statusProperty(v.version, 'scale.health.since');
  assert.ok(since?.type === 'string' && since.doc.format === 'date-time');
  assert.equal(statusProperty(v.version, 'scale.health')?.type, 'object');
  assert.equal(v.handlers[0].status.type, 'string');
});

test('annotation kopfgen.dev/handlers names handlers, positioned inside the value', () => {
  const model = crd({
    annotations: { 'kopfgen.dev/handlers': 'myapp, cleanup' },
    versions: [
      {
        status: obj({}, { open: true }),
        columns: [{ name: 'Status', type: 'string', jsonPath: '.status.myapp.phase' }],
      },
    ],
  });
  assert.deepEqual(pass([model], {}), []);
  const [cleanup, myapp] = handled(model, 0).handlers;
  assert.equal(cleanup.id, 'cleanup');
  assert.deepEqual(cleanup.sources, ['annotation']);
  assert.deepEqual(cleanup.pos, { file: FILE, line: ANNOTATION_LINE, col: ANNOTATION_COL + 7 });
  assert.equal(cleanup.pointer, '/metadata/annotations/kopfgen.dev~1handlers');
  assert.deepEqual(myapp.sources, ['printer-column', 'annotation'], 'sources merge');
  // Without columns, an open status still gets an (empty, open) object type.
  assert.ok(
    cleanup.status.type === 'object' && cleanup.status.properties.length === 0 && cleanup.status.preserveUnknownFields,
  );
});

test('options.handlers by Kind and by plural.group; unknown keys are reported', () => {
  const a = crd({ kind: 'Alpha', versions: [{ status: obj({}, { open: true }) }] });
  const b = crd({ kind: 'Beta', group: 'b.io', versions: [{ status: obj({}, { open: true }) }] });
  const options = { handlers: { Alpha: ['one'], 'betas.b.io': ['two', 'one'], Gamma: ['x'] } };
  assert.deepEqual(pass([a, b], options), []);
  assert.deepEqual(
    handled(a, 0).handlers.map((h) => [h.id, h.sources]),
    [['one', ['config']]],
  );
  assert.deepEqual(
    handled(b, 0).handlers.map((h) => h.id),
    ['one', 'two'],
  );
  const diagnostics = unmatchedHandlerKeys([a, b], options);
  assert.deepEqual(
    diagnostics.map((d) => [d.code, d.pointer]),
    [['KG207', '/handlers/Gamma']],
  );
});

test('status.<id> defined by the schema is the handler status, columns are cross-checked (KG204)', () => {
  const status = obj({ myapp: obj({ phase: scalar('string', { enum: ['Starting', 'Ready'] }) }) });
  const model = crd({
    versions: [
      {
        status,
        columns: [
          { name: 'Status', type: 'string', jsonPath: '.status.myapp.phase' },
          { name: 'Msg', type: 'string', jsonPath: '.status.myapp.message' },
        ],
      },
    ],
  });
  const diagnostics = pass([model], {});
  assert.deepEqual(codes(diagnostics), [`warning KG204 ${columnLine(0, 1)}:21`]);
  assert.match(diagnostics[0].message, /defines no `message`/);
  assert.equal(diagnostics[0].pointer, '/spec/versions/0/additionalPrinterColumns/1/jsonPath');
  const [h] = handled(model, 0).handlers;
  assert.equal(h.synthesized, false);
  assert.equal(h.status, statusProperty(handled(model, 0).version, 'myapp'));
});

test('kopf, kopfgen and invalid ids are rejected: errors when named explicitly, warnings from columns', () => {
  const model = crd({
    annotations: { 'kopfgen.dev/handlers': 'kopf, -bad, ok, kopfgen' },
    versions: [
      {
        status: obj({}, { open: true }),
        columns: [{ name: 'Progress', type: 'string', jsonPath: '.status.kopf.progress' }],
      },
    ],
  });
  const diagnostics = pass([model], { handlers: { MyResource: ['x'.repeat(64)] } });
  assert.deepEqual(
    diagnostics.map((d) => `${d.severity} ${d.code}`).sort(),
    ['error KG201', 'error KG201', 'error KG202', 'error KG202', 'warning KG201'].sort(),
  );
  assert.ok(diagnostics.some((d) => d.message.includes("status.kopfgen is the kopfgen runtime's own storage")));
  const bad = diagnostics.find((d) => d.message.includes('`-bad`'));
  assert.deepEqual([bad?.line, bad?.col], [ANNOTATION_LINE, ANNOTATION_COL + 6]);
  assert.deepEqual(
    handled(model, 0).handlers.map((h) => h.id),
    ['ok'],
  );
});

test('an annotation naming no ids is reported (KG206)', () => {
  const model = crd({
    annotations: { 'kopfgen.dev/handlers': ' , ' },
    versions: [{ status: obj({}, { open: true }) }],
  });
  assert.deepEqual(codes(pass([model], {})), [`warning KG206 ${ANNOTATION_LINE}:${ANNOTATION_COL}`]);
  assert.deepEqual(handled(model, 0).handlers, []);
});

test('a handler whose status the API server would prune (kopf #574): KG203', () => {
  const closed = obj({ replicas: scalar('integer') });
  const model = crd({
    annotations: { 'kopfgen.dev/handlers': 'myapp' },
    versions: [{ status: closed, columns: [{ name: 'Status', type: 'string', jsonPath: '.status.other.phase' }] }],
  });
  const diagnostics = pass([model], {});
  assert.deepEqual(codes(diagnostics), [
    `error KG203 ${ANNOTATION_LINE}:${ANNOTATION_COL}`,
    `warning KG203 ${columnLine(0, 0)}:21`,
  ]);
  assert.match(
    diagnostics[0].message,
    /prune status\.myapp.*without `myapp` and without x-kubernetes-preserve-unknown-fields.*#574/,
  );
  assert.deepEqual(handled(model, 0).handlers, []);
  // A schema without any status prunes it too, unless the root keeps unknown fields.
  const none = crd({
    annotations: { 'kopfgen.dev/handlers': 'myapp' },
    versions: [{ status: null }, { status: null, rootOpen: true }],
  });
  assert.deepEqual(codes(pass([none], {})), [`error KG203 ${ANNOTATION_LINE}:${ANNOTATION_COL}`]);
  assert.deepEqual(
    handled(none, 1).handlers.map((h) => h.id),
    ['myapp'],
  );
});

test('paths that cannot be followed are accepted and explained (KG205), never crash', () => {
  const model = crd({
    versions: [
      {
        status: obj({}, { open: true }),
        columns: [
          { name: 'First', type: 'string', jsonPath: '.status.myapp.items[0].name' },
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
          { name: 'Any', type: 'string', jsonPath: '.status[*]' },
          { name: 'Deep', type: 'string', jsonPath: '.status..phase' },
          { name: 'Broken', type: 'string', jsonPath: '.status.myapp[' },
        ],
      },
    ],
  });
  const diagnostics = pass([model], {});
  assert.deepEqual(
    codes(diagnostics),
    [0, 1, 2, 3, 4].map((i) => `note KG205 ${columnLine(0, i)}:21`),
  );
  assert.deepEqual(
    handled(model, 0).handlers.map((h) => h.id),
    ['myapp'],
  );
  assert.equal(statusProperty(handled(model, 0).version, 'myapp.items')?.type, 'unknown');
});

test('structural status: plain fields and conditions are not handlers and need no explanation', () => {
  const status = obj({
    phase: scalar('string'),
    conditions: {
      type: 'array',
      pointer: '',
      pos: { file: FILE, line: 1, col: 1 },
      nullable: false,
      doc: {},
      items: obj({ type: scalar('string'), status: scalar('string') }),
    },
    workers: obj({ replicas: scalar('integer') }),
  });
  const model = crd({
    versions: [
      {
        status,
        columns: [
          { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
          { name: 'Workers', type: 'integer', jsonPath: '.status.workers.replicas' },
          { name: 'Bad', type: 'string', jsonPath: '.status.phase.x' },
        ],
      },
    ],
  });
  const diagnostics = pass([model], {});
  assert.deepEqual(codes(diagnostics), [`warning KG204 ${columnLine(0, 3)}:21`]);
  assert.deepEqual(
    handled(model, 0).handlers.map((h) => h.id),
    ['workers'],
  );
});

test('conflicting columns for one field are reported (KG208), first column wins', () => {
  const model = crd({
    versions: [
      {
        status: obj({}, { open: true }),
        columns: [
          { name: 'A', type: 'string', jsonPath: '.status.myapp.phase' },
          { name: 'B', type: 'integer', jsonPath: '.status.myapp.phase' },
          { name: 'C', type: 'string', jsonPath: '.status.myapp.phase.x' },
        ],
      },
    ],
  });
  assert.deepEqual(codes(pass([model], {})), [
    `warning KG208 ${columnLine(0, 1)}:21`,
    `warning KG208 ${columnLine(0, 2)}:21`,
  ]);
  assert.equal(statusProperty(handled(model, 0).version, 'myapp.phase')?.type, 'string');
});

test('every version gets its own handlers; an untyped status.<id> is typed from columns', () => {
  const untyped = obj({
    myapp: { type: 'unknown', pointer: '', pos: { file: FILE, line: 1, col: 1 }, nullable: false, doc: {} },
  });
  const model = crd({
    versions: [
      { name: 'v1', status: untyped, columns: [{ name: 'S', type: 'string', jsonPath: '.status.myapp.phase' }] },
      { name: 'v2', status: obj({}, { open: true }) },
    ],
  });
  assert.deepEqual(pass([model], {}), []);
  assert.equal(statusProperty(handled(model, 0).version, 'myapp.phase')?.type, 'string');
  assert.deepEqual(handled(model, 1).handlers, []);
});

test('an empty configured list opts a kind out: no handlers from columns or the annotation, nothing synthesised, no KG207', () => {
  const spec = {
    annotations: { 'kopfgen.dev/handlers': 'cleanup' },
    versions: [
      {
        status: obj({}, { open: true }),
        columns: [{ name: 'Status', type: 'string', jsonPath: '.status.myapp.phase' }],
      },
    ],
  };
  for (const key of ['MyResource', 'myresources.example.com']) {
    const model = crd(spec);
    const options = { handlers: { [key]: [] } };
    assert.deepEqual(pass([model], options), [], key);
    assert.deepEqual(unmatchedHandlerKeys([model], options), [], key);
    assert.deepEqual(handled(model, 0).handlers, [], key);
    assert.equal(statusProperty(handled(model, 0).version, 'myapp'), undefined, `${key}: no status synthesised`);
  }
  const kept = crd(spec);
  pass([kept], { handlers: { Other: [] } });
  assert.deepEqual(
    handled(kept, 0).handlers.map((h) => h.id),
    ['cleanup', 'myapp'],
    'another kind opting out changes nothing here',
  );
});

test('the remaining cross-checks, each at its place: ids from columns and config, columns below a schema-defined status, whole-status columns', () => {
  // Ids rejected from a column are reported at its jsonPath; from the configuration, at the CRD.
  const ids = crd({
    versions: [
      {
        status: obj({}, { open: true }),
        columns: [
          { name: 'Progress', type: 'string', jsonPath: '.status.kopf.progress' },
          { name: 'Bad', type: 'string', jsonPath: '.status.-bad.phase' },
        ],
      },
    ],
  });
  assert.deepEqual(codes(pass([ids], { handlers: { MyResource: ['my app'] } })), [
    'error KG202 1:1',
    `warning KG201 ${columnLine(0, 0)}:21`,
    `warning KG202 ${columnLine(0, 1)}:21`,
  ]);
  assert.deepEqual(handled(ids, 0).handlers, []);

  // Below a schema-defined status: a field of a scalar (KG204), a step that cannot be followed (KG205).
  const defined = crd({
    versions: [
      {
        status: obj({ myapp: obj({ phase: scalar('string'), endpoint: obj({ host: scalar('string') }) }) }),
        columns: [
          { name: 'Sub', type: 'string', jsonPath: '.status.myapp.phase.sub' },
          { name: 'Any', type: 'string', jsonPath: '.status.myapp.endpoint[*]' },
          { name: 'Host', type: 'string', jsonPath: '.status.myapp.endpoint.host' },
        ],
      },
    ],
  });
  const below = pass([defined], {});
  assert.deepEqual(codes(below), [`warning KG204 ${columnLine(0, 0)}:21`, `note KG205 ${columnLine(0, 1)}:21`]);
  assert.match(below[0].message, /reads `sub` below status\.myapp\.phase, which the schema types as string/);
  assert.deepEqual(
    handled(defined, 0).handlers.map((h) => [h.id, h.columns.length]),
    [['myapp', 3]],
  );

  // Columns showing status.<id> whole: of different types, or beside columns reading its fields (KG208).
  const whole = crd({
    versions: [
      {
        status: obj({}, { open: true }),
        columns: [
          { name: 'Count', type: 'integer', jsonPath: '.status.count' },
          { name: 'CountText', type: 'string', jsonPath: '.status.count' },
          { name: 'Raw', type: 'string', jsonPath: '.status.myapp' },
          { name: 'Phase', type: 'string', jsonPath: '.status.myapp.phase' },
        ],
      },
    ],
  });
  assert.deepEqual(codes(pass([whole], {})), [
    `warning KG208 ${columnLine(0, 1)}:21`,
    `warning KG208 ${columnLine(0, 2)}:21`,
  ]);
  const [count, myapp] = handled(whole, 0).handlers;
  assert.equal(count.status.type, 'integer', 'the first column types a whole status');
  assert.ok(
    myapp.status.type === 'object' && myapp.status.properties.some((p) => p.name === 'phase'),
    'fields win over a whole-status column',
  );
});

test('the pass writes nothing into the IR: synthesised statuses live in the returned copies, untouched nodes are shared', () => {
  const untyped = obj({
    myapp: { type: 'unknown', pointer: '', pos: { file: FILE, line: 1, col: 1 }, nullable: false, doc: {} },
    other: scalar('string'),
  });
  const model = crd({
    annotations: { 'kopfgen.dev/handlers': 'cleanup' },
    versions: [
      { name: 'v1', status: untyped, columns: [{ name: 'S', type: 'string', jsonPath: '.status.myapp.phase' }] },
      { name: 'v2', status: obj({ phase: scalar('string') }, { open: true }) },
    ],
  });
  const before = JSON.stringify(model);
  const {
    crds: [result],
  } = resolveHandlers([model], {});
  assert.equal(JSON.stringify(model), before, 'the model is as built');
  assert.equal(statusProperty(model.versions[0], 'myapp.phase'), undefined);
  assert.equal(statusProperty(model.versions[1], 'cleanup'), undefined);
  const [v1, v2] = result.versions;
  assert.equal(statusProperty(v1.version, 'myapp.phase')?.type, 'string');
  assert.equal(
    statusProperty(v1.version, 'other'),
    statusProperty(model.versions[0], 'other'),
    'untouched nodes are the built ones',
  );
  assert.deepEqual(
    v2.handlers.map((h) => h.id),
    ['cleanup'],
  );
  assert.equal(statusProperty(v2.version, 'cleanup'), v2.handlers[0].status);
});

test('with handlerOrigins, a configured id the server would prune (KG203) and a kind matching no CRD (KG207) point at the configuration', () => {
  const closed = obj({ replicas: scalar('integer') });
  const model = crd({ versions: [{ status: closed }] });
  const options: GenerateOptions = {
    handlers: { MyResource: ['myapp'], Gamma: ['x'] },
    handlerOrigins: {
      MyResource: {
        file: 'kopfgen.config.yaml',
        line: 3,
        col: 3,
        pointer: '/handlers/MyResource',
        what: 'in kopfgen.config.yaml',
        ids: { myapp: { line: 3, col: 15, pointer: '/handlers/MyResource/0' } },
      },
      Gamma: { file: '<command line>', line: 1, col: 1, pointer: '', what: 'by --handlers Gamma=x' },
    },
  };
  const diagnostics = [...pass([model], options), ...unmatchedHandlerKeys([model], options)];
  assert.deepEqual(
    diagnostics.map((d) => `${d.severity} ${d.code} ${d.file}:${d.line}:${d.col} ${d.pointer}`),
    ['error KG203 kopfgen.config.yaml:3:15 /handlers/MyResource/0', 'warning KG207 <command line>:1:1 '],
  );
  assert.match(diagnostics[0].message, /configured handlers for MyResource in kopfgen\.config\.yaml/);
  assert.match(diagnostics[1].message, /configured by --handlers Gamma=x for `Gamma`/);
});

test('every printer column is checked against the schema: a field it lacks, a step into a scalar, a filter on what is no list (KG204 warnings)', () => {
  const spec = obj({
    size: scalar('integer'),
    list: array(obj({ name: scalar('string') })),
    labels: { ...obj({}), additionalProperties: obj({ v: scalar('string') }) },
    open: obj({}, { open: true }),
  });
  const status = obj({
    replicas: scalar('integer'),
    conditions: array(obj({ type: scalar('string'), status: scalar('string') })),
  });
  const columns: [string, string | undefined][] = [
    ['.spec.doesNotExist', 'the schema of spec defines no `doesNotExist`'],
    ['.spec.size.deeper', 'spec.size is an integer, which has no fields'],
    ['.spec.size[?(@.x==1)]', 'spec.size is an integer: `[?(@.x==1)]` selects nothing in it'],
    ['.spec.list.name', 'spec.list is a list: `.name` reads no field of it (select items first, e.g. `[*].name`)'],
    ['.spec.list[0].nope', 'the schema of spec.list[0] defines no `nope`'],
    ['.spec.list[*].name', undefined],
    ['.spec.labels.app.v', undefined],
    ['.spec.labels.app.w', 'the schema of spec.labels.app defines no `w`'],
    ['.spec.open.anything.at.all', undefined],
    ['.metadata.creationTimestamp', undefined],
    ['.kind', undefined],
    ['.nothing', 'the schema of the resource defines no `nothing`'],
    ['.status.replicas', undefined],
    ['.status.conditions[?(@.type=="Ready")].status', undefined],
    [
      '.status.conditions[?(@.type=="Ready")].reason',
      'the schema of status.conditions[?(@.type=="Ready")] defines no `reason`',
    ],
    ['.spec..size', undefined],
  ];
  const model = crd({
    versions: [
      { spec, status, columns: columns.map(([jsonPath], i) => ({ name: `C${i}`, type: 'string', jsonPath })) },
    ],
  });
  const want = columns.flatMap(([, reason], i) =>
    reason === undefined ? [] : [`warning KG204 ${columnLine(0, i)}:21 C${i}: ${reason}`],
  );
  const got = (ds: Diagnostic[]) =>
    ds.map(
      (d) =>
        `${d.severity} ${d.code} ${d.line}:${d.col} ${/`(C\d+)`/.exec(d.message)?.[1]}: ${/reads `[^`]*`: (.*); the column is always empty$/.exec(d.message)?.[1]}`,
    );
  assert.deepEqual(got(pass([model], {})), want);
  assert.deepEqual(handled(model, 0).handlers, [], 'no plain column names a handler');
  // A kind opted out of handlers still gets its columns checked.
  assert.deepEqual(got(pass([model], { handlers: { MyResource: [] } })), want);
});

test('two handler ids that share a webhook path segment are reported (KG212)', () => {
  const model = crd({
    annotations: { 'kopfgen.dev/handlers': 'create_fn, create-fn, Other' },
    versions: [{ status: obj({}, { open: true }) }],
  });
  const diagnostics = pass([model], {});
  assert.deepEqual(codes(diagnostics), [`warning KG212 ${ANNOTATION_LINE}:${ANNOTATION_COL}`]);
  assert.match(diagnostics[0].message, /`create-fn` and `create_fn` share the webhook path segment `create-fn`/);
  assert.deepEqual(
    handled(model, 0).handlers.map((h) => h.id),
    ['Other', 'create-fn', 'create_fn'],
  );
});
