/**
 * A ConversionReview read from its bytes without parsing its objects all at once: the structure is
 * scanned (strings, nesting), every value but the items of `request.objects` is parsed as it is met,
 * and each item is parsed only when the conversion reaches it, so a review of 100,000 objects never
 * holds 100,000 parsed objects (a parsed object costs about three times its text). The scan accepts
 * exactly what JSON.parse accepts: every byte is either structure checked here or text JSON.parse
 * reads (RFC 8259); a duplicate key's last value wins, as in JSON.parse.
 */

/** A JSON text the scan refuses; the message says where. */
export class ScanError extends Error {}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The review, its objects as spans of the text (each parsed by `item`). */
export interface ScannedReview {
  /** The review with `request.objects` an empty list (any JSON value when the text is not an object). */
  review: unknown;
  /** The items of `request.objects` (undefined when it is not a list). */
  objects?: { count: number; item(index: number): unknown };
}

class Scanner {
  i = 0;
  constructor(readonly text: Buffer) {}

  fail(what: string): never {
    throw new ScanError(`${what} at byte ${this.i}`);
  }

  space(): void {
    while (this.i < this.text.length && WS.has(this.text[this.i])) this.i++;
  }

  expect(byte: number): void {
    this.space();
    if (this.text[this.i] !== byte) this.fail(`expected '${String.fromCharCode(byte)}'`);
    this.i++;
  }

  /** Past one string, from its opening quote. */
  skipString(): void {
    if (this.text[this.i] !== QUOTE) this.fail('expected a string');
    const at = this.text.indexOf(QUOTE, this.i + 1);
    let end = at;
    for (;;) {
      if (end < 0) this.fail('unterminated string');
      let slashes = 0;
      while (this.text[end - 1 - slashes] === BACKSLASH) slashes++;
      if (slashes % 2 === 0) break;
      end = this.text.indexOf(QUOTE, end + 1);
    }
    this.i = end + 1;
  }

  /** Past one value (any JSON), checking only nesting and strings: the caller parses the span. */
  skipValue(): void {
    this.space();
    let depth = 0;
    do {
      const byte = this.text[this.i];
      if (byte === undefined) this.fail('unexpected end');
      if (byte === QUOTE) {
        this.skipString();
        continue;
      }
      if (byte === 0x7b || byte === 0x5b) depth++;
      else if (byte === 0x7d || byte === 0x5d) depth--;
      else if (depth === 0) {
        // A scalar: up to the next delimiter.
        while (this.i < this.text.length && !',}] \t\r\n'.includes(String.fromCharCode(this.text[this.i]))) this.i++;
        return;
      }
      this.i++;
      if (depth < 0) this.fail('unbalanced brackets');
    } while (depth > 0);
  }

  /** The span of the next value, parsed. */
  value(): unknown {
    this.space();
    const start = this.i;
    this.skipValue();
    return JSON.parse(this.text.toString('utf8', start, this.i));
  }

  /** The members of an object, each handed to `member` with the scanner at its value. */
  members(member: (key: string) => void): void {
    this.expect(0x7b);
    this.space();
    if (this.text[this.i] === 0x7d) {
      this.i++;
      return;
    }
    for (;;) {
      this.space();
      const start = this.i;
      this.skipString();
      const key: unknown = JSON.parse(this.text.toString('utf8', start, this.i));
      this.expect(0x3a);
      member(String(key));
      this.space();
      const next = this.text[this.i++];
      if (next === 0x7d) return;
      if (next !== 0x2c) this.fail("expected ',' or '}'");
    }
  }
}

/** Scans a ConversionReview's bytes; a ScanError (or JSON.parse's SyntaxError) when they are not JSON. */
export function scanConversionReview(text: Buffer): ScannedReview {
  const scanner = new Scanner(text);
  const review: Record<string, unknown> = {};
  let objects: ScannedReview['objects'];
  scanner.space();
  if (text[scanner.i] !== 0x7b) return { review: JSON.parse(text.toString('utf8')) };
  scanner.members((key) => {
    scanner.space();
    if (key !== 'request' || text[scanner.i] !== 0x7b) {
      review[key] = scanner.value();
      return;
    }
    const request: Record<string, unknown> = {};
    objects = undefined;
    scanner.members((field) => {
      scanner.space();
      if (field !== 'objects' || text[scanner.i] !== 0x5b) {
        request[field] = scanner.value();
        if (field === 'objects') objects = undefined;
        return;
      }
      const spans: number[] = [];
      scanner.i++;
      scanner.space();
      if (text[scanner.i] === 0x5d) scanner.i++;
      else
        for (;;) {
          scanner.space();
          const start = scanner.i;
          scanner.skipValue();
          spans.push(start, scanner.i);
          scanner.space();
          const next = text[scanner.i++];
          if (next === 0x5d) break;
          if (next !== 0x2c) scanner.fail("expected ',' or ']'");
        }
      const offsets = Uint32Array.from(spans);
      objects = {
        count: offsets.length / 2,
        item: (index) => JSON.parse(text.toString('utf8', offsets[2 * index], offsets[2 * index + 1])),
      };
      request.objects = [];
    });
    review.request = request;
  });
  scanner.space();
  if (scanner.i !== text.length) scanner.fail('unexpected text after the review');
  return objects ? { review, objects } : { review };
}
