/**
 * Schema documentation → JSDoc, so editor hovers show what the CRD says: the description and
 * the constraints TypeScript cannot express (format, default, bounds, pattern, CEL rules).
 */
import type { DocTags } from '../model/ir.js';

/** `*\/` inside a comment would end it early. */
function escape(text: string): string {
  return text.replace(/\*\//g, '*\\/');
}

/** The facts a schema node documents, one `@tag value` line each (also the kopf target's docstrings). */
export function tagLines(doc: DocTags): string[] {
  const tags: string[] = [];
  if (doc.format !== undefined) tags.push(`@format ${doc.format}`);
  if (doc.default !== undefined) tags.push(`@default ${JSON.stringify(doc.default)}`);
  if (doc.minimum !== undefined) tags.push(`@minimum ${doc.minimum}${doc.exclusiveMinimum ? ' (exclusive)' : ''}`);
  if (doc.maximum !== undefined) tags.push(`@maximum ${doc.maximum}${doc.exclusiveMaximum ? ' (exclusive)' : ''}`);
  if (doc.minLength !== undefined) tags.push(`@minLength ${doc.minLength}`);
  if (doc.maxLength !== undefined) tags.push(`@maxLength ${doc.maxLength}`);
  if (doc.minItems !== undefined) tags.push(`@minItems ${doc.minItems}`);
  if (doc.maxItems !== undefined) tags.push(`@maxItems ${doc.maxItems}`);
  if (doc.minProperties !== undefined) tags.push(`@minProperties ${doc.minProperties}`);
  if (doc.maxProperties !== undefined) tags.push(`@maxProperties ${doc.maxProperties}`);
  if (doc.pattern !== undefined) tags.push(`@pattern ${doc.pattern}`);
  if (doc.example !== undefined) tags.push(`@example ${JSON.stringify(doc.example)}`);
  if (doc.validations) {
    for (const v of doc.validations) tags.push(`@validation ${v.rule}${v.message ? ` — ${v.message}` : ''}`);
  }
  return tags;
}

/**
 * Appends a JSDoc block (or nothing) to `out`, indented by `indent`. `extra` holds further
 * tags such as `@deprecated`.
 */
export function pushJsDoc(
  out: string[],
  indent: string,
  description: string | undefined,
  doc: DocTags | undefined,
  extra: string[] = [],
): void {
  const tags = doc ? tagLines(doc) : [];
  tags.push(...extra);
  const text = description?.trim();
  if (!text && tags.length === 0) return;
  const lines: string[] = text ? text.split('\n') : [];
  if (text && tags.length > 0) lines.push('');
  for (const t of tags) lines.push(...t.split('\n'));
  if (lines.length === 1) {
    out.push(`${indent}/** ${escape(lines[0])} */\n`);
    return;
  }
  out.push(`${indent}/**\n`);
  for (const line of lines) out.push(line ? `${indent} * ${escape(line.trimEnd())}\n` : `${indent} *\n`);
  out.push(`${indent} */\n`);
}
