/**
 * ts-morph (and its bundled `typescript`), loaded with `require` when first needed. An ESM
 * `import` of this CommonJS package has Node's export lexer read every module it re-exports,
 * the 9 MB compiler included: about 0.5 s more per process on this machine (measured: `import()`
 * 750–1,450 ms, `require` 250–330 ms, under load). The stub merge and the project scan use it.
 *
 * It is no dependency of kopfgen's (nor a peer, which npm would keep in the project's
 * `npm ci --omit=dev`): an operator's production install runs handlers and needs no compiler. It is
 * resolved from where kopfgen is installed, which finds the project's own (the scaffold has it as a
 * dev dependency). A run that needs it where it is not installed (merging into a stub file, listing a
 * tsconfig.json) is refused with `MissingTsMorphError`, which says what to install; a new project
 * (no stub file, no tsconfig.json yet) never loads it.
 */
import { createRequire } from 'node:module';

type TsMorph = typeof import('ts-morph');

let loaded: TsMorph | undefined;

/** The version kopfgen is tested with (its devDependencies' pin), as the install hint names it. */
export const TS_MORPH_VERSION = '28.0.0';

/** ts-morph is needed and not installed where kopfgen is. */
export class MissingTsMorphError extends Error {
  constructor() {
    super(
      `kopfgen needs ts-morph to read your TypeScript (the stub files it merges into, the files your tsconfig.json includes) and it is not installed: npm install --save-dev ts-morph@${TS_MORPH_VERSION} (with npx: npx -p kopfgen -p ts-morph@${TS_MORPH_VERSION} kopfgen …); nothing was written`,
    );
  }
}

export function tsMorph(): TsMorph {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  try {
    require.resolve('ts-morph');
  } catch {
    throw new MissingTsMorphError();
  }
  loaded = require('ts-morph') as TsMorph;
  return loaded;
}
