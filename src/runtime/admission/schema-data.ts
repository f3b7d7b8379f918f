/**
 * The schema data a generated `<plural>.schemas.ts` module holds (docs/topics/conversion.md, "Schema data"): each
 * served version's structural schema as JSON Schema. Read by the runtime's admission check
 * (`schema-admission.ts`) and by `kopfgen/testing` (objects sampled from it, the in-memory client).
 */
/** The schema data module's content (docs/topics/conversion.md, "Schema data"). */
export interface SchemaData {
  kopfgen: 1;
  crd: string;
  group: string;
  kind: string;
  plural: string;
  scope: 'Namespaced' | 'Cluster';
  /** The storage version (the conversion hub). */
  storage: string;
  versions: Record<string, JsonSchema>;
}

export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | true;
  items?: JsonSchema;
  enum?: unknown[];
  nullable?: boolean;
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
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  minProperties?: number;
  maxProperties?: number;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-validations'?: ValidationRule[];
}

/** One `x-kubernetes-validations` entry (apiextensions/v1 `ValidationRule`). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/**
 * Parses a schema data module's text (`<Kind>SchemaText`), checking its format marker; data parsed
 * before is returned as it is, so every function of the kit takes either.
 */
export function parseSchemaData(text: SchemaData | string): SchemaData {
  if (typeof text !== 'string') return text;
  const data: unknown = JSON.parse(text);
  if (typeof data !== 'object' || data === null || Reflect.get(data, 'kopfgen') !== 1)
    throw new Error('not a kopfgen schema data text (expected {"kopfgen":1,…})');
  return data as SchemaData;
}
