/**
 * The CRD-level checks of the API server (k8s.io/apiextensions-apiserver
 * pkg/apis/apiextensions/validation: `ValidateCustomResourceDefinition`,
 * `ValidateCustomResourceDefinitionNames`, `ValidateCustomResourceDefinitionSpec`,
 * `ValidateCustomResourceColumnDefinition`), over the positioned document tree: a CRD the
 * server would refuse to create is refused here, with the position of the offending value,
 * instead of generating code for a resource that can never exist. Absent required fields are
 * `build-crd.ts`'s (KG108); the schema's own rules are `validate-schema.ts`'s.
 */
import { pointerJoin, type Diagnostic } from '../diagnostics.js';
import type { CrdDocument, DocMap, DocNode, DocSeq } from '../load/doc-tree.js';
import { checkColumnPath } from './column-path.js';
import { asMap, asSeq, diag, get } from './doc-read.js';

/** k8s.io/apimachinery `IsDNS1035Label`: what the server requires of plural, singular, short names, categories, version names and the lowercased kind. */
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** k8s.io/apimachinery `IsDNS1123Subdomain`: what the server requires of the group. */
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** `printerColumnDatatypes` and `customResourceColumnDefinitionFormats` of the apiextensions validation. */
export const COLUMN_TYPES = ['integer', 'number', 'string', 'boolean', 'date'];
export const COLUMN_FORMATS = ['int32', 'int64', 'float', 'double', 'byte', 'date', 'date-time', 'password'];

interface Check {
  crd: CrdDocument;
  out: Diagnostic[];
}

export function validateCrd(crd: CrdDocument): Diagnostic[] {
  const c: Check = { crd, out: [] };
  const { node } = crd;
  const spec = asMap(get(node, 'spec'));
  const specPointer = pointerJoin(crd.pointer, 'spec');
  const names = asMap(get(spec, 'names'));
  const namesPointer = pointerJoin(specPointer, 'names');
  const group = text(c, get(spec, 'group'), pointerJoin(specPointer, 'group'), 'group');
  const plural = text(c, get(names, 'plural'), pointerJoin(namesPointer, 'plural'), 'plural');
  if (group !== undefined) checkGroup(c, get(spec, 'group'), group, pointerJoin(specPointer, 'group'));
  checkNames(c, names, namesPointer, plural);
  if (spec) checkScope(c, get(spec, 'scope'), pointerJoin(specPointer, 'scope'));
  checkMetadataName(c, group, plural);
  if (spec) checkVersions(c, spec, specPointer);
  return c.out;
}

function error(c: Check, code: string, message: string, node: DocNode | undefined, pointer: string): void {
  c.out.push(diag(c.crd.source, 'error', code, message, node, pointer));
}

/**
 * The string value of a name field, or undefined. A number or boolean (`kind: 123`) is KG124:
 * the server's decoder refuses it before any other check, and reading it as text would name a
 * type after a value the user never wrote as a name.
 */
function text(c: Check, node: DocNode | undefined, pointer: string, what: string): string | undefined {
  if (node?.kind !== 'scalar' || node.value === null) return undefined;
  if (typeof node.value === 'string') return node.value;
  const shown = String(node.value);
  error(
    c,
    'KG124',
    `${what} must be a string, not the ${typeof node.value === 'boolean' ? 'boolean' : 'number'} ${shown}; the API server rejects it`,
    node,
    pointer,
  );
  return undefined;
}

function dns1035(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!DNS1035_LABEL.test(value))
    return "must consist of lower case alphanumeric characters or '-', start with a letter and end with an alphanumeric character (a DNS-1035 label, e.g. `my-name`)";
  return undefined;
}

function checkGroup(c: Check, node: DocNode | undefined, group: string, pointer: string): void {
  let problem: string | undefined;
  if (group.length > 253) problem = 'must be no more than 253 characters';
  else if (!DNS1123_SUBDOMAIN.test(group))
    problem =
      "must be a DNS-1123 subdomain: lower case alphanumeric characters, '-' and '.', starting and ending with an alphanumeric character (e.g. `example.com`)";
  else if (!group.includes('.')) problem = 'should be a domain with at least one dot (e.g. `example.com`)';
  if (problem) error(c, 'KG121', `group \`${group}\` ${problem}`, node, pointer);
}

/** `plural` is read (and KG124 reported) by the caller, which needs it for metadata.name. */
function checkNames(c: Check, names: DocMap | undefined, pointer: string, plural: string | undefined): void {
  const singularNode = get(names, 'singular');
  const values: [string, DocNode | undefined, string | undefined][] = [
    ['plural', get(names, 'plural'), plural],
    ['singular', singularNode, text(c, singularNode, pointerJoin(pointer, 'singular'), 'singular')],
  ];
  for (const [key, node, value] of values) {
    const problem = value ? dns1035(value) : undefined;
    if (problem) error(c, 'KG122', `${key} \`${value}\` ${problem}`, node, pointerJoin(pointer, key));
  }
  for (const key of ['shortNames', 'categories']) {
    asSeq(get(names, key))?.items.forEach((item, i) => {
      const at = pointerJoin(pointer, key, i);
      const value = text(c, item, at, `${key}[${i}]`);
      const problem = value === undefined ? undefined : dns1035(value);
      if (problem) error(c, 'KG122', `${key} entry \`${value}\` ${problem}`, item, at);
    });
  }
  const kindNode = get(names, 'kind');
  const kind = text(c, kindNode, pointerJoin(pointer, 'kind'), 'kind');
  if (kind) checkKind(c, kindNode, kind, pointerJoin(pointer, 'kind'), 'kind');
  const listKindNode = get(names, 'listKind');
  const listKind = text(c, listKindNode, pointerJoin(pointer, 'listKind'), 'listKind');
  if (listKind) checkKind(c, listKindNode, listKind, pointerJoin(pointer, 'listKind'), 'listKind');
  if (kind && listKind === kind) {
    error(
      c,
      'KG123',
      'kind and listKind may not be the same (the API server could not tell a list from an item)',
      listKindNode,
      pointerJoin(pointer, 'listKind'),
    );
  }
}

/**
 * The server checks the lowercased kind as a DNS-1035 label ("may have mixed case, but should
 * otherwise match"), so a kind is ASCII letters, digits and `-`, starting with a letter. A
 * non-ASCII kind (`Größe`) is refused with an ASCII spelling to use instead.
 */
function checkKind(c: Check, node: DocNode | undefined, kind: string, pointer: string, what: string): void {
  const problem = dns1035(kind.toLowerCase());
  if (!problem) return;
  const ascii = asciiSpelling(kind);
  const hint =
    [...kind].some((ch) => ch.charCodeAt(0) > 0x7f) && ascii && !dns1035(ascii.toLowerCase())
      ? `; the API server accepts only ASCII letters, digits and '-': rename it, e.g. \`${ascii}\``
      : '';
  error(
    c,
    'KG123',
    `${what} \`${kind}\` may have mixed case, but ${problem.replace('lower case ', '')}${hint}`,
    node,
    pointer,
  );
}

/** `Größe` → `Grosse`: accents dropped, ß → ss, anything else non-ASCII removed. */
export function asciiSpelling(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/[^A-Za-z0-9-]/g, '');
}

function checkScope(c: Check, node: DocNode | undefined, pointer: string): void {
  const scope = text(c, node, pointer, 'scope');
  if (scope === undefined && node === undefined) {
    error(
      c,
      'KG131',
      'scope is required: `Namespaced` or `Cluster`',
      asMap(get(c.crd.node, 'spec')) ?? c.crd.node,
      pointer,
    );
  } else if (scope !== undefined && scope !== 'Namespaced' && scope !== 'Cluster') {
    error(c, 'KG131', `scope \`${scope}\` must be \`Namespaced\` or \`Cluster\``, node, pointer);
  }
}

/** The server requires `metadata.name` to be `<plural>.<group>`; two CRDs cannot then share group and plural under different names. */
function checkMetadataName(c: Check, group: string | undefined, plural: string | undefined): void {
  const metadata = asMap(get(c.crd.node, 'metadata'));
  const pointer = pointerJoin(c.crd.pointer, 'metadata', 'name');
  const node = get(metadata, 'name');
  const name = text(c, node, pointer, 'metadata.name');
  if (group === undefined || plural === undefined) return;
  const expected = `${plural}.${group}`;
  if (node === undefined) {
    error(
      c,
      'KG120',
      `metadata.name is required; it must be \`${expected}\` (spec.names.plural + "." + spec.group)`,
      metadata ?? c.crd.node,
      pointer,
    );
  } else if (name !== undefined && name !== expected) {
    error(
      c,
      'KG120',
      `metadata.name \`${name}\` must be \`${expected}\` (spec.names.plural + "." + spec.group)`,
      node,
      pointer,
    );
  }
}

function checkVersions(c: Check, spec: DocMap, specPointer: string): void {
  const versions: DocSeq | undefined = asSeq(get(spec, 'versions'));
  if (!versions) return; // v1beta1's single `version` is both served and storage; no `version` at all is KG108
  const pointer = pointerJoin(specPointer, 'versions');
  const seen = new Set<string>();
  const storage: DocNode[] = [];
  let served = false;
  versions.items.forEach((item, i) => {
    const map = asMap(item);
    const at = pointerJoin(pointer, i);
    const nameNode = get(map, 'name');
    const name = text(c, nameNode, pointerJoin(at, 'name'), 'version name');
    if (name) {
      const problem = dns1035(name);
      if (problem) error(c, 'KG126', `version name \`${name}\` ${problem}`, nameNode, pointerJoin(at, 'name'));
      if (seen.has(name))
        error(
          c,
          'KG125',
          `version \`${name}\` is declared twice; version names must be unique`,
          nameNode,
          pointerJoin(at, 'name'),
        );
      seen.add(name);
    }
    const storageNode = get(map, 'storage');
    if (storageNode?.kind === 'scalar' && storageNode.value === true) storage.push(storageNode);
    const servedNode = get(map, 'served');
    if (servedNode?.kind === 'scalar' && servedNode.value === true) served = true;
    checkColumns(c, asSeq(get(map, 'additionalPrinterColumns')), pointerJoin(at, 'additionalPrinterColumns'));
  });
  if (versions.items.length === 0) return; // KG108
  if (storage.length === 0) {
    error(
      c,
      'KG127',
      'no version has `storage: true`; exactly one version must be the storage version',
      versions,
      pointer,
    );
  }
  for (const extra of storage.slice(1)) {
    const i = versions.items.findIndex((v) => asMap(v)?.get('storage') === extra);
    error(
      c,
      'KG127',
      `more than one version has \`storage: true\`; exactly one version must be the storage version (the first is at line ${storage[0].pos.line})`,
      extra,
      pointerJoin(pointer, i, 'storage'),
    );
  }
  if (!served)
    error(
      c,
      'KG128',
      'no version has `served: true`; at least one version must be served, or the resource has no API',
      versions,
      pointer,
    );
  checkColumns(c, asSeq(get(spec, 'additionalPrinterColumns')), pointerJoin(specPointer, 'additionalPrinterColumns'));
}

function checkColumns(c: Check, columns: DocSeq | undefined, pointer: string): void {
  columns?.items.forEach((item, i) => {
    const map = asMap(item);
    const at = pointerJoin(pointer, i);
    const pathKey = get(map, 'jsonPath') !== undefined ? 'jsonPath' : 'JSONPath';
    const pathNode = get(map, pathKey);
    const path = text(c, pathNode, pointerJoin(at, pathKey), pathKey);
    const problem = path === undefined ? undefined : checkColumnPath(path);
    if (problem && pathNode) {
      const offset = pathNode.offset + (pathNode.kind === 'scalar' && pathNode.quoted ? 1 : 0) + problem.offset;
      const pos = c.crd.source.pos(offset);
      c.out.push({
        severity: 'error',
        code: 'KG129',
        message: `printer column path \`${path}\` ${problem.message}`,
        pointer: pointerJoin(at, pathKey),
        ...pos,
      });
    }
    const typeNode = get(map, 'type');
    const type = text(c, typeNode, pointerJoin(at, 'type'), 'column type');
    if (map && typeNode === undefined) {
      error(
        c,
        'KG130',
        `printer column needs a \`type\`: one of ${COLUMN_TYPES.join(', ')}`,
        map,
        pointerJoin(at, 'type'),
      );
    } else if (type !== undefined && !COLUMN_TYPES.includes(type)) {
      error(
        c,
        'KG130',
        `printer column type \`${type}\` is not one of ${COLUMN_TYPES.join(', ')}`,
        typeNode,
        pointerJoin(at, 'type'),
      );
    }
    const formatNode = get(map, 'format');
    const format = text(c, formatNode, pointerJoin(at, 'format'), 'column format');
    if (format && !COLUMN_FORMATS.includes(format)) {
      error(
        c,
        'KG130',
        `printer column format \`${format}\` is not one of ${COLUMN_FORMATS.join(', ')}`,
        formatNode,
        pointerJoin(at, 'format'),
      );
    }
  });
}
