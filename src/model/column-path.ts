/**
 * Printer-column JSONPath as the API server accepts it. Validation
 * (apiextensions `ValidateCustomResourceColumnDefinition` → `validateSimpleJSONPath`) requires a
 * non-empty path starting with `.`, so kubectl's template form `{.x}` and a bare `status.x` are
 * rejected; the table convertor then parses `{<path>}` with k8s.io/client-go/util/jsonpath, and
 * a path it cannot parse makes every `kubectl get` of the resource fail. This checks both: the
 * leading dot, then the jsonpath grammar (fields with `\` escapes, `..`, `*`, `[n]`, slices,
 * `['key']` unions, `[?(filter)]`), reporting the offset of the first bad character.
 */

export interface PathProblem {
  /** Offset into the path text of the character at fault. */
  offset: number;
  message: string;
}

/** Characters that end a field name in the k8s jsonpath lexer (besides `.` and `[`). */
const TERMINATORS = new Set([' ', '\t', '\r', '\n', ',', '{', '}', ']', '(', ')', '|', '"', "'"]);

export function checkColumnPath(path: string): PathProblem | undefined {
  if (path.length === 0) return { offset: 0, message: 'must not be empty' };
  if (path[0] !== '.') {
    const hint = path.startsWith('{')
      ? " (write the path without the `{ }` of kubectl's template form)"
      : ' (e.g. `.status.phase`)';
    return { offset: 0, message: `must be a simple JSON path starting with \`.\`${hint}` };
  }
  let i = 0;
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      i++;
      if (path[i] === '.') i++; // recursive descent `..`
      if (path[i] === '*') {
        i++;
        continue;
      }
      const start = i;
      while (i < path.length && path[i] !== '.' && path[i] !== '[' && !TERMINATORS.has(path[i]))
        i += path[i] === '\\' ? 2 : 1;
      if (i > path.length) return { offset: path.length - 1, message: 'ends inside an escape (`\\`)' };
      if (i === start && i < path.length && path[i] !== '[' && !(i === 1 && path.length === 1)) {
        return { offset: i, message: `unexpected \`${path[i]}\` after \`.\`` };
      }
      continue;
    }
    if (c === '[') {
      const problem = bracket(path, i);
      if (typeof problem !== 'number') return problem;
      i = problem;
      continue;
    }
    return { offset: i, message: `unexpected \`${c}\`; steps are \`.field\` or \`[...]\`` };
  }
  return undefined;
}

/** Checks the `[...]` at `open`; returns the offset after its `]`, or the problem. */
function bracket(path: string, open: number): number | PathProblem {
  const close = closing(path, open);
  if (close < 0) return { offset: open, message: 'unclosed `[`' };
  const inner = path.slice(open + 1, close).trim();
  if (inner === '*') return close + 1;
  if (/^-?\d*(:-?\d*){0,2}$/.test(inner) && inner !== '') return close + 1;
  if (inner.startsWith('?(') && inner.endsWith(')')) return close + 1;
  if (/^(('([^'\\]|\\.)*'|"([^"\\]|\\.)*")\s*,\s*)*('([^'\\]|\\.)*'|"([^"\\]|\\.)*")$/.test(inner)) return close + 1;
  return { offset: open, message: `\`[${inner}]\` is not an index, slice, \`*\`, quoted key or \`?(filter)\`` };
}

/** Index of the `]` closing the `[` at `open`, skipping quoted strings and nested brackets and parentheses. */
function closing(text: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ']' && --depth === 0) return i;
  }
  return -1;
}
