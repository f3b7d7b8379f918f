/**
 * CRD YAML node → CrdModel. Reads `apiextensions.k8s.io/v1` fully and normalises `v1beta1`
 * (top-level `validation`, `subresources`, `additionalPrinterColumns` with `JSONPath`, a single
 * `version`) into the same per-version shape.
 */
import { isScalar, type Document, type Node, type YAMLMap } from 'yaml';
import { pointerJoin, type Diagnostic, type SourcePos } from '../diagnostics.js';
import { CRD_API_VERSIONS } from '../load/parse-yaml.js';
import { asMap, asSeq, bool, deref, get, num, str, type CrdNode } from '../load/yaml-source.js';
import type { CrdModel, ObjectNode, PrinterColumn, ScaleSubresource, VersionModel } from './ir.js';
import { buildSchema, type SchemaContext } from './build-schema.js';

interface Reader {
  crd: CrdNode;
  doc: Document.Parsed;
  diagnostics: Diagnostic[];
  v1beta1: boolean;
}

export function buildCrd(crd: CrdNode, diagnostics: Diagnostic[]): CrdModel | undefined {
  const { doc, node, source } = crd;
  const apiVersion = str(get(node, 'apiVersion', doc)) ?? '';
  if (!CRD_API_VERSIONS.includes(apiVersion)) {
    diagnostics.push(source.diag('error', 'KG107', `unsupported CRD apiVersion \`${apiVersion}\` (expected apiextensions.k8s.io/v1 or v1beta1)`, get(node, 'apiVersion', doc), pointerJoin(crd.pointer, 'apiVersion')));
    return undefined;
  }
  const r: Reader = { crd, doc, diagnostics, v1beta1: apiVersion.endsWith('v1beta1') };
  const metadata = asMap(get(node, 'metadata', doc));
  const spec = asMap(get(node, 'spec', doc));
  const names = asMap(get(spec, 'names', doc));
  const specPointer = pointerJoin(crd.pointer, 'spec');
  const group = need(r, spec, 'group', specPointer, node);
  const kind = need(r, names, 'kind', pointerJoin(specPointer, 'names'), spec ?? node);
  const plural = need(r, names, 'plural', pointerJoin(specPointer, 'names'), spec ?? node);
  if (group === undefined || kind === undefined || plural === undefined) return undefined;
  const name = str(get(metadata, 'name', doc)) ?? `${plural}.${group}`;
  const model: CrdModel = {
    file: source.file,
    pointer: crd.pointer,
    pos: source.nodePos(node),
    name,
    group,
    kind,
    plural,
    singular: str(get(names, 'singular', doc)),
    listKind: str(get(names, 'listKind', doc)),
    shortNames: strings(get(names, 'shortNames', doc)),
    categories: strings(get(names, 'categories', doc)),
    scope: str(get(spec, 'scope', doc)) === 'Cluster' ? 'Cluster' : 'Namespaced',
    ...readAnnotations(crd, asMap(get(metadata, 'annotations', doc))),
    versions: readVersions(r, spec!, specPointer),
  };
  if (model.versions.length === 0) {
    diagnostics.push(source.diag('error', 'KG108', 'CRD declares no versions', spec, specPointer));
  }
  return model;
}

function readVersions(r: Reader, spec: YAMLMap, specPointer: string): VersionModel[] {
  const { doc } = r;
  const versions = asSeq(get(spec, 'versions', doc));
  // v1beta1 defaults shared by every version unless the version overrides them.
  const shared = {
    validation: asMap(get(spec, 'validation', doc)),
    subresources: asMap(get(spec, 'subresources', doc)),
    columns: asSeq(get(spec, 'additionalPrinterColumns', doc)),
  };
  if (!versions) {
    const single = str(get(spec, 'version', r.doc));
    if (!single) return [];
    return [readVersion(r, undefined, single, specPointer, shared, spec)];
  }
  return versions.items.map((item, i) => {
    const map = asMap(item as Node);
    const pointer = pointerJoin(specPointer, 'versions', i);
    const name = str(get(map, 'name', doc)) ?? '';
    if (!name) r.diagnostics.push(r.crd.source.diag('error', 'KG108', 'version without `name`', item as Node, pointer));
    return readVersion(r, map, name, pointer, shared, map ?? spec);
  });
}

function readVersion(
  r: Reader,
  map: YAMLMap | undefined,
  name: string,
  pointer: string,
  shared: { validation?: YAMLMap; subresources?: YAMLMap; columns?: ReturnType<typeof asSeq> },
  at: YAMLMap,
): VersionModel {
  const { doc, crd } = r;
  const ownSchema = asMap(get(map, 'schema', doc));
  const validation = ownSchema ?? shared.validation;
  const validationPointer = ownSchema ? pointerJoin(pointer, 'schema') : pointerJoin(crd.pointer, 'spec', 'validation');
  const schemaNode = get(validation, 'openAPIV3Schema', doc);
  const subresources = asMap(get(map, 'subresources', doc)) ?? shared.subresources;
  const ownColumns = asSeq(get(map, 'additionalPrinterColumns', doc));
  const columns = ownColumns ?? shared.columns;
  const columnsPointer = ownColumns ? pointerJoin(pointer, 'additionalPrinterColumns') : pointerJoin(crd.pointer, 'spec', 'additionalPrinterColumns');
  const version: VersionModel = {
    pointer,
    pos: crd.source.nodePos(map ?? at),
    name,
    served: bool(get(map, 'served', doc)) ?? true,
    storage: bool(get(map, 'storage', doc)) ?? !map,
    deprecated: bool(get(map, 'deprecated', doc)) ?? false,
    deprecationWarning: str(get(map, 'deprecationWarning', doc)),
    subresources: { status: get(subresources, 'status', doc) !== undefined, scale: readScale(r, asMap(get(subresources, 'scale', doc))) },
    printerColumns: readColumns(r, columns, columnsPointer),
    handlers: [],
  };
  if (schemaNode === undefined) {
    r.diagnostics.push(crd.source.diag('error', 'KG109', `version ${name} has no schema (openAPIV3Schema); kopfgen needs one to generate types`, map ?? at, pointer));
  } else {
    const ctx: SchemaContext = { source: crd.source, doc, diagnostics: r.diagnostics, structural: r.v1beta1 ? 'warning' : 'error' };
    const schema = buildSchema(ctx, schemaNode, pointerJoin(validationPointer, 'openAPIV3Schema'));
    if (schema.type === 'object') version.schema = schema;
    else version.schema = rootFallback(schema);
  }
  return version;
}

/** A root schema that is not `type: object` still describes an object (the API server requires it). */
function rootFallback(schema: { pointer: string; pos: ObjectNode['pos']; description?: string }): ObjectNode {
  return { type: 'object', pointer: schema.pointer, pos: schema.pos, description: schema.description, nullable: false, doc: {}, properties: [], preserveUnknownFields: true, embeddedResource: false };
}

function readScale(r: Reader, map: YAMLMap | undefined): ScaleSubresource | undefined {
  if (!map) return undefined;
  const { doc } = r;
  return {
    specReplicasPath: str(get(map, 'specReplicasPath', doc)) ?? '',
    statusReplicasPath: str(get(map, 'statusReplicasPath', doc)) ?? '',
    labelSelectorPath: str(get(map, 'labelSelectorPath', doc)),
  };
}

function readColumns(r: Reader, seq: ReturnType<typeof asSeq>, pointer: string): PrinterColumn[] {
  if (!seq) return [];
  const { doc, crd } = r;
  const columns: PrinterColumn[] = [];
  seq.items.forEach((item, i) => {
    const map = asMap(item as Node);
    const at = pointerJoin(pointer, i);
    const jsonPathNode = get(map, 'jsonPath', doc) ?? get(map, 'JSONPath', doc);
    const jsonPath = str(jsonPathNode);
    const name = str(get(map, 'name', doc));
    if (!map || !jsonPath || !name) {
      r.diagnostics.push(crd.source.diag('warning', 'KG108', 'printer column needs `name` and `jsonPath`; ignored', item as Node, at));
      return;
    }
    columns.push({
      pointer: at,
      pos: crd.source.nodePos(map),
      name,
      type: str(get(map, 'type', doc)) ?? 'string',
      jsonPath,
      jsonPathPos: valuePos(crd, jsonPathNode),
      description: str(get(map, 'description', doc)),
      format: str(get(map, 'format', doc)),
      priority: num(get(map, 'priority', doc)),
    });
  });
  return columns;
}

function need(r: Reader, map: YAMLMap | undefined, key: string, pointer: string, at: Node): string | undefined {
  const value = str(get(map, key, r.doc));
  if (!value) r.diagnostics.push(r.crd.source.diag('error', 'KG108', `CRD is missing \`${key}\``, map ?? at, pointerJoin(pointer, key)));
  return value;
}

function strings(node: Node | undefined): string[] {
  const seq = asSeq(node);
  return seq ? seq.items.map((i) => str(i as Node)).filter((s): s is string => s !== undefined) : [];
}

/** Where a scalar's value text starts: after the opening quote of a quoted scalar, so columns computed inside the value are exact. */
function valuePos(crd: CrdNode, node: Node | undefined): SourcePos | undefined {
  if (!node?.range) return undefined;
  const quoted = isScalar(node) && (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE');
  return crd.source.pos(node.range[0] + (quoted ? 1 : 0));
}

/** `metadata.annotations` as strings, and where each value starts (for diagnostics about it). */
function readAnnotations(crd: CrdNode, map: YAMLMap | undefined): Pick<CrdModel, 'annotations' | 'annotationPos'> {
  const annotations: Record<string, string> = {};
  const annotationPos: Record<string, SourcePos> = {};
  for (const pair of map?.items ?? []) {
    const k = str(pair.key as Node);
    if (k === undefined) continue;
    const value = deref(pair.value, crd.doc);
    const v = str(value);
    if (v !== undefined) annotations[k] = v;
    const pos = valuePos(crd, value);
    if (pos) annotationPos[k] = pos;
  }
  return { annotations, annotationPos };
}
