/**
 * ts-morph (and its bundled `typescript`), loaded with `require` when first needed. An ESM
 * `import` of this CommonJS package has Node's export lexer read every module it re-exports,
 * the 9 MB compiler included: about 0.5 s more per process on this machine (measured: `import()`
 * 750–1,450 ms, `require` 250–330 ms, under load). The stub merge and the project scan use it.
 */
import { createRequire } from 'node:module';

type TsMorph = typeof import('ts-morph');

let loaded: TsMorph | undefined;

export function tsMorph(): TsMorph {
  loaded ??= createRequire(import.meta.url)('ts-morph') as TsMorph;
  return loaded;
}
