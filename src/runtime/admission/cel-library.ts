/**
 * The CEL environment of CRD validation rules: CEL's standard definitions with optional types (from
 * `@marcbachmann/cel-js`) and the libraries the API server adds (apiserver's
 * `k8s.io/apiserver/pkg/cel/library` and cel-go's `ext.Strings`, `ext.Sets`, as
 * `k8s.io/apiserver/pkg/cel/environment/base.go` enables them): lists, regex, URLs, IP and CIDR,
 * quantity, sets, format, strings (`charAt`, `replace`, `reverse`, `strings.quote`, `format`). One
 * environment is built, the first time a rule is compiled (cel-js is small and has no dependencies;
 * only what imports the admission loads it). Values follow cel-js: int is `bigint`, double `number`,
 * a map a plain object, a list an array.
 */
import { Environment, EvaluationError, Optional } from '@marcbachmann/cel-js';
import { celCompare, celEqual, celString } from './cel-values.js';
import { asPrefix, dns1035Label, dns1123Label, dns1123Subdomain, labelValue, qualifiedName } from './name-syntax.js';

const fail = (message: string) => new EvaluationError(message);

/** `net.IP`: an address as a 32- or 128-bit number (apiserver's `library/ip.go`, Go's netip). */
export class CelIP {
  constructor(
    readonly family: 4 | 6,
    readonly value: bigint,
  ) {}
  get bits(): number {
    return this.family === 4 ? 32 : 128;
  }
  toString(): string {
    if (this.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((this.value >> s) & 255n)).join('.');
    const groups = Array.from({ length: 8 }, (_, i) => ((this.value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
    // RFC 5952: the longest run (two or more) of zero groups becomes '::'.
    let best = -1;
    let bestLen = 1;
    for (let i = 0; i < 8;) {
      let j = i;
      while (j < 8 && groups[j] === '0') j++;
      if (j - i > bestLen) {
        best = i;
        bestLen = j - i;
      }
      i = j === i ? i + 1 : j;
    }
    if (best < 0) return groups.join(':');
    return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
  }
}

/** `net.CIDR`: an address and a prefix length (the address as written; `masked()` clears host bits). */
export class CelCIDR {
  constructor(
    readonly ip: CelIP,
    readonly prefix: number,
  ) {}
  masked(): CelCIDR {
    const host = (1n << BigInt(this.ip.bits - this.prefix)) - 1n;
    return new CelCIDR(new CelIP(this.ip.family, this.ip.value & ~host), this.prefix);
  }
  contains(ip: CelIP): boolean {
    if (ip.family !== this.ip.family) return false;
    const shift = BigInt(this.ip.bits - this.prefix);
    return ip.value >> shift === this.ip.value >> shift;
  }
  toString(): string {
    return `${this.ip.toString()}/${this.prefix}`;
  }
}

const IPV4 = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/;

function parseIPv4(text: string): bigint | undefined {
  const m = IPV4.exec(text);
  if (!m) return undefined;
  let value = 0n;
  for (const part of m.slice(1, 5)) {
    const n = Number(part);
    if (n > 255) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseIPv6(text: string): bigint | undefined {
  if (text.includes('%')) return undefined; // a zone is refused (library/ip.go)
  let head = text;
  let tail4: bigint | undefined;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tail4 = parseIPv4(text.slice(lastColon + 1));
    if (tail4 === undefined) return undefined;
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const parse = (s: string) => (s === '' ? [] : s.split(':'));
  const left = parse(halves[0] ?? '');
  const right = halves.length === 2 ? parse(halves[1] ?? '') : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...left, ...Array.from({ length: halves.length === 2 ? missing : 0 }, () => '0'), ...right];
  let value = 0n;
  for (const g of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    value = (value << 16n) | BigInt(parseInt(g, 16));
  }
  if (tail4 !== undefined) value = (value & ~0xffffffffn) | tail4;
  return value;
}

/** Go's `netip.ParseAddr` less what `ip()` refuses: zones and IPv4-mapped IPv6 addresses. */
export function parseIP(text: string): CelIP | string {
  const v4 = parseIPv4(text);
  if (v4 !== undefined) return new CelIP(4, v4);
  if (!text.includes(':'))
    return `IP Address "${text}" parse error during conversion from string: ParseAddr("${text}"): unable to parse IP`;
  const v6 = parseIPv6(text);
  if (v6 === undefined)
    return `IP Address "${text}" parse error during conversion from string: ParseAddr("${text}"): unable to parse IP`;
  if (v6 >> 32n === 0xffffn) return `IPv4-mapped IPv6 address "${text}" is not allowed`;
  return new CelIP(6, v6);
}

export function parseCIDR(text: string): CelCIDR | string {
  const slash = text.lastIndexOf('/');
  const ip = slash < 0 ? undefined : parseIP(text.slice(0, slash));
  const prefix = slash < 0 ? NaN : Number(text.slice(slash + 1));
  if (!(ip instanceof CelIP) || !/^\d{1,3}$/.test(text.slice(slash + 1)) || prefix > ip.bits)
    return `network address parse error during conversion from string: netip.ParsePrefix("${text}"): invalid prefix`;
  return new CelCIDR(ip, prefix);
}

/** `kubernetes.Quantity`: a resource quantity as an exact fraction (apimachinery's `resource.Quantity`). */
export class CelQuantity {
  constructor(
    readonly num: bigint,
    readonly den: bigint,
  ) {}
  compare(other: CelQuantity): number {
    const a = this.num * other.den;
    const b = other.num * this.den;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  plus(other: CelQuantity, sign: bigint): CelQuantity {
    return new CelQuantity(this.num * other.den + sign * other.num * this.den, this.den * other.den);
  }
}

const QUANTITY = /^([+-]?)(\d+\.?\d*|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

export function parseQuantity(text: string): CelQuantity | undefined {
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  const [, sign = '', digits = '', suffix = ''] = m;
  const [whole = '', fraction = ''] = digits.split('.');
  let num = BigInt(`${whole}${fraction}` || '0') * (sign === '-' ? -1n : 1n);
  let den = 10n ** BigInt(fraction.length);
  const binary = BINARY[suffix];
  const exp = /^[eE]/.test(suffix) ? Number(suffix.slice(1)) : (DECIMAL[suffix] ?? 0);
  if (binary !== undefined) num *= 1n << BigInt(binary);
  else if (exp > 0) num *= 10n ** BigInt(exp);
  else if (exp < 0) den *= 10n ** BigInt(-exp);
  return new CelQuantity(num, den);
}

/** `kubernetes.URL`: the parts Go's `url.ParseRequestURI` gives (an absolute URI, or an absolute path). */
export class CelURL {
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly path: string,
    readonly query: string,
  ) {}
}

export function parseURL(text: string): CelURL | undefined {
  const m = /^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#.*)?$/.exec(text);
  if (!m || [...text].some((c) => c <= ' ' || c === '\u007f')) return undefined;
  const [, scheme, authority, path = '', query = ''] = m;
  if (scheme === undefined && !path.startsWith('/')) return undefined;
  if (scheme !== undefined && authority === undefined && !path.startsWith('/')) return undefined;
  const host = authority === undefined ? '' : authority.slice(authority.lastIndexOf('@') + 1);
  if (/^\[/.test(host) && !/^\[[0-9A-Fa-f:.]+(%[^\]]*)?\](:\d*)?$/.test(host)) return undefined;
  if (!/^\[/.test(host) && !/^[^:[\]]*(:\d*)?$/.test(host)) return undefined;
  return new CelURL((scheme ?? '').toLowerCase(), host, path, query);
}

function hostname(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.indexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

function port(host: string): string {
  const close = host.lastIndexOf(']');
  const colon = host.lastIndexOf(':');
  return colon > close ? host.slice(colon + 1) : '';
}

/** `kubernetes.NamedFormat`: one of the format library's checks. */
export class CelFormat {
  constructor(readonly check: (value: string) => string[]) {}
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const one = (ok: boolean, message: string) => (ok ? [] : [message]);

/** The format library's checks by name (apiserver's `library/format.go`). */
const FORMATS: Record<string, (value: string) => string[]> = {
  dns1123Label,
  dns1123Subdomain,
  dns1035Label,
  qualifiedName,
  dns1123LabelPrefix: asPrefix(dns1123Label),
  dns1123SubdomainPrefix: asPrefix(dns1123Subdomain),
  dns1035LabelPrefix: asPrefix(dns1035Label),
  labelValue,
  uri: (v) => one(parseURL(v) !== undefined, 'invalid URI'),
  uuid: (v) => one(UUID.test(v), 'does not match the UUID format'),
  byte: (v) => one(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v), 'invalid base64'),
  date: (v) => one(/^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)), 'invalid date'),
  datetime: (v) => one(!Number.isNaN(Date.parse(v)) && /^\d{4}-\d{2}-\d{2}T/.test(v), 'invalid datetime'),
};

/** The receiver of `sets.*`, `strings.*` and `format.*`: a constant whose methods are the namespace's functions. */
class Namespace {}

function regex(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'gu');
  } catch (e) {
    throw fail(`error parsing regexp: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function asList(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw fail('no such overload');
  return value;
}

function aggregate(list: unknown, pick: (a: unknown, b: unknown) => boolean, what: string): unknown {
  const items = asList(list);
  if (items.length === 0) throw fail(`${what} called on empty list`);
  return items.reduce((a, b) => (pick(a, b) ? a : b));
}

/** `strings.quote`: a double-quoted CEL string literal of the text (cel-go's `ext/strings.go`). */
export function quote(text: string): string {
  const escapes: Record<string, string> = {
    '\x07': '\\a',
    '\b': '\\b',
    '\f': '\\f',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\v': '\\v',
    '\\': '\\\\',
    '"': '\\"',
  };
  return `"${[...text].map((c) => escapes[c] ?? c).join('')}"`;
}

function formatNumber(value: unknown, verb: string, precision: number | undefined): string {
  const n = typeof value === 'bigint' ? value : typeof value === 'number' ? value : valueOf(value);
  switch (verb) {
    case 'd':
      if (typeof n !== 'bigint')
        throw fail(
          `error during formatting: decimal clause can only be used on integers, was given ${celString(value)}`,
        );
      return n.toString();
    case 'f':
    case 'e': {
      const x = typeof n === 'bigint' ? Number(n) : typeof n === 'number' ? n : NaN;
      if (typeof n !== 'bigint' && typeof n !== 'number')
        throw fail(
          `error during formatting: fixed-point clause can only be used on doubles, was given ${celString(value)}`,
        );
      if (Number.isNaN(x)) return 'NaN';
      if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
      if (verb === 'f') return x.toFixed(precision ?? 6);
      const [m = '', e = '0'] = x.toExponential(precision ?? 6).split('e');
      const exp = Number(e);
      return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
    }
    default: {
      const radix = verb === 'b' ? 2 : verb === 'o' ? 8 : 16;
      if (typeof n === 'bigint') {
        const s = (n < 0n ? '-' : '') + (n < 0n ? -n : n).toString(radix);
        return verb === 'X' ? s.toUpperCase() : s;
      }
      if (typeof value === 'string' && radix === 16) {
        const s = Buffer.from(value, 'utf8').toString('hex');
        return verb === 'X' ? s.toUpperCase() : s;
      }
      if (value instanceof Uint8Array && radix === 16) {
        const s = Buffer.from(value).toString('hex');
        return verb === 'X' ? s.toUpperCase() : s;
      }
      throw fail(
        `error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given ${celString(value)}`,
      );
    }
  }
}

/** An unsigned int of cel-js (`UnsignedInt`) carries its value in `valueOf()`. */
function valueOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null && 'value' in value ? Reflect.get(value, 'value') : value;
}

/** `string.format(list)` (cel-go's `ext/formatting.go`): `%s %d %f %e %b %o %x %X %%`, precision on `%f`/`%e`. */
export function format(template: string, args: unknown[]): string {
  let out = '';
  let next = 0;
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c !== '%') {
      out += c;
      continue;
    }
    if (template[i + 1] === '%') {
      out += '%';
      i++;
      continue;
    }
    const m = /^(?:\.(\d+))?([a-zA-Z])/.exec(template.slice(i + 1));
    if (!m) throw fail('error during formatting: unexpected end of string');
    const [all, precision, verb = ''] = m;
    i += all.length;
    if (next >= args.length) throw fail(`index ${next} out of range`);
    const arg = args[next++];
    if (verb === 's') out += celString(arg);
    else if ('dfeboxX'.includes(verb))
      out += formatNumber(arg, verb, precision === undefined ? undefined : Number(precision));
    else throw fail(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
  }
  return out;
}

/** The name `has` is compiled as (see `withKubernetesLibraries`). */
const HAS = 'kopfgenHas';

/** A rule's text as compiled: the `has(` macro renamed, outside string literals. */
export function celSource(rule: string): string {
  return rule.replace(/('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|(?<![.\w])has\s*\(/g, (all, literal?: string) =>
    literal === undefined ? `${HAS}(` : all,
  );
}

/** The parts of cel-js's macro interface the `has` macro uses (cel-js declares them `any`). */
interface MacroNode {
  op: string;
  args: [unknown, unknown];
}
interface MacroChecker {
  check(node: unknown, ctx: unknown): unknown;
  getType(name: string): unknown;
}
interface MacroEvaluator {
  run(node: unknown, ctx: unknown): unknown;
  debugType(value: unknown): { fieldLazy(target: unknown, field: unknown, node: unknown, ev: MacroEvaluator): unknown };
}

let built: Environment | undefined;

/** The environment, built once; `self` and `oldSelf` are declared `dyn` (their values carry their types). */
export function celEnvironment(): Environment {
  built ??= withKubernetesLibraries(
    new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false })
      .registerVariable('self', 'dyn')
      .registerVariable('oldSelf', 'dyn'),
  );
  return built;
}

/** Registers the API server's libraries on an environment (CEL's conformance suites run on one with their own variables). */
export function withKubernetesLibraries(base: Environment): Environment {
  const env = base
    .registerType('net.IP', CelIP)
    .registerType('net.CIDR', CelCIDR)
    .registerType('kubernetes.URL', CelURL)
    .registerType('kubernetes.Quantity', CelQuantity)
    .registerType('kubernetes.NamedFormat', CelFormat)
    .registerType('kopfgen.Namespace', Namespace)
    .registerConstant('sets', 'kopfgen.Namespace', new Namespace())
    .registerConstant('strings', 'kopfgen.Namespace', new Namespace())
    .registerConstant('format', 'kopfgen.Namespace', new Namespace())
    // `ip` is a function (`ip(s)`) and a namespace (`ip.isCanonical(s)`) at once, as in the server's library.
    .registerConstant('ip', 'kopfgen.Namespace', new Namespace());
  const fn = (signature: string, handler: (...args: never[]) => unknown) => env.registerFunction(signature, handler);

  // CEL's has(e.f) for any operand e (cel-js's own accepts only a chain of fields from a variable,
  // refusing gateway-api's `has(self.matches[0].path)`); rules are compiled with `has(` renamed to it
  // (`celSource`). The operand is evaluated (an error where it fails), then the field's presence tested.
  env.registerFunction(`${HAS}(ast): bool`, ({ args }: { args: MacroNode[] }) => {
    const [select] = args;
    if (!select || (select.op !== '.' && select.op !== '.?')) throw fail('has() invalid argument');
    const [operand, field] = select.args;
    return {
      typeCheck: (checker: MacroChecker, _macro: unknown, ctx: unknown) => {
        checker.check(operand, ctx);
        return checker.getType('bool');
      },
      evaluate: (ev: MacroEvaluator, _macro: unknown, ctx: unknown) => {
        const target = ev.run(operand, ctx);
        return ev.debugType(target).fieldLazy(target, field, select, ev) !== undefined;
      },
    };
  });

  // Lists (library/lists.go).
  fn('list.isSorted(): bool', (l: unknown[]) => l.every((x, i) => i === 0 || celCompare(l[i - 1], x) <= 0));
  fn('list.sum(): dyn', (l: unknown[]) =>
    l.length === 0
      ? 0n
      : l.reduce((a, b) => (typeof a === 'bigint' && typeof b === 'bigint' ? a + b : Number(a) + Number(b))),
  );
  fn('list.min(): dyn', (l: unknown[]) => aggregate(l, (a, b) => celCompare(a, b) <= 0, 'min'));
  fn('list.max(): dyn', (l: unknown[]) => aggregate(l, (a, b) => celCompare(a, b) >= 0, 'max'));
  fn('list.indexOf(dyn): int', (l: unknown[], x: unknown) => BigInt(l.findIndex((y) => celEqual(x, y))));
  fn('list.lastIndexOf(dyn): int', (l: unknown[], x: unknown) => {
    for (let i = l.length - 1; i >= 0; i--) if (celEqual(x, l[i])) return BigInt(i);
    return -1n;
  });

  // Regex (library/regex.go).
  fn('string.find(string): string', (s: string, re: string) => regex(re).exec(s)?.[0] ?? '');
  fn('string.findAll(string): list<string>', (s: string, re: string) => [...s.matchAll(regex(re))].map((m) => m[0]));
  fn('string.findAll(string, int): list<string>', (s: string, re: string, n: bigint) => {
    const all = [...s.matchAll(regex(re))].map((m) => m[0]);
    return n < 0n ? all : all.slice(0, Number(n));
  });

  // Strings (cel-go ext.Strings, version 2 as the API server enables it).
  fn('string.charAt(int): string', (s: string, i: bigint) => {
    const chars = [...s];
    if (i < 0n || i > BigInt(chars.length)) throw fail(`index out of range: ${i}`);
    return chars[Number(i)] ?? '';
  });
  fn('string.replace(string, string): string', (s: string, a: string, b: string) => s.split(a).join(b));
  fn('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => {
    if (n < 0n) return s.split(a).join(b);
    const parts = s.split(a);
    const k = Math.min(Number(n), parts.length - 1);
    return parts.slice(0, k + 1).join(b) + (parts.length > k + 1 ? a + parts.slice(k + 1).join(a) : '');
  });
  fn('string.reverse(): string', (s: string) => [...s].reverse().join(''));
  fn('string.format(list): string', (s: string, args: unknown[]) => format(s, args));
  fn('kopfgen.Namespace.quote(string): string', (_: Namespace, s: string) => quote(s));

  // Sets (cel-go ext.Sets).
  fn('kopfgen.Namespace.contains(list, list): bool', (_: Namespace, a: unknown[], b: unknown[]) =>
    b.every((x) => a.some((y) => celEqual(x, y))),
  );
  fn(
    'kopfgen.Namespace.equivalent(list, list): bool',
    (_: Namespace, a: unknown[], b: unknown[]) =>
      b.every((x) => a.some((y) => celEqual(x, y))) && a.every((x) => b.some((y) => celEqual(x, y))),
  );
  fn('kopfgen.Namespace.intersects(list, list): bool', (_: Namespace, a: unknown[], b: unknown[]) =>
    b.some((x) => a.some((y) => celEqual(x, y))),
  );

  // URLs (library/urls.go).
  fn(
    'url(string): kubernetes.URL',
    (s: string) => parseURL(s) ?? throwing(`URL parse error during conversion from string: ${s}`),
  );
  fn('isURL(string): bool', (s: string) => parseURL(s) !== undefined);
  fn('kubernetes.URL.getScheme(): string', (u: CelURL) => u.scheme);
  fn('kubernetes.URL.getHost(): string', (u: CelURL) => u.host);
  fn('kubernetes.URL.getHostname(): string', (u: CelURL) => hostname(u.host));
  fn('kubernetes.URL.getPort(): string', (u: CelURL) => port(u.host));
  fn('kubernetes.URL.getEscapedPath(): string', (u: CelURL) => u.path);
  fn('kubernetes.URL.getQuery(): map<string, list<string>>', (u: CelURL) => {
    const out: Record<string, string[]> = {};
    for (const [k, v] of new URLSearchParams(u.query)) (out[k] ??= []).push(v);
    return out;
  });

  // IP and CIDR (library/ip.go, library/cidr.go).
  const ip = (s: string) => {
    const r = parseIP(s);
    return typeof r === 'string' ? throwing(r) : r;
  };
  const cidr = (s: string) => {
    const r = parseCIDR(s);
    return typeof r === 'string' ? throwing(r) : r;
  };
  fn('ip(string): net.IP', ip);
  fn('isIP(string): bool', (s: string) => parseIP(s) instanceof CelIP);
  fn('net.IP.family(): int', (a: CelIP) => BigInt(a.family));
  fn('net.IP.isUnspecified(): bool', (a: CelIP) => a.value === 0n);
  fn('net.IP.isLoopback(): bool', (a: CelIP) => (a.family === 4 ? a.value >> 24n === 127n : a.value === 1n));
  fn('net.IP.isLinkLocalMulticast(): bool', (a: CelIP) =>
    a.family === 4 ? a.value >> 8n === 0xe00000n : a.value >> 112n === 0xff02n,
  );
  fn('net.IP.isLinkLocalUnicast(): bool', (a: CelIP) =>
    a.family === 4 ? a.value >> 16n === 0xa9fen : a.value >> 118n === 0x3fan,
  );
  fn('net.IP.isGlobalUnicast(): bool', (a: CelIP) =>
    a.family === 4
      ? a.value !== 0n &&
        a.value >> 24n !== 127n &&
        a.value >> 28n !== 0xen &&
        a.value >> 16n !== 0xa9fen &&
        a.value !== 0xffffffffn
      : a.value > 1n && a.value >> 120n !== 0xffn && a.value >> 118n !== 0x3fan,
  );
  fn('string(net.IP): string', (a: CelIP) => a.toString());
  fn('kopfgen.Namespace.isCanonical(string): bool', (_: Namespace, s: string) => ip(s).toString() === s);
  fn('cidr(string): net.CIDR', cidr);
  fn('isCIDR(string): bool', (s: string) => parseCIDR(s) instanceof CelCIDR);
  fn('net.CIDR.containsIP(net.IP): bool', (c: CelCIDR, a: CelIP) => c.contains(a));
  fn('net.CIDR.containsIP(string): bool', (c: CelCIDR, s: string) => c.contains(ip(s)));
  fn('net.CIDR.containsCIDR(net.CIDR): bool', (c: CelCIDR, d: CelCIDR) => d.prefix >= c.prefix && c.contains(d.ip));
  fn('net.CIDR.containsCIDR(string): bool', (c: CelCIDR, s: string) => {
    const d = cidr(s);
    return d.prefix >= c.prefix && c.contains(d.ip);
  });
  fn('net.CIDR.ip(): net.IP', (c: CelCIDR) => c.ip);
  fn('net.CIDR.masked(): net.CIDR', (c: CelCIDR) => c.masked());
  fn('net.CIDR.prefixLength(): int', (c: CelCIDR) => BigInt(c.prefix));
  fn('string(net.CIDR): string', (c: CelCIDR) => c.toString());
  // IPs, CIDRs and quantities compare by value (their types implement ref.Val's Equal).
  env.registerOperator('net.IP == net.IP', (a: CelIP, b: CelIP) => a.family === b.family && a.value === b.value);
  env.registerOperator(
    'net.CIDR == net.CIDR',
    (a: CelCIDR, b: CelCIDR) => a.prefix === b.prefix && a.ip.family === b.ip.family && a.ip.value === b.ip.value,
  );
  env.registerOperator(
    'kubernetes.Quantity == kubernetes.Quantity',
    (a: CelQuantity, b: CelQuantity) => a.compare(b) === 0,
  );

  // Quantity (library/quantity.go).
  const quantity = (s: string) => parseQuantity(s) ?? throwing('quantities must match the regular expression');
  const fromInt = (n: bigint) => new CelQuantity(n, 1n);
  fn('quantity(string): kubernetes.Quantity', quantity);
  fn('isQuantity(string): bool', (s: string) => parseQuantity(s) !== undefined);
  fn('kubernetes.Quantity.isInteger(): bool', (q: CelQuantity) => q.num % q.den === 0n);
  fn('kubernetes.Quantity.asInteger(): int', (q: CelQuantity) => {
    if (q.num % q.den !== 0n) throw fail('cannot convert value to integer');
    const n = q.num / q.den;
    if (n > 9223372036854775807n || n < -9223372036854775808n) throw fail('cannot convert value to integer');
    return n;
  });
  fn('kubernetes.Quantity.asApproximateFloat(): double', (q: CelQuantity) => Number(q.num) / Number(q.den));
  fn('kubernetes.Quantity.sign(): int', (q: CelQuantity) => BigInt(q.compare(fromInt(0n))));
  fn('kubernetes.Quantity.compareTo(kubernetes.Quantity): int', (a: CelQuantity, b: CelQuantity) =>
    BigInt(a.compare(b)),
  );
  fn(
    'kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool',
    (a: CelQuantity, b: CelQuantity) => a.compare(b) > 0,
  );
  fn('kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool', (a: CelQuantity, b: CelQuantity) => a.compare(b) < 0);
  fn('kubernetes.Quantity.add(kubernetes.Quantity): kubernetes.Quantity', (a: CelQuantity, b: CelQuantity) =>
    a.plus(b, 1n),
  );
  fn('kubernetes.Quantity.add(int): kubernetes.Quantity', (a: CelQuantity, b: bigint) => a.plus(fromInt(b), 1n));
  fn('kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity', (a: CelQuantity, b: CelQuantity) =>
    a.plus(b, -1n),
  );
  fn('kubernetes.Quantity.sub(int): kubernetes.Quantity', (a: CelQuantity, b: bigint) => a.plus(fromInt(b), -1n));

  // Format (library/format.go): format.<name>() and format.named(name), each with validate().
  for (const [name, check] of Object.entries(FORMATS))
    fn(`kopfgen.Namespace.${name}(): kubernetes.NamedFormat`, () => new CelFormat(check));
  fn('kopfgen.Namespace.named(string): optional<kubernetes.NamedFormat>', (_: Namespace, name: string) => {
    const check = FORMATS[name];
    return check ? Optional.of(new CelFormat(check)) : Optional.none();
  });
  fn('kubernetes.NamedFormat.validate(string): optional<list<string>>', (f: CelFormat, s: string) => {
    const errors = f.check(s);
    return errors.length === 0 ? Optional.none() : Optional.of(errors);
  });
  return env;
}

function throwing(message: string): never {
  throw fail(message);
}
