/**
 * `<out>/index.ts`: re-exports every module's top-level names. Modules are visited in path
 * order; a name already taken by an earlier module is re-exported under a numbered alias, so
 * the index never has a collision and the choice never depends on input order.
 */
import type { GeneratedFile } from '../api.js';
import { NameScope } from '../model/reserved.js';
import { headerLine } from './header.js';
import type { EmittedModule } from './module.js';

export function emitIndex(modules: readonly EmittedModule[]): GeneratedFile {
  const sorted = [...modules].sort((a, b) => (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0));
  const scope = new NameScope();
  const lines: string[] = [headerLine()];
  for (const m of sorted) {
    const from = JSON.stringify('./' + m.file.path.replace(/\.ts$/, '.js'));
    const types: string[] = [];
    const values: string[] = [];
    const seen = new Set<string>();
    for (const e of m.exports) {
      if (seen.has(e.name)) continue;
      seen.add(e.name);
      const alias = scope.claim(e.name);
      (e.typeOnly ? types : values).push(alias === e.name ? e.name : `${e.name} as ${alias}`);
    }
    if (types.length > 0) lines.push(`export type { ${types.join(', ')} } from ${from};\n`);
    if (values.length > 0) lines.push(`export { ${values.join(', ')} } from ${from};\n`);
  }
  return { path: 'index.ts', content: lines.join(''), role: 'generated' };
}
