/**
 * A printer column's path against the version's schema: the API server accepts any path that
 * parses (`column-path.ts`), and the table convertor shows an empty cell wherever it finds
 * nothing, so a field the schema does not define (and prunes), a step into a scalar, or a filter
 * on what is not a list gives a column that is always empty. client-go's jsonpath reads a field
 * only of an object (a field of a list is "not found"), and a filter, an index or a slice only of
 * a list; `*` reads every value of an object too. Where the schema keeps unknown fields (or has
 * no type) anything may be there, so nothing is said; `metadata` is the API server's ObjectMeta,
 * whatever the schema says of it.
 */
import { formatSteps, type PathStep } from './handler-paths.js';
import type { ObjectNode, SchemaNode } from './ir.js';

/** Why the column always reads nothing, or undefined when it may read something. */
export function columnReadsNothing(root: ObjectNode | undefined, steps: readonly PathStep[]): string | undefined {
  let node: SchemaNode | undefined = root;
  for (let i = 0; i < steps.length && node; i++) {
    const step = steps[i];
    const here = i === 0 ? 'the resource' : formatSteps(steps.slice(0, i));
    if (node.type === 'unknown' || node.type === 'int-or-string') return undefined;
    if (step.kind === 'field') {
      // The server keeps these whatever the schema declares.
      if (i === 0 && (step.name === 'metadata' || step.name === 'apiVersion' || step.name === 'kind')) return undefined;
      if (node.type === 'array')
        return `${here} is a list: \`.${step.name}\` reads no field of it (select items first, e.g. \`[*].${step.name}\`)`;
      if (node.type !== 'object') return `${here} is ${article(node.type)}, which has no fields`;
      const property: SchemaNode | undefined = node.properties.find((p) => p.name === step.name)?.schema;
      if (property) node = property;
      else if (typeof node.additionalProperties === 'object') node = node.additionalProperties;
      else if (node.preserveUnknownFields || node.additionalProperties === 'any') return undefined;
      else return `the schema of ${here} defines no \`${step.name}\``;
      continue;
    }
    if (step.text.startsWith('..')) return undefined; // recursive descent: anywhere below
    if (node.type === 'array') node = node.items;
    else if (node.type === 'object') {
      // `*` over an object's values: typed only where every value has one schema.
      if (!/^(\.\*|\[\s*\*\s*\])$/.test(step.text) || typeof node.additionalProperties !== 'object') return undefined;
      node = node.additionalProperties;
    } else return `${here} is ${article(node.type)}: \`${step.text}\` selects nothing in it`;
  }
  return undefined;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
