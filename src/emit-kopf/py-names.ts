/**
 * Python's own spelling of what the naming pass decided. The kopf target reuses every type name
 * the naming pass gives (the TypeScript ones); only what Python forbids is escaped here: hard
 * keywords, the names a generated module binds itself, keys a `class` body cannot declare, and
 * module paths, whose segments must be identifiers (`example.com` → `example_com`).
 */

/** Python's hard keywords (3.9–3.12). Soft keywords (`match`, `case`, `type`, `_`) are valid names. */
export const PY_KEYWORDS: ReadonlySet<string> = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

/**
 * The names a generated module binds besides its types (its imports from `typing` and
 * `typing_extensions`, its module constants): a type named so would shadow them. Every
 * generated type name is PascalCase (the naming pass), so only capitalised names can meet.
 */
export const PY_MODULE_NAMES: ReadonlySet<string> = new Set([
  'Any',
  'Dict',
  'List',
  'Literal',
  'Optional',
  'Union',
  'Required',
  'TypeAlias',
  'TypedDict',
  'TYPE_CHECKING',
  'GROUP',
  'VERSION',
  'PLURAL',
  'KIND',
]);

/**
 * A name from the naming pass as Python may bind it: a keyword or a module-bound name gets PEP 8's
 * trailing underscore (`None` → `None_`). Generated names never hold `_` (the naming pass's
 * PascalCase drops it), so the escaped name cannot meet another generated name.
 */
export function pyName(name: string): string {
  return PY_KEYWORDS.has(name) || PY_MODULE_NAMES.has(name) ? name + '_' : name;
}

const ASCII_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An identifier Python accepts where it binds a name (not a keyword). ASCII only: the output stays ASCII-named. */
export function isPyIdentifier(name: string): boolean {
  return ASCII_IDENTIFIER.test(name) && !PY_KEYWORDS.has(name);
}

/**
 * Whether a TypedDict key can be declared in a `class` body. Besides being an identifier, it must
 * not start with two underscores (without ending with two): Python mangles such names in a class
 * body (`__x` would become the key `_Cls__x`). Other keys need the functional form.
 */
export function isClassFormKey(key: string): boolean {
  return isPyIdentifier(key) && !(key.startsWith('__') && !key.endsWith('__'));
}

/**
 * A Python string literal. JSON's escapes (`\"`, `\\`, `\n`, `\uXXXX`, …) all mean the same in a
 * Python string, so JSON's quoting is Python's.
 */
export function pyString(value: string): string {
  return JSON.stringify(value);
}

/** One segment of a module path (a version or a plural): `-` and `.` become `_`, a keyword gets `_`, a leading digit `_` before. */
export function moduleSegment(segment: string): string {
  const name = segment.replace(/[^A-Za-z0-9_]/g, '_');
  if (/^[0-9]/.test(name)) return '_' + name;
  return PY_KEYWORDS.has(name) ? name + '_' : name;
}

/**
 * The package directory of each API group in the run (`cert-manager.io` → `cert_manager_io`).
 * Two groups that spell alike (`a-b.io`, `a.b.io`) are told apart by a number, given in group
 * order, so the choice never depends on the input order.
 */
export function groupPackages(groups: Iterable<string>): Map<string, string> {
  const taken = new Set<string>();
  const out = new Map<string, string>();
  for (const group of [...new Set(groups)].sort()) {
    const base = moduleSegment(group);
    let name = base;
    for (let i = 2; taken.has(name); i++) name = `${base}${i}`;
    taken.add(name);
    out.set(group, name);
  }
  return out;
}

/** `MyApp` → `my_app`, `AB2` → `a_b2`: a PascalCase name from the naming pass as a snake_case function name. */
export function snakeCase(pascalName: string): string {
  return pascalName.replace(/[A-Z]/g, (c, at: number) => (at > 0 ? '_' : '') + c.toLowerCase());
}
