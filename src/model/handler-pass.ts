/**
 * The handler pass: discovers handler ids per CRD version, synthesises status schemas from
 * printer columns where status is open, and returns both (a `HandledCrd` per CRD) with its
 * cross-check diagnostics. It writes nothing into the IR it reads: a version whose status gains
 * synthesised nodes is returned as a copy whose schema holds them at `status.properties.<id>`
 * (the untouched nodes shared), so naming, which reads the returned versions, names them like
 * any other.
 *
 * Ids come from three sources, merged: printer columns reading `.status.<id>` or
 * `.status.<id>.<field>`, the CRD annotation `kopfgen.dev/handlers: "a, b"`, and
 * `options.handlers` keyed by Kind or `plural.group` (an empty list there: no handlers at all). Explicitly named ids (annotation, config)
 * that cannot work are errors; doubtful columns are warnings or notes, since a column alone
 * does not prove a handler exists.
 */
import type { GenerateOptions } from '../api.js';
import { pointerJoin, sortDiagnostics, type Diagnostic, type Severity } from '../diagnostics.js';
import { columnReadsNothing } from './column-schema.js';
import type {
  CrdModel,
  HandlerModel,
  Located,
  ObjectNode,
  PrinterColumn,
  PropertyNode,
  SchemaNode,
  VersionModel,
} from './ir.js';
import { handlerIdProblem, parseColumnPath, webhookSegment } from './handler-paths.js';
import {
  checkColumn,
  columnDiagnostic,
  jsonPathAt,
  statusSlot,
  synthesizeStatus,
  type HandlerColumn,
} from './handler-status.js';

const HANDLERS_ANNOTATION = 'kopfgen.dev/handlers';

type Source = HandlerModel['sources'][number];

interface Candidate {
  id: string;
  sources: Set<Source>;
  columns: HandlerColumn[];
  /** Where the id was first named. */
  at: Located;
}

/** An explicitly named id (annotation or config entry) with the place to report it. */
interface NamedId {
  id: string;
  source: Source;
  at: Located;
  what: string;
}

/**
 * KG207: configured kinds (keys of `options.handlers`) that match no CRD of the run. Decided
 * over the whole run, not per group of CRDs, since a key may match a CRD anywhere in it.
 */
export function unmatchedHandlerKeys(
  crds: readonly Pick<CrdModel, 'kind' | 'plural' | 'group'>[],
  options: GenerateOptions,
): Diagnostic[] {
  const known = new Set<string>();
  for (const crd of crds) known.add(crd.kind).add(`${crd.plural}.${crd.group}`);
  return Object.keys(options.handlers ?? {})
    .filter((key) => !known.has(key))
    .map((key): Diagnostic => {
      // At the configuration's entry (or the flag) when the caller says where it is.
      const origin = options.handlerOrigins?.[key];
      const at = origin
        ? { file: origin.file, line: origin.line, col: origin.col, pointer: origin.pointer }
        : { file: '(config)', line: 1, col: 1, pointer: pointerJoin('/handlers', key) };
      const message = `handlers are configured ${origin?.what ?? '(configuration or --handlers)'} for \`${key}\`, which matches no CRD's Kind or plural.group`;
      return { severity: 'warning', code: 'KG207', message, ...at };
    });
}

/** One version with its handlers: what the naming pass reads. */
export interface HandledVersion {
  /** The version as built, or a copy whose status schema also holds the statuses synthesised from columns. */
  version: VersionModel;
  /** Sorted by id. */
  handlers: HandlerModel[];
}

/** A CRD with its handlers resolved; `versions` parallels `crd.versions`. */
export interface HandledCrd {
  crd: CrdModel;
  versions: HandledVersion[];
}

export interface HandlerPassResult {
  /** One per input CRD, in input order. */
  crds: HandledCrd[];
  diagnostics: Diagnostic[];
}

/** A CRD read without handlers (types only): what naming reads when no handler pass ran. */
export function withoutHandlers(crd: CrdModel): HandledCrd {
  return { crd, versions: crd.versions.map((version) => ({ version, handlers: [] })) };
}

export function resolveHandlers(crds: readonly CrdModel[], options: GenerateOptions): HandlerPassResult {
  const diagnostics: Diagnostic[] = [];
  const handled = crds.map((crd): HandledCrd => {
    // An empty list in the configuration is the user's word that this kind has no handlers
    // (types only, e.g. another operator's CRD): its columns name none and no stubs appear.
    if (optedOut(crd, options)) {
      for (const version of crd.versions)
        for (const column of version.printerColumns) checkPlainColumn(version, column, diagnostics);
      return withoutHandlers(crd);
    }
    const named = [...annotationIds(crd, diagnostics), ...configIds(crd, options)].filter((n) =>
      checkId(n.id, n.at, 'error', n.what, diagnostics),
    );
    return { crd, versions: crd.versions.map((version) => resolveVersion(version, named, diagnostics)) };
  });
  return { crds: handled, diagnostics: sortDiagnostics(diagnostics) };
}

function resolveVersion(version: VersionModel, named: NamedId[], diagnostics: Diagnostic[]): HandledVersion {
  const candidates = new Map<string, Candidate>();
  const candidate = (id: string, at: Located): Candidate => {
    let c = candidates.get(id);
    if (!c) candidates.set(id, (c = { id, sources: new Set(), columns: [], at }));
    return c;
  };
  for (const [id, columns] of collectColumns(version, diagnostics)) {
    const c = candidate(id, jsonPathAt(columns[0].column));
    c.sources.add('printer-column');
    c.columns.push(...columns);
  }
  for (const n of named) {
    const slot = statusSlot(version, n.id);
    if (slot.kind === 'pruned') {
      diagnostics.push(
        diagnostic(
          n.at,
          'error',
          'KG203',
          `handler \`${n.id}\` (${n.what}): the API server would prune status.${n.id} in version ${version.name}: ${slot.reason} (kopf issue #574); add \`${n.id}\` to the status schema or set x-kubernetes-preserve-unknown-fields: true on status`,
        ),
      );
      continue;
    }
    candidate(n.id, n.at).sources.add(n.source);
  }
  const sorted = [...candidates.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  checkWebhookSegments(sorted, diagnostics);
  const built = sorted.map((c) => buildHandler(version, c, diagnostics));
  const handlers = built.map((b) => b.handler);
  const placed = built.flatMap((b) => (b.placed ? [b.placed] : []));
  return { version: placed.length > 0 ? withStatuses(version, placed) : version, handlers };
}

/**
 * KG212: two handler ids of one version that share a webhook path segment (`create_fn` and
 * `create-fn`, `Create` and `create`): the runtime serves an id's admission webhook at its segment
 * (`webhookSegment`), which a Service path must spell as an RFC 1123 subdomain, so the two cannot
 * both have one; the second to register is refused at run time.
 */
function checkWebhookSegments(candidates: readonly Candidate[], diagnostics: Diagnostic[]): void {
  const first = new Map<string, string>();
  for (const c of candidates) {
    const segment = webhookSegment(c.id);
    const other = first.get(segment);
    if (other === undefined) {
      first.set(segment, c.id);
      continue;
    }
    const found = diagnostic(
      c.at,
      'warning',
      'KG212',
      `handler ids \`${other}\` and \`${c.id}\` share the webhook path segment \`${segment}\`: only one of them can register onValidate/onMutate; rename one`,
    );
    // Versions share their ids: one warning per pair, not one per version.
    const same = (d: Diagnostic) => d.code === 'KG212' && d.message === found.message && d.line === found.line;
    if (!diagnostics.some(same)) diagnostics.push(found);
  }
}

/** A synthesised status and the status object it goes into (as `status.properties.<id>`). */
interface Placed {
  owner: ObjectNode;
  id: string;
  status: SchemaNode;
}

/**
 * The version with each synthesised status in its status object: a new root, `status` property
 * and status object, replacing an untyped `status.<id>` or appending after the schema's own
 * properties; every other node is the built one.
 */
function withStatuses(version: VersionModel, placed: Placed[]): VersionModel {
  const root = version.schema;
  if (!root) return version;
  const extend = (owner: ObjectNode): ObjectNode => {
    const mine = placed.filter((p) => p.owner === owner);
    const replaced = owner.properties.map((p): PropertyNode => {
      const hit = mine.find((m) => m.id === p.name);
      return hit ? { ...p, schema: hit.status } : p;
    });
    const added = mine
      .filter((m) => !owner.properties.some((p) => p.name === m.id))
      .map((m): PropertyNode => ({ name: m.id, required: false, schema: m.status }));
    return { ...owner, properties: [...replaced, ...added] };
  };
  const properties = root.properties.map((p): PropertyNode =>
    p.name === 'status' && p.schema.type === 'object' ? { ...p, schema: extend(p.schema) } : p,
  );
  return { ...version, schema: { ...root, properties } };
}

/**
 * Columns under `.status.<id>` grouped by id; columns that cannot name a handler are explained,
 * and every other column (a plain field, of spec or of a structural status) is checked against
 * the schema.
 */
function collectColumns(version: VersionModel, diagnostics: Diagnostic[]): Map<string, HandlerColumn[]> {
  const byId = new Map<string, HandlerColumn[]>();
  for (const column of version.printerColumns) {
    const steps = parseColumnPath(column.jsonPath);
    if (steps.length < 2 || steps[0].kind !== 'field' || steps[0].name !== 'status') {
      checkPlainColumn(version, column, diagnostics);
      continue;
    }
    const head = steps[1];
    const rest = steps.slice(2);
    if (head.kind === 'opaque') {
      if (statusSlot(version, '').kind === 'open') {
        diagnostics.push(
          columnDiagnostic(
            column,
            'note',
            'KG205',
            `printer column \`${column.name}\`: kopfgen cannot tell which handler \`${column.jsonPath}\` reads, so it names none`,
          ),
        );
      } else checkPlainColumn(version, column, diagnostics);
      continue;
    }
    const id = head.name;
    if (!checkId(id, jsonPathAt(column), 'warning', `printer column \`${column.name}\``, diagnostics)) continue;
    const verdict = handlerColumn(version, id, column, rest, diagnostics);
    if (verdict === 'plain') checkPlainColumn(version, column, diagnostics);
    if (verdict !== 'handler') continue;
    const list = byId.get(id) ?? [];
    list.push({ column, rest });
    byId.set(id, list);
  }
  return byId;
}

/** KG204 for a column that is no handler's and reads nothing the schema lets an object hold. */
function checkPlainColumn(version: VersionModel, column: PrinterColumn, diagnostics: Diagnostic[]): void {
  const reason = columnReadsNothing(version.schema, parseColumnPath(column.jsonPath));
  if (reason === undefined) return;
  diagnostics.push(
    columnDiagnostic(
      column,
      'warning',
      'KG204',
      `printer column \`${column.name}\` reads \`${column.jsonPath}\`: ${reason}; the column is always empty`,
    ),
  );
}

/**
 * Whether a column under `.status.<id>` names handler `id`. Plain status fields of a structural
 * schema (`.status.replicas`, `.status.conditions[...]`) do not (`plain`: checked as any other
 * column); in an open status a column that indexes right after the id is ambiguous and is
 * explained instead (`explained`, as every column whose problem this reports).
 */
function handlerColumn(
  version: VersionModel,
  id: string,
  column: HandlerColumn['column'],
  rest: HandlerColumn['rest'],
  diagnostics: Diagnostic[],
): 'handler' | 'plain' | 'explained' {
  const slot = statusSlot(version, id);
  const readsField = rest.length > 0 && rest[0].kind === 'field';
  if (slot.kind === 'pruned') {
    if (readsField || rest.length === 0) {
      diagnostics.push(
        columnDiagnostic(
          column,
          'warning',
          'KG203',
          `printer column \`${column.name}\` reads status.${id}, which the API server prunes in version ${version.name}: ${slot.reason}; if \`${id}\` is a kopf handler its results vanish (kopf issue #574), and the column always shows nothing`,
        ),
      );
      return 'explained';
    }
    return 'plain';
  }
  if (slot.kind === 'defined') {
    const t = slot.node.type;
    if (t === 'object' || t === 'unknown')
      return rest.length === 0 || readsField || t === 'object' ? 'handler' : 'plain';
    if (readsField) {
      diagnostics.push(
        columnDiagnostic(
          column,
          'warning',
          'KG204',
          `printer column \`${column.name}\` reads a field of status.${id}, which the schema types as ${t}; the column always shows nothing and \`${id}\` is not taken as a handler`,
        ),
      );
      return 'explained';
    }
    return 'plain';
  }
  if (rest.length > 0 && !readsField) {
    diagnostics.push(
      columnDiagnostic(
        column,
        'note',
        'KG205',
        `printer column \`${column.name}\` indexes into status.${id} (\`${column.jsonPath}\`); kopfgen takes \`${id}\` for a handler only from \`.status.${id}\` or \`.status.${id}.<field>\`; name it in the ${HANDLERS_ANNOTATION} annotation if it is one`,
      ),
    );
    return 'explained';
  }
  return 'handler';
}

function buildHandler(
  version: VersionModel,
  c: Candidate,
  diagnostics: Diagnostic[],
): { handler: HandlerModel; placed?: Placed } {
  const slot = statusSlot(version, c.id);
  const base = {
    id: c.id,
    sources: sortedSources(c.sources),
    columns: c.columns.map((hc) => hc.column),
    pointer: c.at.pointer,
    pos: c.at.pos,
  };
  if (
    slot.kind === 'defined' &&
    !(slot.node.type === 'unknown' && slot.property && c.columns.some((hc) => hc.rest.length > 0))
  ) {
    for (const hc of c.columns) checkColumn(c.id, slot.node, hc, diagnostics);
    return { handler: { ...base, status: slot.node, synthesized: false } };
  }
  // Open status (or an untyped `status.<id>`): type it from the columns and place it in the
  // returned schema, so the resource's status type shows the handler's fields too.
  const pointer =
    slot.kind === 'defined'
      ? slot.node.pointer
      : pointerJoin(slot.kind === 'open' ? slot.pointer : version.pointer, 'properties', c.id);
  const status = synthesizeStatus(c.id, c.columns, pointer, c.at.pos, diagnostics);
  const handler: HandlerModel = { ...base, status, synthesized: true };
  const owner =
    slot.kind === 'defined' ? (slot.property ? slot.owner : undefined) : slot.kind === 'open' ? slot.owner : undefined;
  return { handler, placed: owner && { owner, id: c.id, status } };
}

function sortedSources(sources: Set<Source>): Source[] {
  const order: Source[] = ['printer-column', 'annotation', 'config'];
  return order.filter((s) => sources.has(s));
}

/** Whether `id` can be a handler id; if not, the reason is reported at `at` (KG201, KG202). */
function checkId(id: string, at: Located, severity: Severity, what: string, diagnostics: Diagnostic[]): boolean {
  const problem = handlerIdProblem(id);
  if (problem) diagnostics.push(diagnostic(at, severity, problem.code, `${what}: ${problem.message}`));
  return problem === undefined;
}

function diagnostic(at: Located, severity: Severity, code: string, message: string): Diagnostic {
  return { severity, code, message, file: at.pos.file, line: at.pos.line, col: at.pos.col, pointer: at.pointer };
}

/** Ids from `kopfgen.dev/handlers: "myapp, cleanup"`, each positioned inside the annotation's value where possible. */
function annotationIds(crd: CrdModel, diagnostics: Diagnostic[]): NamedId[] {
  const value = crd.annotations[HANDLERS_ANNOTATION];
  if (value === undefined) return [];
  const pos = crd.annotationPos?.[HANDLERS_ANNOTATION] ?? crd.pos;
  const pointer = pointerJoin(crd.pointer, 'metadata', 'annotations', HANDLERS_ANNOTATION);
  const out: NamedId[] = [];
  const re = /[^,\s]+/g;
  for (let m = re.exec(value); m; m = re.exec(value)) {
    // The loader positions the value after any opening quote, so columns inside a single-line value are exact.
    const col = crd.annotationPos && !value.includes('\n') ? pos.col + m.index : pos.col;
    out.push({
      id: m[0],
      source: 'annotation',
      at: { pointer, pos: { ...pos, col } },
      what: `annotation ${HANDLERS_ANNOTATION}`,
    });
  }
  if (out.length === 0) {
    diagnostics.push(
      diagnostic(
        { pointer, pos },
        'warning',
        'KG206',
        `annotation ${HANDLERS_ANNOTATION} names no handler ids (expected e.g. "myapp, cleanup")`,
      ),
    );
  }
  return out;
}

function optedOut(crd: CrdModel, options: GenerateOptions): boolean {
  return [crd.kind, `${crd.plural}.${crd.group}`].some((key) => options.handlers?.[key]?.length === 0);
}

function configIds(crd: CrdModel, options: GenerateOptions): NamedId[] {
  const out: NamedId[] = [];
  for (const key of [crd.kind, `${crd.plural}.${crd.group}`]) {
    const ids = options.handlers?.[key];
    if (!ids) continue;
    // Named in the configuration or by a flag: a problem with the id is reported there when known.
    const origin = options.handlerOrigins?.[key];
    for (const id of ids) {
      const pos = origin?.ids?.[id] ?? origin;
      out.push({
        id,
        source: 'config',
        at:
          pos && origin
            ? { pointer: pos.pointer, pos: { file: origin.file, line: pos.line, col: pos.col } }
            : { pointer: crd.pointer, pos: crd.pos },
        what: `configured handlers for ${key}${origin ? ` ${origin.what}` : ''}`,
      });
    }
  }
  return out;
}
