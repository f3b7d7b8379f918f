/**
 * A custom resource as the runtime watches it (`defineResource`), and what a handler may write
 * into `status.<id>` (`StatusPatch`). The leaf of the handler API: the errors, the registry, the
 * built-in kinds and `define.ts` import it, and it imports none of them, so the folder reads one
 * way.
 */

export interface PrinterColumnDescriptor {
  name: string;
  type: string;
  jsonPath: string;
}

/**
 * What the runtime needs to watch and patch one version of a custom resource, as `defineResource`
 * takes it: plain data, the same type for every resource, so checking a generated module's call
 * builds no type per resource beyond its descriptor's.
 */
export interface ResourceInfo {
  group: string;
  version: string;
  plural: string;
  kind: string;
  scope: 'Namespaced' | 'Cluster';
  /** Whether status goes through the `/status` subresource. */
  statusSubresource: boolean;
  /**
   * The status schema keeps unknown fields (`x-kubernetes-preserve-unknown-fields`), so with the status
   * subresource the runtime keeps its records in `status.kopfgen` and writes them with the handler's status
   * in one `/status` request; else they are annotations, written by a second request.
   */
  statusRecords?: boolean;
  /**
   * The status schema has a `conditions` list (metav1.Condition's): the runtime keeps `Ready`,
   * `Reconciling` and `Stalled` there from the handlers' outcomes, in the write of the outcome
   * (reconcile/conditions.ts), and handlers get `ctx.conditions`.
   */
  statusConditions?: boolean;
  /** The status schema has an integer `observedGeneration`: the runtime sets it to the generation handled. */
  statusObservedGeneration?: boolean;
  /**
   * Fields whose values must not be stored as they are (dotted paths into the essence, e.g. `data` or
   * `spec.password`): the last-handled state keeps keyed digests of them instead (docs/topics/records.md,
   * "Sensitive fields"). `builtins.secrets` has `['data', 'stringData']`; a registration's `sensitive` option adds more.
   */
  sensitive?: readonly string[];
  /**
   * A mutable array first: a generated descriptor's array literal then relates to its own kind of
   * array, where against `readonly PrinterColumnDescriptor[]` alone the checker built ~30 symbols
   * per descriptor (5,000 on the corpus); a frozen array is accepted all the same.
   */
  printerColumns: PrinterColumnDescriptor[] | readonly PrinterColumnDescriptor[];
}

/**
 * A resource the runtime watches: `ResourceInfo` carrying the resource's TypeScript types. `R` is
 * the object as read; `W` as a user writes it (server-defaulted fields optional), which types `patch`.
 */
export interface ResourceDescriptor<R = unknown, W = R> extends ResourceInfo {
  printerColumns: readonly PrinterColumnDescriptor[];
  /** Phantom: carries the resource's TypeScript type; never set at run time. */
  readonly __resource?: R;
  /** Phantom: the resource's write view; never set at run time. */
  readonly __input?: W;
}

/**
 * The descriptor of a resource typed `R` (read) and `W` (written). The parameter is `ResourceInfo`
 * rather than the descriptor less its phantoms (`Omit<ResourceDescriptor<R, W>, …>`), which made
 * the checker build a mapped type per resource (on the corpus's modules: 6,363 instantiations
 * against 1,101).
 */
export function defineResource<R, W = R>(descriptor: ResourceInfo): ResourceDescriptor<R, W> {
  const sensitive = descriptor.sensitive ? { sensitive: Object.freeze([...descriptor.sensitive]) } : {};
  return Object.freeze({ ...descriptor, ...sensitive, printerColumns: Object.freeze([...descriptor.printerColumns]) });
}

/**
 * What a handler may write into `status.<id>` (its return value, an error's `status`): `S`, where
 * every optional field may also be `null`, at any depth. A JSON merge patch deletes a key set to
 * `null` (RFC 7386 §2), so `{ reason: null }` clears a reason an earlier error left behind. A
 * required field cannot be nulled; lists are replaced whole, so their items are not nullable; the
 * brand (a symbol key) is left alone. Unknown keys and wrong types stay errors: this only widens
 * what each known key accepts.
 */
export type StatusPatch<S> = S extends readonly unknown[]
  ? S
  : S extends object
    ? {
        [K in keyof S]:
          StatusPatch<S[K]> | (K extends symbol ? never : Record<never, never> extends Pick<S, K> ? null : never);
      }
    : S;

/**
 * `R` exactly against `S`, deeply: every key of `R` that `S` lacks becomes `never`. Inferred
 * return types (async callbacks above all) skip TypeScript's excess-property check; requiring
 * `R & Exact<R, S>` restores it, and the error points at the offending field.
 */
export type Exact<R, S> = R extends readonly (infer E)[]
  ? S extends readonly (infer F)[]
    ? readonly Exact<E, F>[]
    : R
  : R extends object
    ? S extends object
      ? string extends keyof S
        ? R // an open status (index signature) accepts any further key by design
        : { [K in keyof R]: K extends keyof S ? Exact<R[K], NonNullable<S[K]>> : never }
      : R
    : R;

/**
 * RFC 7386 merge patch of a value of type `T` (the write view): every key may be left out, and
 * `null` deletes a key the write view lets a user omit (the server then fills its default in
 * again); lists are replaced whole.
 */
export type MergePatch<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? {
        -readonly [K in keyof T]?:
          MergePatch<Exclude<T[K], undefined>> | (Record<never, never> extends Pick<T, K> ? null : never);
      }
    : T;
