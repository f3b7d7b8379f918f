/**
 * Filters on a handler registration, as kopf's `labels=`, `annotations=`, `field=`/`value=` and
 * `when=` (kopf docs, "Filtering"): a handler runs only for objects that match all of them. A
 * label or annotation filter's value is the exact string, `PRESENT`, `ABSENT`, or a predicate of
 * the value (undefined when the key is absent) and the object (`when`'s context); `value` is compared with the value at `field`
 * (deep equality), or is `PRESENT`/`ABSENT`, or a predicate.
 */
import type { ObjectMeta } from './kube-types.js';

/** The key (or field) must be there, whatever its value (kopf.PRESENT). */
export const PRESENT: unique symbol = Symbol.for('kopfgen.filter.present');
/** The key (or field) must not be there (kopf.ABSENT). */
export const ABSENT: unique symbol = Symbol.for('kopfgen.filter.absent');

export type Presence = typeof PRESENT | typeof ABSENT;

/**
 * What a label or annotation filter asks of the value under its key: the value, PRESENT/ABSENT, or a
 * predicate of the value and the object (kopf passes a callback filter the object's kwargs too).
 */
export type MetaFilter<R = unknown> = string | Presence | MetaPredicate<R>;

/**
 * A label or annotation predicate. Declared through a method, as `when` is, so that the registry can
 * hold every resource's registrations as `Filters<unknown>` (method parameters are bivariant).
 */
type MetaPredicate<R> = { check(value: string | undefined, context: FilterContext<R>): boolean }['check'];

type SpecOf<R> = R extends { spec?: infer S } ? S : unknown;
type StatusOf<R> = R extends { status?: infer S } ? S : unknown;

/** What `when` sees of the object (kopf passes the same names as keyword arguments). */
export interface FilterContext<R> {
  body: R;
  spec: SpecOf<R>;
  status: StatusOf<R> | undefined;
  meta: ObjectMeta;
  name: string;
  namespace: string | undefined;
  uid: string;
}

/** What a field's value must be: equal to this (deep equality), PRESENT/ABSENT, or a predicate of it. */
export type ValueFilter<V> = V | Presence | ((value: V | undefined) => boolean);

/**
 * kopf's `old=`/`new=` with `field=`: a field handler runs for a change of its field only when the
 * value before (`old`) and after (`new`) match, each typed by the field's value type (`onField`).
 */
export interface ChangeFilters<V = unknown> {
  old?: ValueFilter<V>;
  new?: ValueFilter<V>;
}

export interface Filters<R = unknown> {
  /** Every listed label must match (a string: equal; PRESENT/ABSENT; a predicate of the value and the object). */
  labels?: Readonly<Record<string, MetaFilter<R>>>;
  /** Every listed annotation must match, as `labels`. */
  annotations?: Readonly<Record<string, MetaFilter<R>>>;
  /** A dotted path into the object (e.g. `spec.tier`): without `value`, the field must be present. */
  field?: string;
  /** What the value at `field` must be: equal to this, PRESENT/ABSENT, or a predicate. */
  value?: unknown;
  /** Any condition on the object; the handler runs only while it returns true. */
  when?(context: FilterContext<R>): boolean;
}
