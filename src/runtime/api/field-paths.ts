/**
 * Types of what the runtime compares between handled states: the essence of a resource (what
 * `reconcile/essence.ts` builds and stores as the last-handled configuration), the dotted paths
 * into it that `onField` accepts, and the type of the value at such a path. Computed from the
 * resource's own type, so they serve generated resources and any other typed resource alike.
 */

/** Keys `buildEssence` leaves out of the top level (metadata comes back as labels and annotations only). */
type OutsideEssence = 'apiVersion' | 'kind' | 'metadata' | 'status';

/** The metadata the essence keeps. */
type EssenceMetadata = { labels?: Record<string, string>; annotations?: Record<string, string> };

/**
 * What `old` and `new` hold for create, update, resume and delete handlers (kopf's diffbase
 * essence): the object without apiVersion, kind and status, its metadata reduced to labels and
 * annotations (less the operators' marks). There is no `metadata.name`, no `status`: read those
 * from `body`. Empty objects are pruned from it, so every top-level key is optional; below, an
 * object that is required but may be empty (`{}`) is typed as present and may be missing (kept
 * out of the type: marking every such key optional doubled the checker's work on large schemas).
 */
export type Essence<R> = unknown extends R ? Record<string, unknown> : Shape<R>;

/** The essence's keys with the resource's own types, each optional. */
type Shape<R> = { [K in keyof R as K extends OutsideEssence ? never : K]?: R[K] } & { metadata?: EssenceMetadata };

/** The essence's top-level keys, without building its type. */
type EssenceKeys<R> = Exclude<keyof R & string, OutsideEssence> | 'metadata';

/** The type of the essence's top-level key `Head`. */
type EssenceBelow<R, Head extends string> = Head extends 'metadata' ? EssenceMetadata : Below<R, Head>;

/** Depth budget of a path: `Fewer[n]` is n - 1; 0 stops. */
type Fewer = [never, 0, 1, 2, 3, 4, 5];

/**
 * Dotted paths into `T`, at most `D` segments deep. A path stops at lists (kopf's field paths
 * do not index into lists) and at the end of the budget (the deeper field's own path is then a
 * type error: name its nearest ancestor instead). Under an index signature any key is a path.
 */
type Paths<T, D extends number> = [D] extends [never]
  ? never
  : T extends readonly unknown[]
    ? never
    : T extends object
      ? {
          [K in keyof T & string]: K | `${K}.${Paths<NonNullable<T[K]>, Fewer[D]>}`;
        }[keyof T & string]
      : never;

/**
 * The dotted field paths `onField` accepts for resource `R`: every path into its essence up to
 * five segments (`spec.replicas`, `spec.template.spec.containers`, `metadata.labels.app`). Bounded
 * so that the largest real-world schemas still type-check quickly. Any string for an untyped resource.
 */
export type FieldPath<R> = unknown extends R ? string : Paths<Shape<R>, 5>;

/** The type of the value at the dotted path `P` of `T` (`unknown` where the path leaves the type). */
export type FieldValue<T, P extends string> = unknown extends T
  ? unknown
  : P extends `${infer Head}.${infer Rest}`
    ? Head extends keyof NonNullable<T>
      ? FieldValue<NonNullable<T>[Head], Rest>
      : string extends keyof NonNullable<T>
        ? FieldValue<NonNullable<T>[string & keyof NonNullable<T>], Rest>
        : unknown
    : P extends keyof NonNullable<T>
      ? NonNullable<T>[P]
      : string extends keyof NonNullable<T>
        ? NonNullable<T>[string & keyof NonNullable<T>]
        : unknown;

/** The keys of an object type that a path may name (none for lists and scalars: paths stop there). */
type Segments<T> =
  NonNullable<T> extends readonly unknown[]
    ? never
    : NonNullable<T> extends object
      ? keyof NonNullable<T> & string
      : never;

/** The type below `Head` in `T`, through an index signature if `T` has one. */
type Below<T, Head extends string> = Head extends keyof NonNullable<T>
  ? NonNullable<T>[Head]
  : NonNullable<T>[string & keyof NonNullable<T>];

/**
 * `unknown` when `P` is a dotted path into `T`; otherwise `{ fieldPathOneOf: … }`, what it could
 * have been at the segment that went wrong (`Done` is the part already checked), which
 * `onField`'s `P & …` turns into an error naming the choices. Walks `P`'s own segments only:
 * the cost grows with the path, not with the schema.
 */
type Checked<T, P extends string, Whole extends string, Done extends string> = P extends `${infer Head}.${infer Rest}`
  ? Head extends Segments<T>
    ? Checked<Below<T, Head>, Rest, Whole, `${Done}${Head}.`>
    : { readonly fieldPathOneOf: `${Choices<T, Done>}` }
  : P extends Segments<T>
    ? unknown
    : { readonly fieldPathOneOf: `${Choices<T, Done>}` };

/** The paths one segment below `Done`; at a list or a scalar, `Done` itself (the deepest path there is). */
type Choices<T, Done extends string> = [Segments<T>] extends [never]
  ? Done extends `${infer Parent}.`
    ? Parent
    : never
  : `${Done}${Segments<T>}`;

/**
 * `onField` takes `P & CheckedFieldPath<R, P>`: `unknown` (so just `P`) when `P` is one of the
 * resource's field paths (`FieldPath`), else an object naming the paths it could have meant, which
 * no string is. Checked segment by segment, so large schemas cost nothing until a path is
 * written, and `P` is inferred from the argument alone (`NoInfer` on this side), which keeps
 * TypeScript from inferring through these conditional types. Any string for an untyped resource.
 */
export type CheckedFieldPath<R, P extends string> = unknown extends R ? unknown : Check<R, P>;

/** `Checked` for the essence's top level, whose keys are read off `R` without building its type. */
type Check<R, P extends string> = P extends `${infer Head}.${infer Rest}`
  ? Head extends EssenceKeys<R>
    ? Checked<EssenceBelow<R, Head>, Rest, P, `${Head}.`>
    : { readonly fieldPathOneOf: `${EssenceKeys<R>}` }
  : P extends EssenceKeys<R>
    ? unknown
    : { readonly fieldPathOneOf: `${EssenceKeys<R>}` };

/**
 * A JSON value as the API server stores it: what a `diff` entry holds where the resource's type
 * says no more than `unknown` (an open object, `x-kubernetes-preserve-unknown-fields`).
 */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

export type DiffOperation = 'add' | 'change' | 'remove';

/**
 * One changed field between the last handled state and now: `[op, path, old, new]`, as kopf's
 * `diff` (an add has no old value, a remove no new one; a change of a concealed or digested value
 * has no old one either, hence `| undefined` on both). For a typed `T` (the essence of a create,
 * update or resume handler; the field's value of an `onField` handler, whose paths are relative to
 * the field, as kopf's `diff.reduce`), a union over `T`'s paths: `['spec', 'size']` holds the
 * size's type, `[]` the whole value (a create's `add`). A path stops at lists (the runtime diffs a
 * list whole) and, typed, at five segments; the deeper changes come as `[…five, ...string[]]`
 * with `unknown` values. Under a field typed `unknown` any path holds a `JsonValue`. `DiffItem`
 * alone (`T` unknown: any handler's diff, what `HandlerContext<R>` accepts from every handler)
 * is any path with `unknown` values: a typed value (an interface) is no `JsonValue` to TypeScript.
 */
export type DiffItem<T = unknown> = unknown extends T
  ? readonly [DiffOperation, readonly string[], unknown, unknown]
  : DiffAt<T, [], 5>;

/** The entry at `Path` itself (holding `T`) and those below it. */
type DiffAt<T, Path extends readonly string[], D extends number> =
  readonly [DiffOperation, Readonly<Path>, JsonOr<T> | undefined, JsonOr<T> | undefined] | DiffBelow<T, Path, D>;

/** A value typed `unknown` by the resource is still JSON: read from the API server. */
type JsonOr<T> = unknown extends T ? JsonValue : T;

/** The entries strictly below `Path`: none at a list or a scalar; any path under `unknown`. */
type DiffBelow<T, Path extends readonly string[], D extends number> = unknown extends T
  ? readonly [DiffOperation, readonly [...Path, string, ...string[]], JsonValue | undefined, JsonValue | undefined]
  : NonNullable<T> extends readonly unknown[]
    ? never
    : NonNullable<T> extends object
      ? D extends 0
        ? readonly [DiffOperation, readonly [...Path, string, ...string[]], unknown, unknown]
        : {
            [K in keyof NonNullable<T> & string]-?: DiffAt<NonNullable<T>[K], [...Path, K], Fewer[D]>;
          }[keyof NonNullable<T> & string]
      : never;
