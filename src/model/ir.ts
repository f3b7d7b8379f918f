/**
 * The intermediate representation between loading and emitting. Emitters see only this,
 * never YAML; every node keeps its JSON pointer and source position so later stages
 * (cross-checks, handler discovery) can still report with file:line:col.
 *
 * Shared contract: add fields freely, do not rename or remove existing ones.
 */
import type { SourcePos } from '../diagnostics.js';

export interface Located {
  /** JSON pointer into the CRD document. */
  pointer: string;
  pos: SourcePos;
}

/** Documentation-only facts of a schema node, rendered as JSDoc so editor hovers show them. */
export interface DocTags {
  format?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  example?: unknown;
  minProperties?: number;
  maxProperties?: number;
  /** `x-kubernetes-validations`, each with what the API server reads of it. */
  validations?: {
    rule: string;
    message?: string;
    messageExpression?: string;
    reason?: string;
    fieldPath?: string;
    optionalOldSelf?: boolean;
  }[];
}

interface NodeBase extends Located {
  description?: string;
  nullable: boolean;
  doc: DocTags;
}

export interface PropertyNode {
  name: string;
  required: boolean;
  schema: SchemaNode;
}

export interface ObjectNode extends NodeBase {
  type: 'object';
  properties: PropertyNode[];
  /** A schema for the values of a map (`additionalProperties: {...}`), or `'any'` for `additionalProperties: true`. */
  additionalProperties?: SchemaNode | 'any';
  /** `x-kubernetes-preserve-unknown-fields: true`: unknown keys survive, known ones stay typed. */
  preserveUnknownFields: boolean;
  /** `x-kubernetes-embedded-resource: true`: apiVersion/kind/metadata are implied. */
  embeddedResource: boolean;
}

export interface ArrayNode extends NodeBase {
  type: 'array';
  /** Undefined when the schema gives no `items` (non-structural, reported by the loader). */
  items?: SchemaNode;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
  /** `x-kubernetes-preserve-unknown-fields: true` on the list: its items keep their unknown fields. */
  preserveUnknownFields?: boolean;
}

export interface ScalarNode extends NodeBase {
  type: 'string' | 'integer' | 'number' | 'boolean';
  /** The enum's values of the node's type (a value of another type admits no object: left out). */
  enum?: (string | number | boolean | null)[];
  /** The enum lists values, none of them of the node's type: no value passes, the field can only be absent. */
  noValue?: true;
}

/** `x-kubernetes-int-or-string: true`. */
export interface IntOrStringNode extends NodeBase {
  type: 'int-or-string';
}

/** No type at all (e.g. bare `x-kubernetes-preserve-unknown-fields`): any JSON value. */
export interface UnknownNode extends NodeBase {
  type: 'unknown';
}

export type SchemaNode = ObjectNode | ArrayNode | ScalarNode | IntOrStringNode | UnknownNode;

export interface PrinterColumn extends Located {
  name: string;
  /** integer | number | string | boolean | date */
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
  /** Position of the `jsonPath` value itself (handler diagnostics point there); falls back to `pos`. */
  jsonPathPos?: SourcePos;
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** A handler id and the status type its return value (and its errors' status) has. Returned by the handler pass. */
export interface HandlerModel extends Located {
  /** The kopf handler id; results land in `status.<id>`. */
  id: string;
  /** Where the id came from; merged when several sources name it. */
  sources: ('printer-column' | 'annotation' | 'config')[];
  /** The node at `status.<id>` (taken from the schema, or synthesised from printer columns). */
  status: SchemaNode;
  /** True when `status` was synthesised from printer columns rather than read from the schema. */
  synthesized: boolean;
  /** Printer columns whose jsonPath reads from `.status.<id>`. */
  columns: PrinterColumn[];
}

export interface VersionModel extends Located {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning?: string;
  /** `openAPIV3Schema` (v1) or the CRD-level `validation` (v1beta1); undefined when absent. */
  schema?: ObjectNode;
  subresources: { status: boolean; scale?: ScaleSubresource };
  printerColumns: PrinterColumn[];
}

export interface CrdModel extends Located {
  /** The CRD file as the user named it. */
  file: string;
  /** `metadata.name`, `<plural>.<group>`. */
  name: string;
  group: string;
  kind: string;
  plural: string;
  singular?: string;
  listKind?: string;
  shortNames: string[];
  categories: string[];
  scope: 'Namespaced' | 'Cluster';
  /** `metadata.annotations` of the CRD object (e.g. `kopfgen.dev/handlers`). */
  annotations: Record<string, string>;
  /** Position of each annotation's value (e.g. `kopfgen.dev/handlers`), for diagnostics; falls back to `pos`. */
  annotationPos?: Record<string, SourcePos>;
  versions: VersionModel[];
  /** `spec.conversion.strategy` as written (`None` when absent): `Webhook` asks for conversion functions. */
  conversionStrategy?: string;
}
