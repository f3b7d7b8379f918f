/**
 * Hand-built IR for the handler tests: a CRD model as the loader would produce it, with
 * synthetic but distinct positions so tests can assert where diagnostics point.
 */
import type {
  CrdModel,
  ObjectNode,
  PrinterColumn,
  PropertyNode,
  ScalarNode,
  SchemaNode,
  VersionModel,
} from '../../src/model/ir.js';

export const FILE = 'crds/test.yaml';

const at = (pointer: string, line = 1, col = 1) => ({ pointer, pos: { file: FILE, line, col } });

export function array(items: SchemaNode): SchemaNode {
  return { type: 'array', ...at(''), nullable: false, doc: {}, items };
}

export function scalar(type: ScalarNode['type'], extra: Partial<ScalarNode> = {}): ScalarNode {
  return { type, ...at(''), nullable: false, doc: {}, ...extra };
}

export function obj(
  properties: Record<string, SchemaNode>,
  options: { open?: boolean; required?: string[] } = {},
): ObjectNode {
  const props: PropertyNode[] = Object.entries(properties).map(([name, schema]) => ({
    name,
    required: options.required?.includes(name) ?? false,
    schema,
  }));
  return {
    type: 'object',
    ...at(''),
    nullable: false,
    doc: {},
    properties: props,
    preserveUnknownFields: options.open ?? false,
    embeddedResource: false,
  };
}

/** Fixes every node's pointer to its place under `base`, as the loader does. */
function place(node: SchemaNode, pointer: string): void {
  node.pointer = pointer;
  if (node.type === 'object') for (const p of node.properties) place(p.schema, `${pointer}/properties/${p.name}`);
  if (node.type === 'array' && node.items) place(node.items, `${pointer}/items`);
  if (node.type === 'object' && typeof node.additionalProperties === 'object')
    place(node.additionalProperties, `${pointer}/additionalProperties`);
}

export interface ColumnSpec {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
}

export interface VersionSpec {
  name?: string;
  /** The status schema; `null` for a schema without status; `undefined` for no schema at all. */
  status?: SchemaNode | null;
  /** The spec schema (default: an object that keeps unknown fields). */
  spec?: SchemaNode;
  rootOpen?: boolean;
  columns?: ColumnSpec[];
  storage?: boolean;
}

/** Column `i` of version `v` sits at line 20 + 10·v + i, column 21 (its jsonPath value). */
export function columnLine(v: number, i: number): number {
  return 20 + 10 * v + i;
}

export function version(spec: VersionSpec, v = 0): VersionModel {
  const pointer = `/spec/versions/${v}`;
  const columns: PrinterColumn[] = (spec.columns ?? []).map((c, i) => ({
    ...c,
    ...at(`${pointer}/additionalPrinterColumns/${i}`, columnLine(v, i), 9),
    jsonPathPos: { file: FILE, line: columnLine(v, i), col: 21 },
  }));
  let schema: ObjectNode | undefined;
  if (spec.status !== undefined) {
    const props: Record<string, SchemaNode> = { spec: spec.spec ?? obj({}, { open: true }) };
    if (spec.status) props.status = spec.status;
    schema = obj(props, { open: spec.rootOpen });
    place(schema, `${pointer}/schema/openAPIV3Schema`);
  }
  return {
    name: spec.name ?? 'v1',
    ...at(pointer, 5 + v),
    served: true,
    storage: spec.storage ?? v === 0,
    deprecated: false,
    schema,
    subresources: { status: true },
    printerColumns: columns,
  };
}

export interface CrdSpec {
  kind?: string;
  group?: string;
  plural?: string;
  annotations?: Record<string, string>;
  versions: VersionSpec[];
}

/** The `kopfgen.dev/handlers` annotation value starts at line 4, column 28. */
export const ANNOTATION_LINE = 4;
export const ANNOTATION_COL = 28;

export function crd(spec: CrdSpec): CrdModel {
  const kind = spec.kind ?? 'MyResource';
  const group = spec.group ?? 'example.com';
  const plural = spec.plural ?? kind.toLowerCase() + 's';
  const annotations = spec.annotations ?? {};
  return {
    file: FILE,
    ...at('', 1, 1),
    name: `${plural}.${group}`,
    group,
    kind,
    plural,
    shortNames: [],
    categories: [],
    scope: 'Namespaced',
    annotations,
    annotationPos: Object.fromEntries(
      Object.keys(annotations).map((k) => [k, { file: FILE, line: ANNOTATION_LINE, col: ANNOTATION_COL }]),
    ),
    versions: spec.versions.map((v, i) => version(v, i)),
  };
}

/** The property node at a dotted path below a version's status, or undefined. */
export function statusProperty(v: VersionModel, path: string): SchemaNode | undefined {
  let node: SchemaNode | undefined = v.schema?.properties.find((p) => p.name === 'status')?.schema;
  for (const name of path.split('.')) {
    if (!node || node.type !== 'object') return undefined;
    node = node.properties.find((p) => p.name === name)?.schema;
  }
  return node;
}
