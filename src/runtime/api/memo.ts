/**
 * The operator's memory (kopf's `memo` kwarg, a `kopf.Memo`): one object the startup hooks fill, given
 * to every hook, probe and admission callback, and, as a shallow copy made the first time an object is
 * handled, to every handler of that object (runtime/memos.ts). So handlers of one object share what they
 * store on it, and what a startup hook put there (a connection, a shared cache) is seen by all.
 *
 * Typed where kopf is not: `Memo` is empty until the project declares what it holds, by declaration
 * merging (TypeScript's way to extend an interface a library owns):
 *
 *     declare module 'kopfgen/runtime' {
 *       interface Memo {
 *         counter?: number;
 *       }
 *     }
 *
 * A field no declaration names is a compile error (TS2339), as a typo in a kopf memo key is not.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the project's declaration merging
export interface Memo {}
