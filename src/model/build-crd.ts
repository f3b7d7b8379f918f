/**
 * CRD YAML node → CrdModel. Reads `apiextensions.k8s.io/v1` fully and normalises `v1beta1`
 * (top-level `validation`, `subresources`, `additionalPrinterColumns` with `JSONPath`, a single
 * `version`) into the same per-version shape.
 */
import { pointerJoin, type Diagnostic, type SourcePos } from '../diagnostics.js';
import type { CrdDocument, DocMap, DocNode } from '../load/doc-tree.js';
import { asMap, asSeq, bool, diag, get, nodePos, num, str } from './doc-read.js';
import type { CrdModel, ObjectNode, PrinterColumn, ScaleSubresource, VersionModel } from './ir.js';
import { buildSchema, type SchemaContext } from './build-schema.js';
import { validateCrd } from './validate-crd.js';
import { validateSchema } from './validate-schema.js';

export const CRD_API_VERSIONS = ['apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1'];

interface Reader {
  crd: CrdDocument;
  diagnostics: Diagnostic[];
  v1beta1: boolean;
  /** Schemas already checked: v1beta1's top-level `validation` is every version's schema, checked once. */
  validated: Set<DocNode>;
}

export function buildCrd(crd: CrdDocument, diagnostics: Diagnostic[]): CrdModel | undefined {
  const { node, source } = crd;
  const apiVersion = str(get(node, 'apiVersion')) ?? '';
  if (!CRD_API_VERSIONS.includes(apiVersion)) {
    diagnostics.push(
      diag(
        source,
        'error',
        'KG107',
        `unsupported CRD apiVersion \`${apiVersion}\` (expected apiextensions.k8s.io/v1 or v1beta1)`,
        get(node, 'apiVersion'),
        pointerJoin(crd.pointer, 'apiVersion'),
      ),
    );
    return undefined;
  }
  const r: Reader = { crd, diagnostics, v1beta1: apiVersion.endsWith('v1beta1'), validated: new Set() };
  for (const d of validateCrd(crd)) diagnostics.push(d);
  const metadata = asMap(get(node, 'metadata'));
  const spec = asMap(get(node, 'spec'));
  const names = asMap(get(spec, 'names'));
  const specPointer = pointerJoin(crd.pointer, 'spec');
  const group = need(r, spec, 'group', specPointer, node);
  const kind = need(r, names, 'kind', pointerJoin(specPointer, 'names'), spec ?? node);
  const plural = need(r, names, 'plural', pointerJoin(specPointer, 'names'), spec ?? node);
  if (!spec || group === undefined || kind === undefined || plural === undefined) return undefined;
  const name = str(get(metadata, 'name')) ?? `${plural}.${group}`;
  const model: CrdModel = {
    file: source.file,
    pointer: crd.pointer,
    pos: nodePos(source, node),
    name,
    group,
    kind,
    plural,
    singular: str(get(names, 'singular')),
    listKind: str(get(names, 'listKind')),
    shortNames: strings(get(names, 'shortNames')),
    categories: strings(get(names, 'categories')),
    scope: str(get(spec, 'scope')) === 'Cluster' ? 'Cluster' : 'Namespaced',
    ...readAnnotations(crd, asMap(get(metadata, 'annotations'))),
    versions: readVersions(r, spec, specPointer),
  };
  const strategy = str(get(asMap(get(spec, 'conversion')), 'strategy'));
  if (strategy !== undefined) model.conversionStrategy = strategy;
  if (model.versions.length === 0) {
    diagnostics.push(diag(source, 'error', 'KG108', 'CRD declares no versions', spec, specPointer));
  }
  return model;
}

function readVersions(r: Reader, spec: DocMap, specPointer: string): VersionModel[] {
  const versions = asSeq(get(spec, 'versions'));
  // v1beta1 defaults shared by every version unless the version overrides them.
  const shared = {
    validation: asMap(get(spec, 'validation')),
    subresources: asMap(get(spec, 'subresources')),
    columns: asSeq(get(spec, 'additionalPrinterColumns')),
  };
  if (!versions) {
    const single = str(get(spec, 'version'));
    if (!single) return [];
    return [readVersion(r, undefined, single, specPointer, shared, spec)];
  }
  return versions.items.map((item, i) => {
    const map = asMap(item);
    const pointer = pointerJoin(specPointer, 'versions', i);
    const name = str(get(map, 'name')) ?? '';
    if (!name) r.diagnostics.push(diag(r.crd.source, 'error', 'KG108', 'version without `name`', item, pointer));
    return readVersion(r, map, name, pointer, shared, map ?? spec);
  });
}

function readVersion(
  r: Reader,
  map: DocMap | undefined,
  name: string,
  pointer: string,
  shared: { validation?: DocMap; subresources?: DocMap; columns?: ReturnType<typeof asSeq> },
  at: DocMap,
): VersionModel {
  const { crd } = r;
  const ownSchema = asMap(get(map, 'schema'));
  const validation = ownSchema ?? shared.validation;
  const validationPointer = ownSchema ? pointerJoin(pointer, 'schema') : pointerJoin(crd.pointer, 'spec', 'validation');
  const schemaNode = get(validation, 'openAPIV3Schema');
  const subresources = asMap(get(map, 'subresources')) ?? shared.subresources;
  const ownColumns = asSeq(get(map, 'additionalPrinterColumns'));
  const columns = ownColumns ?? shared.columns;
  const columnsPointer = ownColumns
    ? pointerJoin(pointer, 'additionalPrinterColumns')
    : pointerJoin(crd.pointer, 'spec', 'additionalPrinterColumns');
  const version: VersionModel = {
    pointer,
    pos: nodePos(crd.source, map ?? at),
    name,
    served: bool(get(map, 'served')) ?? true,
    storage: bool(get(map, 'storage')) ?? !map,
    deprecated: bool(get(map, 'deprecated')) ?? false,
    deprecationWarning: str(get(map, 'deprecationWarning')),
    subresources: {
      status: get(subresources, 'status') !== undefined,
      scale: readScale(r, asMap(get(subresources, 'scale'))),
    },
    printerColumns: readColumns(r, columns, columnsPointer),
  };
  if (schemaNode === undefined) {
    r.diagnostics.push(
      diag(
        crd.source,
        'error',
        'KG109',
        `version ${name} has no schema (openAPIV3Schema); kopfgen needs one to generate types`,
        map ?? at,
        pointer,
      ),
    );
  } else {
    const ctx: SchemaContext = {
      source: crd.source,
      diagnostics: r.diagnostics,
      structural: r.v1beta1 ? 'warning' : 'error',
    };
    const schemaPointer = pointerJoin(validationPointer, 'openAPIV3Schema');
    const schema = buildSchema(ctx, schemaNode, schemaPointer);
    if (!r.validated.has(schemaNode)) {
      r.validated.add(schemaNode);
      for (const d of validateSchema(crd.source, schemaNode, schemaPointer, ctx.structural)) r.diagnostics.push(d);
    }
    if (schema.type === 'object') version.schema = schema;
    else version.schema = rootFallback(schema);
  }
  return version;
}

/** A root schema that is not `type: object` still describes an object (the API server requires it). */
function rootFallback(schema: { pointer: string; pos: ObjectNode['pos']; description?: string }): ObjectNode {
  return {
    type: 'object',
    pointer: schema.pointer,
    pos: schema.pos,
    description: schema.description,
    nullable: false,
    doc: {},
    properties: [],
    preserveUnknownFields: true,
    embeddedResource: false,
  };
}

function readScale(r: Reader, map: DocMap | undefined): ScaleSubresource | undefined {
  if (!map) return undefined;
  return {
    specReplicasPath: str(get(map, 'specReplicasPath')) ?? '',
    statusReplicasPath: str(get(map, 'statusReplicasPath')) ?? '',
    labelSelectorPath: str(get(map, 'labelSelectorPath')),
  };
}

function readColumns(r: Reader, seq: ReturnType<typeof asSeq>, pointer: string): PrinterColumn[] {
  if (!seq) return [];
  const { crd } = r;
  const columns: PrinterColumn[] = [];
  seq.items.forEach((item, i) => {
    const map = asMap(item);
    const at = pointerJoin(pointer, i);
    const jsonPathNode = get(map, 'jsonPath') ?? get(map, 'JSONPath');
    const jsonPath = str(jsonPathNode);
    const name = str(get(map, 'name'));
    if (!map || !jsonPath || !name) {
      r.diagnostics.push(
        diag(crd.source, 'warning', 'KG108', 'printer column needs `name` and `jsonPath`; ignored', item, at),
      );
      return;
    }
    columns.push({
      pointer: at,
      pos: nodePos(crd.source, map),
      name,
      type: str(get(map, 'type')) ?? 'string',
      jsonPath,
      jsonPathPos: valuePos(crd, jsonPathNode),
      description: str(get(map, 'description')),
      format: str(get(map, 'format')),
      priority: num(get(map, 'priority')),
    });
  });
  return columns;
}

function need(r: Reader, map: DocMap | undefined, key: string, pointer: string, at: DocNode): string | undefined {
  const value = str(get(map, key));
  if (!value)
    r.diagnostics.push(
      diag(r.crd.source, 'error', 'KG108', `CRD is missing \`${key}\``, map ?? at, pointerJoin(pointer, key)),
    );
  return value;
}

function strings(node: DocNode | undefined): string[] {
  const seq = asSeq(node);
  return seq ? seq.items.map((i) => str(i)).filter((s): s is string => s !== undefined) : [];
}

/** Where a scalar's value text starts: after the opening quote of a quoted scalar, so columns computed inside the value are exact. */
function valuePos(crd: CrdDocument, node: DocNode | undefined): SourcePos | undefined {
  if (!node) return undefined;
  return crd.source.pos(node.offset + (node.kind === 'scalar' && node.quoted ? 1 : 0));
}

/** `metadata.annotations` as strings, and where each value starts (for diagnostics about it). */
function readAnnotations(crd: CrdDocument, map: DocMap | undefined): Pick<CrdModel, 'annotations' | 'annotationPos'> {
  const annotations: Record<string, string> = {};
  const annotationPos: Record<string, SourcePos> = {};
  for (const [k, entry] of map?.entries ?? []) {
    const value = entry.value;
    const v = str(value);
    if (v !== undefined) annotations[k] = v;
    const pos = valuePos(crd, value);
    if (pos) annotationPos[k] = pos;
  }
  return { annotations, annotationPos };
}
