/**
 * `kopfgen run --check`'s check of declared access, before the operator starts: every
 * `<…>.client.<verb>(builtins.<kind>, …)` call in the project's TypeScript whose kind and verb no
 * declaration of the project covers (`uses(kind, verbs)`, `onChild(kind, …)`, `defineIndex(kind, …)`,
 * as `api/access.ts` grants them) is reported at the call, with the `uses(…)` to add. At run time
 * the typed client refuses such a call (a temporary failure, retried after 60 s, naming only the
 * verb that failed); the call is right there in the code.
 *
 * Syntax only (`io/access-scan.ts`: TypeScript's parser through ts-morph's bundled compiler, no type
 * checker, so it works with any TypeScript the project compiles with); `generate` runs the same
 * check over its project scan and reports the findings as warnings. A kind is known by the expression's last name
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
import { scanAccess, type AccessDeclaration, type AccessFacts } from '../io/access-scan.js';
import type { AccessVerb } from '../runtime/api/registry.js';

type Ts = typeof TS;

function isClientVerb(name: string): name is ClientVerb {
  return ALL_CLIENT_VERBS.some((v) => v === name);
}

/** The access verbs a declaration grants (`api/access.ts`): a `uses` without a literal list, every client verb's. */
function granted(d: AccessDeclaration): readonly AccessVerb[] {
  if (d.callee === 'onChild') return OWNED_ACCESS;
  if (d.callee === 'defineIndex') return INDEXED_ACCESS;
  const verbs = d.verbs === undefined ? ALL_CLIENT_VERBS : d.verbs.filter(isClientVerb);
  return verbs.flatMap((v) => CLIENT_ACCESS[v]);
}

/**
 * KG361 (`severity`: an error for `run --check`, a warning for `generate`) for each client call in
 * `files` (path as it is to be shown, and the file's access facts) that no declaration in any of
 * them covers, with the declaration to add.
 */
export function undeclaredIn(
  files: readonly { file: string; access: AccessFacts }[],
  severity: Diagnostic['severity'] = 'error',
): Diagnostic[] {
  const have = new Map<string, Set<AccessVerb>>();
  for (const { access } of files)
    for (const d of access.declarations) {
      const set = have.get(d.kind) ?? new Set<AccessVerb>();
      for (const v of granted(d)) set.add(v);
      have.set(d.kind, set);
    }
  const out: Diagnostic[] = [];
  for (const { file, access } of files)
    for (const c of access.calls) {
      if (!isClientVerb(c.method)) continue;
      const verb = c.method;
      const missing = CLIENT_ACCESS[verb].filter((v) => !have.get(c.kind)?.has(v));
      if (missing.length === 0) continue;
      const message = `${c.call}(${c.written}, …) uses a kind no declaration covers for ${verb}: add uses(${c.written}, ['${verb}']) beside the handler (the typed client refuses the call at run time; \`kopfgen manifests\` grants what is declared)`;
      out.push({ severity, code: 'KG361', message, file, line: c.line, col: c.col, pointer: '' });
    }
  return out;
}

/** KG361 for each client call no declaration covers in `files` (path as it is to be shown, and text). */
export function undeclaredCalls(ts: Ts, files: readonly { file: string; text: string }[]): Diagnostic[] {
  return undeclaredIn(
    files.map(({ file, text }) => ({
      file,
      access: scanAccess(ts, ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)),
    })),
  );
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
