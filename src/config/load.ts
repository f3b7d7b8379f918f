/**
 * Finding and parsing the configuration: `kopfgen.config.json`, `kopfgen.config.yaml`/`.yml`,
 * or a `"kopfgen"` key in package.json, in the working directory or the nearest directory above
 * it up to the repository root (the first holding `.git`), as git, ESLint and tsc look for
 * theirs (or the file given with `--config`). Parsed with the `yaml` package (a superset of JSON) so every node has a position.
 */
import { basename, dirname, resolve } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument, type Node, type Pair } from 'yaml';
import type { Diagnostic } from '../diagnostics.js';
import { displayPath, parentWithin, readIfExists } from '../io/fs.js';
import { jsonSyntaxError } from '../load/json-syntax.js';
import type { HandlerOrigin } from '../api.js';
import { validateConfig, type KopfgenConfig, type Locate } from './config-schema.js';

export const CONFIG_FILES = ['kopfgen.config.json', 'kopfgen.config.yaml', 'kopfgen.config.yml'];

export interface LoadedConfig {
  /** Absolute path of the file the configuration came from; undefined when there is none. */
  path?: string;
  /** Relative paths in the configuration resolve against this directory. */
  dir: string;
  config: KopfgenConfig;
  diagnostics: Diagnostic[];
  /** The directories searched, nearest first, when no file was given (for "no inputs" to name). */
  searched?: string[];
  /** Where each kind of `handlers` is configured, for diagnostics about it. */
  handlerOrigins?: Record<string, HandlerOrigin>;
}

function error(file: string, code: string, message: string, line = 1, col = 1, pointer = ''): Diagnostic {
  return { severity: 'error', code, message, file, line, col, pointer };
}

/** Loads the configuration for a run in `cwd`; `explicit` is the `--config` argument. */
export async function loadConfig(cwd: string, explicit?: string): Promise<LoadedConfig> {
  if (explicit !== undefined) {
    const path = resolve(cwd, explicit);
    const text = await readIfExists(path);
    if (text === undefined) {
      return {
        dir: cwd,
        config: {},
        diagnostics: [error(explicit, 'KG304', `configuration file ${explicit} does not exist`)],
      };
    }
    const inPackage = basename(path) === 'package.json';
    return parseConfig(path, displayPath(cwd, path), text, inPackage);
  }
  const searched: string[] = [];
  let found: Found[] = [];
  for (
    let dir: string | undefined = resolve(cwd);
    dir !== undefined && found.length === 0;
    dir = await parentWithin(dir)
  ) {
    searched.push(dir);
    found = await configsIn(dir);
  }
  if (found.length === 0) return { dir: cwd, config: {}, diagnostics: [], searched };
  if (found.length > 1) {
    const names = found.map((f) => (f.inPackage ? 'package.json ("kopfgen" key)' : basename(f.path)));
    const shown = displayPath(cwd, found[1].path);
    return {
      dir: cwd,
      config: {},
      diagnostics: [
        error(
          shown,
          'KG303',
          `more than one configuration found: ${names.join(', ')}; keep one, or pick one with --config`,
        ),
      ],
    };
  }
  return parseConfig(found[0].path, displayPath(cwd, found[0].path), found[0].text, found[0].inPackage);
}

interface Found {
  path: string;
  text: string;
  inPackage: boolean;
}

/** Every configuration in one directory (more than one is an error the caller reports). */
async function configsIn(dir: string): Promise<Found[]> {
  const found: Found[] = [];
  for (const name of CONFIG_FILES) {
    const path = resolve(dir, name);
    const text = await readIfExists(path);
    if (text !== undefined) found.push({ path, text, inPackage: false });
  }
  const pkgPath = resolve(dir, 'package.json');
  const pkgText = await readIfExists(pkgPath);
  if (pkgText !== undefined && hasKopfgenKey(pkgText)) found.push({ path: pkgPath, text: pkgText, inPackage: true });
  return found;
}

function hasKopfgenKey(packageJson: string): boolean {
  try {
    const pkg = JSON.parse(packageJson) as unknown;
    return typeof pkg === 'object' && pkg !== null && 'kopfgen' in pkg;
  } catch {
    return false;
  }
}

/** Parses and validates one configuration file; `inPackage` reads the `kopfgen` key of a package.json. */
export function parseConfig(path: string, shown: string, text: string, inPackage: boolean): LoadedConfig {
  const dir = dirname(path);
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const locate: Locate = (node, delta = 0) => {
    const offset = (node?.range?.[0] ?? 0) + delta;
    const { line, col } = lineCounter.linePos(offset);
    return { line, col };
  };
  const syntax = doc.errors[0];
  if (syntax) {
    const { line, col } = lineCounter.linePos(syntax.pos[0]);
    return {
      path,
      dir,
      config: {},
      diagnostics: [error(shown, 'KG300', `cannot parse configuration: ${firstLine(syntax.message)}`, line, col)],
    };
  }
  // JSON files must be JSON (YAML would accept comments and bare words).
  const strict = path.endsWith('.json') ? jsonSyntaxError(text) : undefined;
  if (strict) {
    const { line, col } = lineCounter.linePos(strict.offset);
    return {
      path,
      dir,
      config: {},
      diagnostics: [error(shown, 'KG300', `cannot parse configuration: ${strict.message}`, line, col)],
    };
  }
  let root = doc.contents as Node | null;
  let base = '';
  if (inPackage) {
    const pair = isMap(root)
      ? (root.items as Pair<Node, Node>[]).find((p) => isScalar(p.key) && p.key.value === 'kopfgen')
      : undefined;
    if (!pair)
      return { path, dir, config: {}, diagnostics: [error(shown, 'KG304', 'package.json has no "kopfgen" key')] };
    root = pair.value;
    base = '/kopfgen';
  }
  const { config, diagnostics, handlerOrigins } = validateConfig(root, shown, base, locate);
  return { path, dir, config, diagnostics, handlerOrigins };
}

function firstLine(message: string): string {
  return message.split('\n')[0];
}
