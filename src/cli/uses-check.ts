/**
 * `kopfgen run --check`'s check of declared access, before the operator starts: every
 * `<…>.client.<verb>(builtins.<kind>, …)` call in the project's TypeScript whose kind and verb no
 * declaration of the project covers (`uses(kind, verbs)`, `onChild(kind, …)`, `defineIndex(kind, …)`,
 * as `api/access.ts` grants them) is reported at the call, with the `uses(…)` to add. At run time
 * the typed client refuses such a call (a temporary failure, retried after 60 s, naming only the
 * verb that failed); the call is right there in the code.
 *
 * Syntax only (TypeScript's parser through ts-morph's bundled compiler, no type checker, so it works
 * with any TypeScript the project compiles with): a kind is known by the expression's last name
 * (`builtins.persistentVolumeClaims` → `persistentVolumeClaims`), and only the built-in kinds
 * (`builtins.<name>`) are checked, which a declaration must cover (a handled resource's own kind
 * needs none). A declaration whose verbs are not a literal list counts as every verb, so what the
 * check cannot read never blocks a start.
 */
import { dirname, relative, resolve } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import type { ts as TS } from 'ts-morph';
import { formatDiagnostic, type Diagnostic } from '../diagnostics.js';
import { ALL_CLIENT_VERBS, CLIENT_ACCESS, INDEXED_ACCESS, OWNED_ACCESS } from '../runtime/api/access.js';
import type { ClientVerb } from '../runtime/api/client-api.js';
import type { AccessVerb } from '../runtime/api/registry.js';

type Ts = typeof TS;

/** A client call's kind and verb, where it is. */
interface ClientCall {
  kind: string;
  /** The kind as written (`builtins.persistentVolumeClaims`). */
  written: string;
  verb: ClientVerb;
  call: string;
  file: string;
  line: number;
  col: number;
}

function isClientVerb(name: string): name is ClientVerb {
  return ALL_CLIENT_VERBS.some((v) => v === name);
}

/** The last name of `builtins.x` (any object named `builtins`, also `b.builtins.x`), else undefined. */
function builtinName(ts: Ts, node: TS.Node): string | undefined {
  if (!ts.isPropertyAccessExpression(node)) return undefined;
  const object = node.expression;
  const named = ts.isIdentifier(object) ? object.text : ts.isPropertyAccessExpression(object) ? object.name.text : '';
  return named === 'builtins' ? node.name.text : undefined;
}

/** The string literals of a `['get', 'list']` argument; undefined when it is anything else. */
function literalVerbs(ts: Ts, node: TS.Expression | undefined): string[] | undefined {
  if (node === undefined || !ts.isArrayLiteralExpression(node)) return undefined;
  const out: string[] = [];
  for (const element of node.elements) {
    if (!ts.isStringLiteralLike(element)) return undefined;
    out.push(element.text);
  }
  return out;
}

/** The callee's name: `uses` of `uses(…)` or `kopfgen.uses(…)`, `onChild` of `X.onChild(…)`. */
function calleeName(ts: Ts, call: TS.CallExpression): string | undefined {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return undefined;
}

/**
 * Declarations (kind's last name → the access verbs granted) and client calls of built-in kinds
 * in `files` (path as it is to be shown, and text).
 */
export function scanAccess(
  ts: Ts,
  files: readonly { file: string; text: string }[],
): { granted: Map<string, Set<AccessVerb>>; calls: ClientCall[] } {
  const granted = new Map<string, Set<AccessVerb>>();
  const grant = (kind: string, verbs: readonly AccessVerb[]): void => {
    const set = granted.get(kind) ?? new Set<AccessVerb>();
    for (const v of verbs) set.add(v);
    granted.set(kind, set);
  };
  const calls: ClientCall[] = [];
  for (const { file, text } of files) {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: TS.Node): void => {
      if (ts.isCallExpression(node)) {
        const name = calleeName(ts, node);
        const first = node.arguments[0];
        const kind = first === undefined ? undefined : lastName(ts, first);
        if (kind !== undefined && name === 'uses') {
          const verbs = literalVerbs(ts, node.arguments[1]);
          const client = verbs === undefined ? ALL_CLIENT_VERBS : verbs.filter(isClientVerb);
          grant(
            kind,
            client.flatMap((v) => CLIENT_ACCESS[v]),
          );
        } else if (kind !== undefined && name === 'onChild') grant(kind, OWNED_ACCESS);
        else if (kind !== undefined && name === 'defineIndex') grant(kind, INDEXED_ACCESS);
        const callee = node.expression;
        const builtin = first === undefined ? undefined : builtinName(ts, first);
        if (
          builtin !== undefined &&
          first !== undefined &&
          ts.isPropertyAccessExpression(callee) &&
          isClientVerb(callee.name.text) &&
          ts.isPropertyAccessExpression(callee.expression) &&
          callee.expression.name.text === 'client'
        ) {
          const at = source.getLineAndCharacterOfPosition(node.getStart(source));
          calls.push({
            kind: builtin,
            written: first.getText(source),
            verb: callee.name.text,
            call: callee.getText(source),
            file,
            line: at.line + 1,
            col: at.character + 1,
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { granted, calls };
}

/** The last name of a kind expression: `builtins.x` → `x`, `WebApp` → `WebApp`. */
function lastName(ts: Ts, node: TS.Expression): string | undefined {
  if (ts.isIdentifier(node)) return node.text;
  if (ts.isPropertyAccessExpression(node)) return node.name.text;
  return undefined;
}

/** KG361 for each client call no declaration covers, with the declaration to add. */
export function undeclaredCalls(ts: Ts, files: readonly { file: string; text: string }[]): Diagnostic[] {
  const { granted, calls } = scanAccess(ts, files);
  const out: Diagnostic[] = [];
  for (const c of calls) {
    const have = granted.get(c.kind);
    const missing = CLIENT_ACCESS[c.verb].filter((v) => !have?.has(v));
    if (missing.length === 0) continue;
    const message = `${c.call}(${c.written}, …) uses a kind no declaration covers for ${c.verb}: add uses(${c.written}, ['${c.verb}']) beside the handler (the typed client refuses the call at run time; \`kopfgen manifests\` grants what is declared)`;
    out.push({ severity: 'error', code: 'KG361', message, file: c.file, line: c.line, col: c.col, pointer: '' });
  }
  return out;
}

/**
 * The check for the module `modulePath`: the files the nearest tsconfig.json above it includes (or
 * the module alone), each shown relative to `cwd`; the lines to print, none when every call is covered.
 */
export function usesCheck(ts: Ts, modulePath: string, cwd: string, tsconfig: string | undefined): string[] {
  const module = resolve(cwd, modulePath);
  let paths = [module];
  if (tsconfig !== undefined) {
    const read = ts.readConfigFile(tsconfig, ts.sys.readFile);
    if (read.error === undefined) {
      const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(tsconfig));
      paths = parsed.fileNames.filter((f) => !/\.d\.[mc]?ts$/.test(f));
    }
  }
  const files = paths
    .filter((p) => existsSync(p))
    .map((p) => ({ file: relative(cwd, p).split('\\').join('/') || p, text: readFileSync(p, 'utf8') }));
  return undeclaredCalls(ts, files).map(formatDiagnostic);
}
