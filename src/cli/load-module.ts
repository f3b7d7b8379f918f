/**
 * Loads the operator module `kopfgen run` is given, whatever it is written in: `.js`/`.mjs`/`.cjs` by
 * Node itself (tsx is not loaded for them), `.ts`/`.mts`/`.cts` through tsx with both of its hooks —
 * the ESM one alone fails on a `.ts` outside a `"type": "module"` package (Node treats it as CommonJS,
 * then meets its `import` syntax while importing it: ERR_REQUIRE_CYCLE_MODULE), so the CommonJS hook
 * compiles such a file, as the `tsx` command does. A `.cts` is required, the rest imported.
 *
 * tsx is the project's, not kopfgen's: a production install of an operator runs its built JavaScript
 * and needs no compiler (tsx's esbuild is a native binary with an install script), so kopfgen only
 * resolves tsx, from the module's project first (its dev dependency), then from kopfgen's own
 * place; without it a `.ts` module is refused in one line saying what to install or run instead.
 *
 * An error while loading becomes one line, `<file>:<line>:<col>: <message>`, at the first place in the
 * user's own code (not Node's, not kopfgen's, not node_modules'): a thrown error's frame, a syntax
 * error's position (esbuild's for TypeScript; for JavaScript, Node's caret line or, when Node gives no
 * position, esbuild's parse of the file), an unresolvable import's statement. The stack is kept for
 * `--log-level debug`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { messageOf } from '../runtime/error-message.js';

const TS = /\.[cm]?ts$/;

/** A module that did not load: where (when known), what, the one line of both, and the stack for debug output. */
export interface LoadFailure {
  /** `<file>:<line>:<col>: <message>`, or `<file>: <message>` when no position is known. */
  line: string;
  message: string;
  at?: Position;
  stack?: string;
}

/** kopfgen's own code (built, sources, the command): frames there are not the user's. */
const OWN_DIRS = (() => {
  const here = dirname(fileURLToPath(import.meta.url));
  const root = here.endsWith(join('dist', 'src', 'cli')) ? resolve(here, '../../..') : resolve(here, '../..');
  return ['dist', 'src', 'bin'].map((dir) => join(root, dir) + sep);
})();

/** A file name as a stack frame or a module URL gives it, without tsx's namespace query. */
function fileOf(location: string): string {
  const bare = location.replace(/\?.*$/, '');
  if (bare.startsWith('file://')) {
    try {
      return fileURLToPath(bare);
    } catch {
      return bare;
    }
  }
  return bare;
}

/** Whether a file is the user's: not Node's own, not a dependency's, not kopfgen's. */
function isUsers(file: string): boolean {
  if (!isAbsolute(file) || file.split(sep).includes('node_modules')) return false;
  return !OWN_DIRS.some((dir) => file.startsWith(dir));
}

/** A position in the user's code; `file` absolute. */
export interface Position {
  file: string;
  line: number;
  col: number;
}

const show = (cwd: string, p: Position) => `${displayFile(cwd, p.file)}:${p.line}:${p.col}`;

function displayFile(cwd: string, file: string): string {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/** The first frame of a stack in the user's code. */
export function userFrame(stack: string): Position | undefined {
  for (const line of stack.split('\n')) {
    const frame = /^\s+at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/.exec(line);
    if (!frame) continue;
    const file = fileOf(frame[1]);
    if (isUsers(file)) return { file, line: Number(frame[2]), col: Number(frame[3]) };
  }
  return undefined;
}

/** Node's decorated syntax errors start `file:line`, the source line, then carets under the culprit. */
function decoratedPosition(stack: string): Position | undefined {
  const [head, , carets] = stack.split('\n');
  const where = /^(.+):(\d+)$/.exec(head ?? '');
  if (!where) return undefined;
  const file = fileOf(where[1]);
  if (!isAbsolute(file)) return undefined;
  const col = (carets ?? '').indexOf('^');
  return { file, line: Number(where[2]), col: col >= 0 ? col + 1 : 1 };
}

/** esbuild's `Transform failed … \n<file>:<line>:<col>: ERROR: <message>`: position and message. */
function esbuildPosition(message: string): { at: Position; message: string } | undefined {
  const found = /^(.+?):(\d+):(\d+): ERROR: (.*)$/m.exec(message);
  if (!found) return undefined;
  return { at: { file: found[1], line: Number(found[2]), col: Number(found[3]) + 1 }, message: found[4] };
}

/**
 * `tsx/package.json` as the module's project resolves it (its dev dependency), else as kopfgen's
 * own place does; undefined when neither has tsx.
 */
function tsxPackage(dir: string): string | undefined {
  for (const from of [join(dir, 'noop.js'), fileURLToPath(import.meta.url)]) {
    try {
      return createRequire(from).resolve('tsx/package.json');
    } catch {
      // not there: the next place
    }
  }
  return undefined;
}

/** The part of esbuild's API used here (esbuild comes with tsx; kopfgen does not depend on it directly). */
interface EsbuildParse {
  transformSync(code: string, options: { loader: 'js'; format: 'esm'; sourcefile: string }): unknown;
}

/** One of esbuild's error messages. */
interface EsbuildMessage {
  text: string;
  location?: { line: number; column: number } | null;
}

/**
 * Where a JavaScript file fails to parse, from esbuild (tsx's dependency, loaded only on this path):
 * V8 reports an ES module's syntax error without a position.
 */
function parsePosition(file: string): { at: Position; message: string } | undefined {
  try {
    const tsx = tsxPackage(dirname(file));
    if (tsx === undefined) return undefined;
    const fromTsx = createRequire(tsx);
    const esbuild: EsbuildParse = fromTsx('esbuild');
    esbuild.transformSync(readFileSync(file, 'utf8'), { loader: 'js', format: 'esm', sourcefile: file });
  } catch (error) {
    const errors: unknown = Reflect.get(Object(error), 'errors');
    const first: EsbuildMessage | undefined = Array.isArray(errors) ? errors[0] : undefined;
    if (first?.location)
      return { at: { file, line: first.location.line, col: first.location.column + 1 }, message: first.text };
  }
  return undefined;
}

/** The import statement naming a module that cannot be found, in the file that imports it. */
function importPosition(message: string): Position | undefined {
  const found = /Cannot find (?:module|package) '([^']+)' imported from (.+)$/m.exec(message);
  if (!found) return undefined;
  const importer = fileOf(found[2].trim());
  let text: string;
  try {
    text = readFileSync(importer, 'utf8');
  } catch {
    return undefined;
  }
  const wanted = found[1];
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    const quoted = /(['"])([^'"]+)\1/g;
    for (let m = quoted.exec(line); m; m = quoted.exec(line)) {
      const spec = m[2];
      const target = spec.startsWith('.') ? resolve(dirname(importer), spec) : spec;
      if (target === wanted || wanted.startsWith(target) || spec === wanted)
        return { file: importer, line: index + 1, col: m.index + 1 };
    }
  }
  return undefined;
}

/** The one line for an error thrown while loading `file`. */
export function loadFailure(error: unknown, file: string, cwd = process.cwd()): LoadFailure {
  const stack = error instanceof Error ? error.stack : undefined;
  const message = messageOf(error);
  const transformed = esbuildPosition(message);
  if (transformed) {
    const { at, message: what } = transformed;
    return { line: `${show(cwd, at)}: ${what}`, message: what, at: { ...at, file: resolve(cwd, at.file) }, stack };
  }
  const parsed = error instanceof SyntaxError && !TS.test(file) ? parsePosition(file) : undefined;
  const first = parsed?.message ?? message.split('\n')[0];
  const at =
    (stack && decoratedPosition(stack)) ?? (stack && userFrame(stack)) ?? importPosition(message) ?? parsed?.at;
  if (at) return { line: `${show(cwd, at)}: ${first}`, message: first, at, stack };
  return { line: `${displayFile(cwd, file)}: ${first}`, message: first, stack };
}

let tsxRegistered = false;

/** The part of tsx's API used here: `register` of `tsx/esm/api` and `tsx/cjs/api`. */
interface TsxHooks {
  register(): unknown;
}

function isHooks(value: unknown): value is TsxHooks {
  return typeof Reflect.get(Object(value), 'register') === 'function';
}

/**
 * The ES module file of one of tsx's entry points (`./esm/api`), from its package.json's exports:
 * the CommonJS build of its ESM API finds its loader at a wrong path, so the ESM one is imported.
 */
function tsxEntry(packageJson: string, entry: string): string | undefined {
  const exports: unknown = Reflect.get(Object(JSON.parse(readFileSync(packageJson, 'utf8'))), 'exports');
  const target: unknown = Reflect.get(Object(Reflect.get(Object(exports), entry)), 'import');
  const file: unknown = typeof target === 'string' ? target : Reflect.get(Object(target), 'default');
  return typeof file === 'string' ? join(dirname(packageJson), file) : undefined;
}

/** tsx's ESM and CommonJS hooks, once per process; false when no tsx resolves for the module's project. */
async function registerTsx(dir: string): Promise<boolean> {
  if (tsxRegistered) return true;
  const tsx = tsxPackage(dir);
  const esmFile = tsx && tsxEntry(tsx, './esm/api');
  const cjsFile = tsx && tsxEntry(tsx, './cjs/api');
  if (esmFile === undefined || cjsFile === undefined) return false;
  const [esm, cjs]: unknown[] = await Promise.all([
    import(pathToFileURL(esmFile).href),
    import(pathToFileURL(cjsFile).href),
  ]);
  if (!isHooks(esm) || !isHooks(cjs)) return false;
  esm.register();
  cjs.register();
  tsxRegistered = true;
  return true;
}

/** Why a `.ts` module cannot run: no tsx; what to do instead. */
export function noTsx(modulePath: string): string {
  return `${modulePath}: a TypeScript module runs through tsx, which this project does not have: npm install --save-dev tsx, or build and run the JavaScript (npm run build && kopfgen run dist/operator.js)`;
}

/**
 * Imports an operator module: importing it registers its handlers. Returns undefined once it loaded,
 * else the failure (`<file>: no such file` when there is no file).
 */
export async function loadModule(modulePath: string, cwd = process.cwd()): Promise<LoadFailure | undefined> {
  const file = resolve(cwd, modulePath);
  if (!existsSync(file)) return { line: `${modulePath}: no such file`, message: 'no such file' };
  try {
    if (TS.test(file) && !(await registerTsx(dirname(file)))) return { line: noTsx(modulePath), message: 'no tsx' };
    if (file.endsWith('.cts')) createRequire(file)(file);
    else await import(pathToFileURL(file).href);
  } catch (error) {
    return loadFailure(error, file, cwd);
  }
  return undefined;
}
