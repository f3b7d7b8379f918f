/**
 * `<out>/index.ts`: re-exports every module's top-level names. Modules are visited in path
 * order; a name already taken by an earlier module is re-exported under a numbered alias, so
 * the index never has a collision and the choice never depends on input order.
 */
import type { GeneratedFile } from '../api.js';
import { NameScope } from '../model/reserved.js';
import { headerLine } from './header.js';
import type { EmittedModule } from './module.js';

/** One module's exports as the index re-exports them: each name once, under its run-wide alias. */
export interface IndexEntry {
  module: EmittedModule;
  exports: { name: string; alias: string; typeOnly: boolean }[];
}

/**
 * The modules in path order with their exports' aliases: a name an earlier module already took is
 * numbered (`scope` also holds the names the index file binds itself). Shared by both targets.
 */
export function indexEntries(modules: readonly EmittedModule[], scope = new NameScope()): IndexEntry[] {
  const sorted = [...modules].sort((a, b) => (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0));
  return sorted.map((module) => {
    const seen = new Set<string>();
    const exports = module.exports
      .filter((e) => !seen.has(e.name) && seen.add(e.name))
      .map((e) => ({ name: e.name, alias: scope.claim(e.name), typeOnly: e.typeOnly }));
    return { module, exports };
  });
}

export function emitIndex(modules: readonly EmittedModule[]): GeneratedFile {
  const lines: string[] = [headerLine()];
  for (const { module, exports } of indexEntries(modules)) {
    const from = JSON.stringify('./' + module.file.path.replace(/\.ts$/, '.js'));
    const named = (typeOnly: boolean) =>
      exports
        .filter((e) => e.typeOnly === typeOnly)
        .map((e) => (e.alias === e.name ? e.name : `${e.name} as ${e.alias}`));
    const [types, values] = [named(true), named(false)];
    if (types.length > 0) lines.push(`export type { ${types.join(', ')} } from ${from};\n`);
    if (values.length > 0) lines.push(`export { ${values.join(', ')} } from ${from};\n`);
  }
  return { path: 'index.ts', content: lines.join(''), role: 'generated' };
}
