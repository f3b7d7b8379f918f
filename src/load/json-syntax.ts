/**
 * Where and why a text is not JSON (RFC 8259): JSON.parse's verdict, on one line and without the
 * copy of the text V8 adds, at the offset of the first character that is not JSON (V8 names it
 * only for some errors). Used wherever a file must be JSON and the `yaml` package (a superset)
 * read it: `.json` inputs, a `.json` configuration, package.json.
 */

export interface JsonSyntaxError {
  message: string;
  /** Offset of the first character that is not JSON (the text's length when it ends too early). */
  offset: number;
}

export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (e) {
    const message = (e as Error).message
      .replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '')
      .replace(/ (?:in JSON )?at position \d+.*$/s, '');
    return { message, offset: jsonErrorOffset(text) };
  }
}

const JSON_LITERAL = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

/** The offset of the first character that is not JSON (V8 names it only for some errors). */
function jsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const space = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const string = (): void => {
    if (text[i] !== '"') fail();
    for (i++; text[i] !== '"'; i++) {
      if (i >= text.length || text[i] < ' ') fail();
      if (text[i] === '\\') i++;
    }
    i++;
  };
  const members = (close: string, member: () => void): void => {
    i++;
    space();
    if (text[i] === close) return void i++;
    for (;;) {
      member();
      space();
      if (text[i] === close) return void i++;
      if (text[i] !== ',') fail();
      i++;
      space();
    }
  };
  const value = (): void => {
    space();
    if (text[i] === '{') return members('}', () => (string(), space(), text[i] === ':' ? (i++, value()) : fail()));
    if (text[i] === '[') return members(']', value);
    if (text[i] === '"') return string();
    JSON_LITERAL.lastIndex = i;
    if (!JSON_LITERAL.test(text)) fail();
    i = JSON_LITERAL.lastIndex;
  };
  try {
    value();
    space();
    return i < text.length ? i : 0;
  } catch (at) {
    return Math.min(at as number, text.length);
  }
}
