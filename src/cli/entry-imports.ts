/**
 * The scaffold's entry module (`src/operator.ts`, kopf's `handlers.py`) imports every handler
 * file, so loading it registers the handlers. Its import lines sit between two marks and belong to
 * kopfgen: `kopfgen init` writes them, `kopfgen generate` rewrites them when the run's handler
 * files change (a CRD swapped for another leaves no import of a file that is gone, which
 * TypeScript would pass as a side-effect import and `kopfgen run` fail on). Everything outside
 * the marks is the user's. Pure: text in, text out.
 */
import { join, relative, sep } from 'node:path';
import type { GeneratedFile } from '../api.js';
import type { Scaffold } from './init-scaffolds.js';

const BEGIN = 'kopfgen:begin imports';
const END = 'kopfgen:end imports';

/** The marked block: `scaffold.imports` of the stub files (paths relative to the project), between the marks. */
export function importBlock(scaffold: Scaffold, stubs: readonly string[]): string {
  const c = scaffold.comment;
  return [
    `${c} ${BEGIN}: \`kopfgen generate\` keeps the lines down to the end mark in step with your handler files; add your own imports outside them.`,
    scaffold.imports(stubs),
    `${c} ${END}`,
  ].join('\n');
}

/**
 * `text` with its marked block replaced by `block`; undefined when `text` has no complete block
 * (an entry written before the marks, or the user removed them: it is theirs then).
 */
export function syncImportBlock(text: string, block: string): string | undefined {
  const lines = text.split('\n');
  const begin = lines.findIndex((l) => l.includes(BEGIN));
  const end = lines.findIndex((l, i) => i > begin && l.includes(END));
  if (begin < 0 || end < 0) return undefined;
  return [...lines.slice(0, begin), block, ...lines.slice(end + 1)].join('\n');
}

/** The stub files of a run as paths relative to the project (`src/handlers/widgets.ts`), `/`-separated. */
export function stubPathsIn(
  projectDir: string,
  stubsDir: string | undefined,
  generated: readonly GeneratedFile[],
): string[] {
  if (stubsDir === undefined) return [];
  return generated
    .filter((f) => f.role === 'stub' && !f.path.endsWith('.test.ts'))
    .map((f) => relative(projectDir, join(stubsDir, f.path)).split(sep).join('/'))
    .sort();
}
