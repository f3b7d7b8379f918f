/**
 * `kopfgen init` in a project that already has a package.json: what the template's package.json
 * adds to it. Pure: text in, text and a list of what changed out. The user's values win (a
 * script of the same name, a dependency already declared in any section) unless `force`.
 */
import type { Diagnostic } from '../diagnostics.js';
import { jsonSyntaxError } from '../load/json-syntax.js';

type Json = Record<string, unknown>;

export interface PackageMerge {
  /** The merged package.json (two-space indented, as npm writes it); undefined when nothing changes. */
  content?: string;
  /** What was added or replaced, e.g. `script check`, `dependency kopfgen`, `"type": "module"`. */
  added: string[];
  /** What the user's file already has differently and was kept, e.g. `script build`. */
  kept: string[];
  diagnostics: Diagnostic[];
}

const SECTIONS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;

export function mergePackageJson(file: string, existing: string, template: string, force: boolean): PackageMerge {
  const ours = JSON.parse(template) as Json;
  const bad = jsonSyntaxError(existing);
  if (bad) {
    const message = `${file} is not valid JSON (${bad.message}); fix it, then run kopfgen init again`;
    return {
      added: [],
      kept: [],
      diagnostics: [{ severity: 'error', code: 'KG350', message, file, ...lineCol(existing, bad.offset), pointer: '' }],
    };
  }
  const theirs: unknown = JSON.parse(existing);
  if (!isObject(theirs)) {
    const message = `${file} must hold a JSON object; fix it, then run kopfgen init again`;
    return {
      added: [],
      kept: [],
      diagnostics: [{ severity: 'error', code: 'KG350', message, file, line: 1, col: 1, pointer: '' }],
    };
  }
  const merged: Json = { ...theirs };
  const added: string[] = [];
  const kept: string[] = [];
  // The scaffold is ES modules (nodenext, `import` of kopfgen/runtime, which is ESM only): without
  // "type" Node reads .js as CommonJS, so it is added. An explicit "commonjs" is the user's choice,
  // kept, unless the package is still what `npm init -y` wrote (its placeholder test script), where
  // "commonjs" is npm's default (npm 11 writes it), not a choice. A scaffold without "type" (kopf's:
  // Python, no JavaScript of its own) leaves the user's alone.
  const fresh = isObject(merged.scripts) && isNpmPlaceholder(merged.scripts.test);
  if (ours.type === undefined) {
    // nothing to add or keep
  } else if (merged.type === undefined || (force && merged.type !== ours.type)) {
    merged.type = ours.type;
    added.push(`"type": "${String(ours.type)}"`);
  } else if (merged.type !== ours.type && fresh) {
    added.push(`"type": "${String(ours.type)}" (replacing npm init's "${String(merged.type)}")`);
    merged.type = ours.type;
  } else if (merged.type !== ours.type) kept.push(`"type": "${String(merged.type)}" (the scaffold is ES modules)`);

  const scripts: Json = isObject(merged.scripts) ? { ...merged.scripts } : {};
  const ourScripts = isObject(ours.scripts) ? ours.scripts : {};
  for (const [name, command] of Object.entries(ourScripts)) {
    if (scripts[name] === command) continue;
    // `prebuild` belongs to the scaffold's `build`: a build of the user's kept gets none of ours.
    const main = name.startsWith('pre') ? name.slice(3) : undefined;
    if (
      main !== undefined &&
      ourScripts[main] !== undefined &&
      scripts[main] !== undefined &&
      scripts[main] !== ourScripts[main] &&
      !force &&
      !isNpmPlaceholder(scripts[main])
    )
      continue;
    // npm init's `echo "Error: no test specified" && exit 1` is no test of the user's: replaced.
    if (isNpmPlaceholder(scripts[name])) {
      scripts[name] = command;
      added.push(`script ${name} (replacing npm init's placeholder)`);
      continue;
    }
    if (scripts[name] !== undefined && !force) {
      kept.push(`script ${name}`);
      continue;
    }
    scripts[name] = command;
    added.push(`script ${name}`);
  }
  merged.scripts = scripts;

  for (const section of ['dependencies', 'devDependencies'] as const) {
    const wanted = ours[section];
    if (!isObject(wanted)) continue;
    const target: Json = isObject(merged[section]) ? { ...merged[section] } : {};
    for (const [name, range] of Object.entries(wanted)) {
      const declared = SECTIONS.find((s) => isObject(merged[s]) && merged[s][name] !== undefined);
      if (declared !== undefined && !(force && declared === section)) {
        if (declared !== section || target[name] !== range) kept.push(`${declared} ${name}`);
        continue;
      }
      if (target[name] === range) continue;
      target[name] = range;
      added.push(`${section === 'dependencies' ? 'dependency' : 'devDependency'} ${name}`);
    }
    merged[section] = sortKeys(target);
  }
  const content = `${JSON.stringify(merged, null, 2)}\n`;
  return { content: added.length > 0 ? content : undefined, added, kept, diagnostics: [] };
}

/** 1-based line and column (in UTF-16 units, as editors count) of an offset. */
function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, col: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

/** The test script `npm init` writes (every npm version since 1): it fails by design. */
function isNpmPlaceholder(script: unknown): boolean {
  return typeof script === 'string' && /^echo "Error: no test specified" && exit 1$/.test(script);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Dependencies sorted by name, as `npm install` leaves them. */
function sortKeys(o: Json): Json {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
