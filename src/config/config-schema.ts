/**
 * The configuration file's keys and their validation. Every problem names the key and points
 * at its line and column, because a config file is edited by hand.
 */
import { isMap, isScalar, isSeq, type Node, type Pair } from 'yaml';
import { TARGETS, type ConfigPos, type HandlerCause, type HandlerOrigin, type Target } from '../api.js';
import type { Diagnostic } from '../diagnostics.js';
import { pointerJoin } from '../diagnostics.js';
import { handlerIdProblem, parseHandlerEntry } from '../model/handler-paths.js';

/** The configuration as written (paths still relative to the config file's directory). */
export interface KopfgenConfig {
  target?: Target;
  inputs?: string[];
  out?: string;
  stubs?: string | false;
  handlers?: Record<string, string[]>;
  /** The causes named with ids (`update_fn:update`), by kind and id. */
  handlerCauses?: Record<string, Record<string, HandlerCause[]>>;
}

/** Every key the file may have, with a one-line description used in "unknown key" messages. */
export const CONFIG_KEYS: Record<string, string> = {
  $schema: 'a JSON schema reference for editors (ignored)',
  target: 'what to generate: "typescript" (default) or "kopf" (a Python package for kopf operators)',
  inputs: 'CRD files, directories or globs (string or list of strings)',
  out: 'directory of generated files',
  stubs: 'directory of handler stubs, or false to skip them',
  handlers:
    'handler ids per kind: { Kind: [id, ...] } or { Kind: "id1, id2" }, an id with the causes of its stubs as id:update+resume (default: create); [] for a kind without handlers',
};

/**
 * Maps a node (`delta` characters into it) to `file:line:col` (supplied by the loader, which owns
 * the LineCounter).
 */
export type Locate = (node: Node | null | undefined, delta?: number) => { line: number; col: number };

interface Ctx {
  file: string;
  base: string;
  locate: Locate;
  diagnostics: Diagnostic[];
  handlerOrigins: Record<string, HandlerOrigin>;
}

function report(
  ctx: Ctx,
  node: Node | null | undefined,
  code: string,
  pointer: string,
  message: string,
  delta = 0,
): void {
  const { line, col } = ctx.locate(node, delta);
  ctx.diagnostics.push({ severity: 'error', code, message, file: ctx.file, line, col, pointer });
}

/** Validates the config mapping `root` (the document, or package.json's `kopfgen` value). */
export function validateConfig(
  root: Node | null,
  file: string,
  base: string,
  locate: Locate,
): { config: KopfgenConfig; diagnostics: Diagnostic[]; handlerOrigins: Record<string, HandlerOrigin> } {
  const ctx: Ctx = { file, base, locate, diagnostics: [], handlerOrigins: {} };
  const config: KopfgenConfig = {};
  if (!isMap(root)) {
    report(
      ctx,
      root,
      'KG302',
      base || '/',
      'the configuration must be an object with keys ' +
        Object.keys(CONFIG_KEYS)
          .filter((k) => k !== '$schema')
          .join(', '),
    );
    return { config, diagnostics: ctx.diagnostics, handlerOrigins: ctx.handlerOrigins };
  }
  for (const pair of root.items as Pair<Node, Node>[]) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    const pointer = pointerJoin(base, key);
    if (!(key in CONFIG_KEYS)) {
      const hint = closest(key, Object.keys(CONFIG_KEYS));
      report(
        ctx,
        pair.key,
        'KG301',
        pointer,
        `unknown configuration key "${key}"${hint ? ` (did you mean "${hint}"?)` : ''}; known keys: ${Object.keys(CONFIG_KEYS).join(', ')}`,
      );
      continue;
    }
    readKey(ctx, key, pair.value, pointer, config);
  }
  return { config, diagnostics: ctx.diagnostics, handlerOrigins: ctx.handlerOrigins };
}

function readKey(ctx: Ctx, key: string, value: Node | null, pointer: string, config: KopfgenConfig): void {
  const wrong = (expected: string): void =>
    report(ctx, value, 'KG302', pointer, `configuration key "${key}" must be ${expected}, got ${describe(value)}`);
  switch (key) {
    case '$schema':
      if (!isString(value)) wrong('a string');
      return;
    case 'target': {
      const target = TARGETS.find((t) => isString(value) && value.value === t);
      if (target === undefined) return wrong(TARGETS.map((t) => `"${t}"`).join(' or '));
      config.target = target;
      return;
    }
    case 'inputs': {
      const list = stringList(value);
      if (list === undefined || list.length === 0)
        return wrong('a non-empty string or a non-empty list of non-empty strings');
      config.inputs = list;
      return;
    }
    case 'out':
      if (!isString(value) || value.value === '') return wrong('a non-empty string (a directory)');
      config.out = value.value;
      return;
    case 'stubs':
      if (isScalar(value) && value.value === false) config.stubs = false;
      else if (isString(value) && value.value !== '') config.stubs = value.value;
      else wrong('a directory (string) or false');
      return;
    case 'handlers': {
      const read = readHandlers(ctx, value, pointer);
      if (read === undefined) return;
      config.handlers = read.handlers;
      if (Object.keys(read.causes).length > 0) config.handlerCauses = read.causes;
      return;
    }
  }
}

function readHandlers(
  ctx: Ctx,
  value: Node | null,
  pointer: string,
): { handlers: Record<string, string[]>; causes: Record<string, Record<string, HandlerCause[]>> } | undefined {
  if (!isMap(value)) {
    report(
      ctx,
      value,
      'KG302',
      pointer,
      `configuration key "handlers" must be an object mapping a kind to handler ids, got ${describe(value)}`,
    );
    return undefined;
  }
  const out: Record<string, string[]> = {};
  const causes: Record<string, Record<string, HandlerCause[]>> = {};
  for (const pair of value.items as Pair<Node, Node>[]) {
    const kind = isScalar(pair.key) ? String(pair.key.value) : '';
    const at = pointerJoin(pointer, kind);
    const entries = isString(pair.value) ? splitIds(pair.value.value) : stringList(pair.value);
    // `[]` says the kind has no handlers; an empty string is more likely a slip, so it is an error.
    if (kind === '' || entries === undefined || (entries.length === 0 && isString(pair.value))) {
      report(
        ctx,
        pair.value ?? pair.key,
        'KG302',
        at,
        `configuration key "handlers.${kind}" must be a list of handler ids or a comma-separated string, got ${describe(pair.value)}`,
      );
      continue;
    }
    const positions = idPositions(ctx, pair.value, at);
    const ids: string[] = [];
    for (const entry of entries) {
      const parsed = parseHandlerEntry(entry);
      const problem = parsed.problem ?? handlerIdProblem(parsed.id);
      const where = positions.get(entry);
      if (problem && where)
        report(
          ctx,
          where.node,
          problem.code,
          where.pointer,
          `configured handlers for ${kind}: ${problem.message}`,
          where.delta,
        );
      if (!ids.includes(parsed.id)) ids.push(parsed.id);
      if (parsed.causes) (causes[kind] ??= {})[parsed.id] = parsed.causes;
    }
    const { line, col } = ctx.locate(pair.key);
    const idsAt: Record<string, ConfigPos> = {};
    for (const [entry, where] of positions)
      idsAt[parseHandlerEntry(entry).id] = { ...ctx.locate(where.node, where.delta), pointer: where.pointer };
    ctx.handlerOrigins[kind] = { file: ctx.file, line, col, pointer: at, what: `in ${ctx.file}`, ids: idsAt };
    out[kind] = ids;
  }
  return { handlers: out, causes };
}

/**
 * Where each id of a `handlers` entry is written: a list item, or its place inside a
 * comma-separated string (the string's start where the string spans lines or is escaped).
 */
function idPositions(
  ctx: Ctx,
  value: Node | null,
  pointer: string,
): Map<string, { node: Node; delta: number; pointer: string }> {
  const out = new Map<string, { node: Node; delta: number; pointer: string }>();
  if (isString(value)) {
    const style = isScalar(value) ? value.type : undefined;
    const quoted = style === 'QUOTE_DOUBLE' || style === 'QUOTE_SINGLE' ? 1 : 0;
    const range = value.range;
    // Offsets into the value are offsets into the text only where no escape or fold changed its length.
    const exact = range !== undefined && range !== null && range[1] - range[0] === value.value.length + 2 * quoted;
    for (const m of value.value.matchAll(/[^,\s]+/g))
      if (!out.has(m[0])) out.set(m[0], { node: value, delta: exact ? quoted + (m.index ?? 0) : 0, pointer });
  } else if (isSeq(value)) {
    (value.items as Node[]).forEach((item, i) => {
      if (isString(item) && !out.has(item.value))
        out.set(item.value, { node: item, delta: 0, pointer: pointerJoin(pointer, i) });
    });
  }
  return out;
}

export function splitIds(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function isString(node: Node | null): node is Node & { value: string } {
  return isScalar(node) && typeof node.value === 'string';
}

function stringList(node: Node | null): string[] | undefined {
  if (isString(node)) return node.value === '' ? undefined : [node.value];
  if (!isSeq(node)) return undefined;
  const items = node.items as (Node | null)[];
  const out: string[] = [];
  for (const item of items) {
    if (!isString(item) || item.value === '') return undefined;
    out.push(item.value);
  }
  return out;
}

function describe(node: Node | null | undefined): string {
  if (node === null || node === undefined) return 'nothing';
  if (isMap(node)) return 'an object';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) return node.value === null ? 'null' : `${typeof node.value} ${JSON.stringify(node.value)}`;
  return 'an unsupported value';
}

/** The known key within edit distance 2 of `key` (or a prefix of it, `outDir` → `out`), for "did you mean". */
function closest(key: string, known: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const k of known) {
    const [a, b] = [key.toLowerCase(), k.toLowerCase()];
    const d = a.startsWith(b) || b.startsWith(a) ? 1 : distance(a, b);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}
