/**
 * Names a generated type must never take: TypeScript keywords, standard globals and utility
 * types (a generated `Object` or `Record` would shadow the real one inside its module), and the
 * names generated modules import from `kopfgen/runtime`.
 */
const KEYWORDS =
  'abstract accessor any as asserts async await bigint boolean break case catch class const constructor continue debugger declare default delete do else enum export extends false finally for from function get global if implements import in infer instanceof interface is keyof let module namespace never new null number object of out override package private protected public readonly require return satisfies set static string super switch symbol this throw true try type typeof undefined unique unknown var void while with yield';

const GLOBALS =
  'AbortController AbortSignal AggregateError Array ArrayBuffer ArrayBufferLike ArrayLike AsyncGenerator AsyncIterable AsyncIterableIterator AsyncIterator Atomics Awaited BigInt BigInt64Array BigUint64Array Blob Boolean Buffer Capitalize ConstructorParameters Console Crypto DataView Date Document Element Error EvalError Event EventTarget Exclude Extract File FinalizationRegistry Float32Array Float64Array FormData Function Generator Headers Infinity InstanceType Int16Array Int32Array Int8Array Intl Iterable IterableIterator Iterator JSON Lowercase Map Math NaN Node NodeJS NonNullable Number Object Omit OmitThisParameter Parameters Partial Performance Pick Promise PromiseLike PropertyDecorator PropertyDescriptor PropertyKey Proxy RangeError Readonly ReadonlyArray ReadonlyMap ReadonlySet Record ReferenceError Reflect RegExp Request Required Response ReturnType Set SharedArrayBuffer String Symbol SyntaxError TemplateStringsArray TextDecoder TextEncoder ThisParameterType ThisType TypeError URIError URL URLSearchParams Uint16Array Uint32Array Uint8Array Uint8ClampedArray Uncapitalize Uppercase WeakMap WeakRef WeakSet WebSocket Window Worker console exports globalThis process';

const RUNTIME =
  'ObjectMeta KubernetesObject defineResource defineHandler TemporaryError PermanentError HandlerError handlerStatus';

export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  ...KEYWORDS.split(' '),
  ...GLOBALS.split(' '),
  ...RUNTIME.split(' '),
]);

/** PascalCase of a property name or path segment: `tls.crt` → `TlsCrt`, `x-kube` → `XKube`, `$ref` → `Ref`. */
export function pascal(segment: string): string {
  let out = '';
  for (const part of segment.split(/[^A-Za-z0-9]+/)) {
    if (part) out += part[0].toUpperCase() + part.slice(1);
  }
  return out || 'Field';
}

/** A set of claimed names: `claim(base)` returns `base`, or `base2`, `base3`… when taken or reserved. */
export class NameScope {
  private readonly taken: Set<string>;
  constructor(taken: Iterable<string> = []) {
    this.taken = new Set(taken);
  }

  claim(base: string): string {
    let name = RESERVED_NAMES.has(base) ? base + '2' : base;
    for (let i = 2; this.taken.has(name) || RESERVED_NAMES.has(name); i++) name = base + i;
    this.taken.add(name);
    return name;
  }

  has(name: string): boolean {
    return this.taken.has(name);
  }
}
