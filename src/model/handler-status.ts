/**
 * Where a handler's status lives in a version's schema (`status.<id>`), status types synthesised
 * from printer columns for open (kopf-style) statuses, and the cross-check of columns against a
 * schema-defined status. Diagnostics are pushed to the caller's list, never thrown.
 */
import { pointerJoin, type Diagnostic, type Severity, type SourcePos } from '../diagnostics.js';
import type { Located, ObjectNode, PrinterColumn, ScalarNode, SchemaNode, VersionModel } from './ir.js';
import { formatSteps, type PathStep } from './handler-paths.js';

/** A printer column reading `status.<id>`, with the steps after `.status.<id>`. */
export interface HandlerColumn {
  column: PrinterColumn;
  rest: PathStep[];
}

type StatusSlot =
  /** The schema defines `status.<id>` (as a property, or as the value schema of a status map). */
  | { kind: 'defined'; node: SchemaNode; owner: ObjectNode; property?: { name: string; schema: SchemaNode } }
  /** Unknown keys of status survive: the status is synthesised; `owner` is where it can be inserted. */
  | { kind: 'open'; owner?: ObjectNode; pointer: string }
  /** The API server would prune `status.<id>`: why, for the diagnostic. */
  | { kind: 'pruned'; reason: string };

export function statusSlot(version: VersionModel, id: string): StatusSlot {
  const root = version.schema;
  if (!root)
    return { kind: 'open', pointer: pointerJoin(version.pointer, 'schema', 'openAPIV3Schema', 'properties', 'status') };
  const status = root.properties.find((p) => p.name === 'status')?.schema;
  if (!status) {
    if (root.preserveUnknownFields) return { kind: 'open', pointer: pointerJoin(root.pointer, 'properties', 'status') };
    return { kind: 'pruned', reason: 'the schema defines no `status`' };
  }
  if (status.type === 'unknown') return { kind: 'open', pointer: status.pointer };
  if (status.type !== 'object') return { kind: 'pruned', reason: `\`status\` is typed as ${status.type}` };
  const property = status.properties.find((p) => p.name === id);
  if (property) return { kind: 'defined', node: property.schema, owner: status, property };
  if (typeof status.additionalProperties === 'object')
    return { kind: 'defined', node: status.additionalProperties, owner: status };
  if (status.preserveUnknownFields || status.additionalProperties === 'any') {
    return { kind: 'open', owner: status, pointer: status.pointer };
  }
  return {
    kind: 'pruned',
    reason: `\`status\` has a structural schema without \`${id}\` and without x-kubernetes-preserve-unknown-fields`,
  };
}

/** A printer column's jsonPath value: where handler diagnostics about the column point. */
export function jsonPathAt(column: PrinterColumn): Located {
  return { pointer: pointerJoin(column.pointer, 'jsonPath'), pos: column.jsonPathPos ?? column.pos };
}

/** Diagnostic at a printer column's jsonPath. */
export function columnDiagnostic(column: PrinterColumn, severity: Severity, code: string, message: string): Diagnostic {
  const { pointer, pos } = jsonPathAt(column);
  return { severity, code, message, file: pos.file, line: pos.line, col: pos.col, pointer };
}

function scalarFor(column: PrinterColumn, at: Located): SchemaNode {
  const description = column.description ?? `Shown in the printer column \`${column.name}\`.`;
  const base = { pointer: at.pointer, pos: at.pos, description, nullable: false, doc: {} };
  switch (column.type) {
    case 'integer':
    case 'number':
    case 'boolean':
    case 'string':
      return { ...base, type: column.type } satisfies ScalarNode;
    case 'date':
      return { ...base, type: 'string', doc: { format: 'date-time' } } satisfies ScalarNode;
    default:
      return { ...base, type: 'unknown' };
  }
}

function openObject(pointer: string, pos: SourcePos, description?: string): ObjectNode {
  return {
    type: 'object',
    pointer,
    pos,
    description,
    nullable: false,
    doc: {},
    properties: [],
    preserveUnknownFields: true,
    embeddedResource: false,
  };
}

/**
 * The status type of handler `id` from its printer columns: `.status.myapp.phase` (string)
 * gives `{ phase?: string }`, nested paths nest, and every object stays open for other keys.
 * Columns showing `.status.<id>` whole make a scalar status when no column reads a field.
 */
export function synthesizeStatus(
  id: string,
  columns: HandlerColumn[],
  pointer: string,
  pos: SourcePos,
  diagnostics: Diagnostic[],
): SchemaNode {
  const fielded = columns.filter((c) => c.rest.length > 0);
  const whole = columns.filter((c) => c.rest.length === 0);
  if (fielded.length === 0 && whole.length > 0) {
    const first = whole[0].column;
    for (const other of whole.slice(1)) {
      if (other.column.type !== first.type) {
        diagnostics.push(
          columnDiagnostic(
            other.column,
            'warning',
            'KG208',
            `printer column \`${other.column.name}\` shows status.${id} as ${other.column.type}, but column \`${first.name}\` shows it as ${first.type}; status.${id} is typed from \`${first.name}\``,
          ),
        );
      }
    }
    return scalarFor(first, { pointer, pos: jsonPathAt(first).pos });
  }
  const root = openObject(
    pointer,
    pos,
    `Status of handler \`${id}\`, synthesised from the printer columns that read it.`,
  );
  for (const c of whole) {
    diagnostics.push(
      columnDiagnostic(
        c.column,
        'warning',
        'KG208',
        `printer column \`${c.column.name}\` shows status.${id} whole, while other columns read fields of it; status.${id} is typed as an object`,
      ),
    );
  }
  for (const c of fielded) addColumn(root, id, c, diagnostics);
  return root;
}

function addColumn(root: ObjectNode, id: string, { column, rest }: HandlerColumn, diagnostics: Diagnostic[]): void {
  const { pos } = jsonPathAt(column);
  let node = root;
  for (let i = 0; i < rest.length; i++) {
    const step = rest[i];
    const shown = `status.${id}.${formatSteps(rest.slice(0, i + 1))}`;
    if (step.kind === 'opaque') {
      diagnostics.push(
        columnDiagnostic(
          column,
          'note',
          'KG205',
          `printer column \`${column.name}\`: kopfgen cannot follow \`${step.text}\` in \`${column.jsonPath}\`; the column is accepted and the status type stops at status.${id}${i > 0 ? '.' + formatSteps(rest.slice(0, i)) : ''}`,
        ),
      );
      return;
    }
    const last = i === rest.length - 1;
    const nextIsOpaque = !last && rest[i + 1].kind === 'opaque';
    const existing = node.properties.find((p) => p.name === step.name);
    const childPointer = pointerJoin(node.pointer, 'properties', step.name);
    if (!existing) {
      const schema: SchemaNode = last
        ? scalarFor(column, { pointer: childPointer, pos })
        : nextIsOpaque
          ? {
              type: 'unknown',
              pointer: childPointer,
              pos,
              nullable: false,
              doc: {},
              description: `Read by the printer column \`${column.name}\` through \`${column.jsonPath}\`.`,
            }
          : openObject(childPointer, pos);
      node.properties.push({ name: step.name, required: false, schema });
      if (schema.type !== 'object') {
        if (nextIsOpaque) continue;
        return;
      }
      node = schema;
      continue;
    }
    const conflict = last ? existing.schema.type === 'object' : existing.schema.type !== 'object' && !nextIsOpaque;
    if (conflict) {
      diagnostics.push(
        columnDiagnostic(
          column,
          'warning',
          'KG208',
          `printer column \`${column.name}\` reads ${shown} as ${last ? column.type : 'an object'}, but another column reads it as ${existing.schema.type === 'object' ? 'an object' : existing.schema.type}; the first column wins`,
        ),
      );
      return;
    }
    if (last) {
      if (existing.schema.type !== scalarFor(column, existing.schema).type) {
        diagnostics.push(
          columnDiagnostic(
            column,
            'warning',
            'KG208',
            `printer column \`${column.name}\` reads ${shown} as ${column.type}, but another column reads it as ${existing.schema.type}; the first column wins`,
          ),
        );
      }
      return;
    }
    if (existing.schema.type !== 'object') continue;
    node = existing.schema;
  }
}

/**
 * Checks a column against a schema-defined status: a field the schema lacks (in a closed object)
 * means the column always shows nothing. Indices and filters on arrays are followed into items;
 * other steps the generator cannot follow are accepted with a note.
 */
export function checkColumn(
  id: string,
  node: SchemaNode,
  { column, rest }: HandlerColumn,
  diagnostics: Diagnostic[],
): void {
  let current: SchemaNode = node;
  for (let i = 0; i < rest.length; i++) {
    const step = rest[i];
    const here = `status.${id}${i > 0 ? '.' + formatSteps(rest.slice(0, i)) : ''}`;
    if (current.type === 'unknown' || current.type === 'int-or-string') return;
    if (step.kind === 'opaque') {
      if (current.type === 'array' && current.items && !step.text.startsWith('..')) {
        current = current.items;
        continue;
      }
      diagnostics.push(
        columnDiagnostic(
          column,
          'note',
          'KG205',
          `printer column \`${column.name}\`: kopfgen cannot follow \`${step.text}\` below ${here}; the column is accepted without checking the rest of \`${column.jsonPath}\``,
        ),
      );
      return;
    }
    if (current.type !== 'object') {
      diagnostics.push(
        columnDiagnostic(
          column,
          'warning',
          'KG204',
          `printer column \`${column.name}\` reads \`${step.name}\` below ${here}, which the schema types as ${current.type}; the column always shows nothing`,
        ),
      );
      return;
    }
    const property = current.properties.find((p) => p.name === step.name);
    if (property) {
      current = property.schema;
    } else if (typeof current.additionalProperties === 'object') {
      current = current.additionalProperties;
    } else if (current.preserveUnknownFields || current.additionalProperties === 'any') {
      return;
    } else {
      diagnostics.push(
        columnDiagnostic(
          column,
          'warning',
          'KG204',
          `printer column \`${column.name}\` reads ${here}.${step.name}, but the schema of ${here} defines no \`${step.name}\`; the column always shows nothing`,
        ),
      );
      return;
    }
  }
}
