/**
 * What one TypeScript file of the user's project says about access to other kinds, read from its
 * syntax alone (the compiler's parser, no type checker): the declarations it makes
 * (`uses(kind, verbs)`, `X.onChild(kind, …)`, `defineIndex(kind, …)`) and its client calls of
 * built-in kinds (`<…>.client.<method>(builtins.<kind>, …)`), each at its line and column. Plain
 * data, so `generate` keeps it in its project memo beside the file's scan; which calls no
 * declaration covers is decided over every file's facts by `cli/uses-check.ts`, the one checker
 * `kopfgen run --check` and `generate` share.
 *
 * A kind is known by the expression's last name (`builtins.persistentVolumeClaims` →
 * `persistentVolumeClaims`); a call counts as a client call of a built-in kind when its first
 * argument is `builtins.<name>` (any object named `builtins`, also `b.builtins.x`).
 */
import type { ts as TS } from 'ts-morph';

type Ts = typeof TS;

/** A declaration: `uses`, `onChild` or `defineIndex` of `kind`; `verbs` as written, undefined when not a literal list. */
export interface AccessDeclaration {
  callee: 'uses' | 'onChild' | 'defineIndex';
  kind: string;
  verbs?: string[];
}

/** A client call of a built-in kind: `method` is the called name (a client verb or not: the checker decides). */
export interface AccessCall {
  kind: string;
  /** The kind as written (`builtins.persistentVolumeClaims`). */
  written: string;
  method: string;
  /** The callee as written (`ctx.client.create`). */
  call: string;
  line: number;
  col: number;
}

export interface AccessFacts {
  declarations: AccessDeclaration[];
  calls: AccessCall[];
}

const DECLARING = new Set(['uses', 'onChild', 'defineIndex']);

function isDeclaring(name: string | undefined): name is AccessDeclaration['callee'] {
  return name !== undefined && DECLARING.has(name);
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

/** The last name of a kind expression: `builtins.x` → `x`, `WebApp` → `WebApp`. */
function lastName(ts: Ts, node: TS.Expression): string | undefined {
  if (ts.isIdentifier(node)) return node.text;
  if (ts.isPropertyAccessExpression(node)) return node.name.text;
  return undefined;
}

/** The access facts of a parsed file. */
export function scanAccess(ts: Ts, source: TS.SourceFile): AccessFacts {
  const declarations: AccessDeclaration[] = [];
  const calls: AccessCall[] = [];
  const visit = (node: TS.Node): void => {
    if (ts.isCallExpression(node)) {
      const name = calleeName(ts, node);
      const first = node.arguments[0];
      const kind = first === undefined ? undefined : lastName(ts, first);
      if (kind !== undefined && isDeclaring(name)) {
        const verbs = name === 'uses' ? literalVerbs(ts, node.arguments[1]) : undefined;
        declarations.push({ callee: name, kind, ...(verbs === undefined ? {} : { verbs }) });
      }
      const callee = node.expression;
      const builtin = first === undefined ? undefined : builtinName(ts, first);
      if (
        builtin !== undefined &&
        first !== undefined &&
        ts.isPropertyAccessExpression(callee) &&
        ts.isPropertyAccessExpression(callee.expression) &&
        callee.expression.name.text === 'client'
      ) {
        const at = source.getLineAndCharacterOfPosition(node.getStart(source));
        calls.push({
          kind: builtin,
          written: first.getText(source),
          method: callee.name.text,
          call: callee.getText(source),
          line: at.line + 1,
          col: at.character + 1,
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { declarations, calls };
}
