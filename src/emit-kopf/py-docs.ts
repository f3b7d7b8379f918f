/**
 * Schema documentation → Python docstrings and comments: the same lines the TypeScript target
 * writes as JSDoc (the description, then `@format`, `@default`, bounds, pattern, CEL rules), so
 * editor hovers show them (Pylance and pyright read a string literal after a TypedDict field as
 * its docstring).
 */
import type { DocTags } from '../model/ir.js';
import { tagLines } from '../emit/jsdoc.js';

/** The description and the tags as lines; empty when there is nothing to say. */
export function docLines(description: string | undefined, doc: DocTags | undefined, extra: string[] = []): string[] {
  const tags = [...(doc ? tagLines(doc) : []), ...extra];
  const text = description?.trim();
  const lines = text ? text.split('\n').map((l) => l.trimEnd()) : [];
  if (lines.length > 0 && tags.length > 0) lines.push('');
  for (const t of tags) lines.push(...t.split('\n').map((l) => l.trimEnd()));
  return lines;
}

/**
 * Characters a Python source may not hold raw inside a string (NUL, and carriage returns and
 * other controls, which the tokenizer would take as line ends or reject), written as escapes.
 */
function escapeControls(text: string): string {
  // eslint-disable-next-line no-control-regex -- the control characters are what is matched
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

// eslint-disable-next-line no-control-regex -- the control characters are what is matched
const NEEDS_ESCAPE = /["\\\x00-\x08\x0b-\x1f\x7f]/;

/** A line as it must be written inside a docstring to read back as given (no escape sequence, no early end). */
export function docstringText(line: string): string {
  // Most lines need nothing: one scan instead of three.
  if (!NEEDS_ESCAPE.test(line)) return line;
  return escapeControls(line.replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"'));
}

/**
 * A docstring at `indent`: `"""one line"""`, or the lines between `"""` on lines of their own.
 * Backslashes and quotes are escaped so the text reads back as written (no escape sequences, no
 * early end of the string).
 */
export function pushDocstring(out: string[], indent: string, lines: readonly string[]): void {
  if (lines.length === 0) return;
  const escaped = lines.map((line) => {
    const text = docstringText(line);
    // A last unescaped quote would run into the closing `"""` (an even run of backslashes before it escapes none).
    const backslashes = /\\*(?="$)/.exec(text)?.[0].length ?? -1;
    return backslashes >= 0 && backslashes % 2 === 0 ? text.slice(0, -1) + '\\"' : text;
  });
  if (escaped.length === 1 && !escaped[0].startsWith('"')) {
    out.push(`${indent}"""${escaped[0]}"""\n`);
    return;
  }
  out.push(`${indent}"""\n`);
  for (const line of escaped) out.push(line ? `${indent}${line}\n` : '\n');
  out.push(`${indent}"""\n`);
}

/** Comment lines at `indent` (`# …`), for places a docstring cannot go (a functional TypedDict's keys). */
export function pushComment(out: string[], indent: string, lines: readonly string[]): void {
  for (const line of lines) {
    // eslint-disable-next-line no-control-regex -- the control characters are what is matched
    const text = line.replace(/[\x00-\x1f\x7f]/g, ' ');
    out.push(text ? `${indent}# ${text}\n` : `${indent}#\n`);
  }
}
