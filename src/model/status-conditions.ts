/**
 * Whether a version's status schema has what the rest of the cluster reads to tell whether an
 * object is done (kstatus, `kubectl wait --for=condition=Ready`, Helm's and Flux's waits, Argo CD's
 * health): a `conditions` list of metav1.Condition entries and an integer `observedGeneration`. The
 * emitter records it on the descriptor (`statusConditions`, `statusObservedGeneration`), so the
 * runtime keeps both from the handlers' outcomes; where a CRD with handlers lacks them, the handler
 * pass says so once (KG209) with the schema to add.
 */
import type { Diagnostic } from '../diagnostics.js';
import type { CrdModel, ObjectNode, VersionModel } from './ir.js';

export interface StatusConditionFields {
  conditions: boolean;
  observedGeneration: boolean;
}

function statusNode(version: VersionModel): ObjectNode | undefined {
  const status = version.schema?.properties.find((p) => p.name === 'status')?.schema;
  return status?.type === 'object' ? status : undefined;
}

/** The condition types the runtime sets itself: an enum on `conditions[].type` must allow them. */
export const RUNTIME_CONDITIONS = ['Ready', 'Reconciling', 'Stalled'];

/**
 * The fields the status schema of `version` (as written in the CRD) holds: `conditions` an array of
 * objects with `type` and `status` (metav1.Condition's keys; the runtime writes its entries whole)
 * whose `type`, where an enum limits it, allows the runtime's own types (else the API server would
 * refuse the whole status write), `observedGeneration` an integer.
 */
export function statusConditionFields(version: VersionModel): StatusConditionFields {
  const status = statusNode(version);
  const field = (name: string) => status?.properties.find((p) => p.name === name)?.schema;
  const conditions = field('conditions');
  const items = conditions?.type === 'array' ? conditions.items : undefined;
  const properties = items?.type === 'object' ? items.properties : [];
  const type = properties.find((p) => p.name === 'type')?.schema;
  const allowed = type?.type === 'string' && type.enum ? type.enum : undefined;
  return {
    conditions:
      type !== undefined &&
      properties.some((p) => p.name === 'status') &&
      (allowed === undefined || RUNTIME_CONDITIONS.every((name) => allowed.includes(name))),
    observedGeneration: field('observedGeneration')?.type === 'integer',
  };
}

/**
 * The status schema to add, as flow YAML (one line, so a diagnostic carries it whole): metav1.Condition's
 * schema as controller-gen writes it, a map list keyed by `type` (so server-side apply merges entries by
 * type), and `observedGeneration`.
 */
export const CONDITIONS_SCHEMA =
  '{conditions: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [type], items: {type: object, ' +
  'required: [type, status, lastTransitionTime, reason, message], properties: {type: {type: string, maxLength: 316}, ' +
  "status: {type: string, enum: ['True', 'False', 'Unknown']}, reason: {type: string, maxLength: 1024}, " +
  'message: {type: string, maxLength: 32768}, lastTransitionTime: {type: string, format: date-time}, ' +
  'observedGeneration: {type: integer, format: int64, minimum: 0}}}}, observedGeneration: {type: integer, format: int64}}';

/** The printer column showing the Ready condition (`kubectl get`'s READY). */
export const READY_COLUMN = `{name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}`;

/**
 * KG209 (a note), once per CRD with handlers whose storage version's status schema lacks `conditions`
 * or `observedGeneration`: without them nothing outside the operator can tell whether an object is
 * handled. At the version, naming what to add.
 */
export function conditionsHint(crd: CrdModel, hasHandlers: boolean): Diagnostic | undefined {
  if (!hasHandlers) return undefined;
  const version = crd.versions.find((v) => v.storage) ?? crd.versions[0];
  if (!version) return undefined;
  const fields = statusConditionFields(version);
  if (fields.conditions && fields.observedGeneration) return undefined;
  const missing = [fields.conditions ? [] : ['conditions'], fields.observedGeneration ? [] : ['observedGeneration']]
    .flat()
    .join(' and ');
  const hasStatus = statusNode(version) !== undefined;
  const where = hasStatus ? 'under status.properties' : 'as status: {type: object, properties: …}';
  return {
    severity: 'note',
    code: 'KG209',
    message:
      `${crd.kind} has handlers but its status schema (version ${version.name}) has no ${missing}: ` +
      `kubectl wait, Helm, Flux and Argo CD cannot tell when an object is handled. Add ${where} ${CONDITIONS_SCHEMA} ` +
      `and to additionalPrinterColumns ${READY_COLUMN}; the runtime then keeps Ready, Reconciling, Stalled and ` +
      `observedGeneration from the handlers' outcomes`,
    file: version.pos.file,
    line: version.pos.line,
    col: version.pos.col,
    pointer: version.pointer,
  };
}
