/**
 * `ctx.conditions`: a handler's own entries of `status.conditions` (metav1.Condition), typed by the
 * resource. The names are the CRD's enum on `conditions[].type` where it has one, else any string;
 * a resource whose status schema has no `conditions` gets no helper (the property is `never`). The
 * runtime merges what a handler sets with the conditions it maintains itself (reconcile/conditions.ts):
 * it fills in `lastTransitionTime` (changed only when the status changes, as apimachinery's
 * `meta.SetStatusCondition`) and the generation, and keeps `Reconciling`, `Stalled` and, unless a
 * registration asks for `readiness: 'manual'`, `Ready` to itself.
 */

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** One entry of `status.conditions`, metav1.Condition's shape, as the runtime writes it. */
export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  /** RFC 3339, seconds: when `status` last changed. */
  lastTransitionTime: string;
  /** The `metadata.generation` the condition was set for. */
  observedGeneration?: number;
}

/** What a handler sets of one condition. */
export interface ConditionInput {
  status: ConditionStatus;
  /** CamelCase, as metav1.Condition requires: `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`. */
  reason: string;
  message?: string;
}

/** The condition helper of a resource whose conditions are named `T`. */
export interface Conditions<T extends string> {
  /** Sets condition `type` in the status this attempt writes (also when the handler then fails). */
  set(type: T, condition: ConditionInput): void;
}

type StatusOf<R> = R extends { status?: infer S } ? S : unknown;
type ConditionsListOf<S> = S extends { conditions?: infer L } ? L : never;
type TypeOf<C> = C extends { type: infer T } ? (T extends string ? T : string) : string;

/**
 * `ctx.conditions` of a handler of `R`: `Conditions` over the names `R`'s status schema allows, or
 * `never` when it has no `conditions` list. An untyped resource (`unknown`) takes any name.
 */
export type ConditionsOf<R> = [unknown] extends [R]
  ? Conditions<string>
  : [ConditionsListOf<NonNullable<StatusOf<R>>>] extends [never]
    ? never
    : NonNullable<ConditionsListOf<NonNullable<StatusOf<R>>>> extends readonly (infer C)[]
      ? Conditions<TypeOf<C>>
      : never;

/** The condition names of `R` (the CRD's enum on `conditions[].type`, else any string; never without conditions). */
export type ConditionName<R> = ConditionsOf<R> extends Conditions<infer T> ? T : never;

const TYPE_PATTERN =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/;
const REASON_PATTERN = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/**
 * The helper writing into a handler's `patch.status.conditions`: one entry per type, the newest set
 * winning. A name or reason the API server would refuse (metav1.Condition's patterns) throws here, in
 * the handler, rather than failing the write that records its outcome.
 */
export function conditionsOn(patch: { status: Record<string, unknown> }): Conditions<string> {
  return {
    set(type, condition) {
      if (type.length > 316 || !TYPE_PATTERN.test(type))
        throw new TypeError(`condition type ${JSON.stringify(type)} is not a valid metav1.Condition type`);
      if (condition.reason.length > 1024 || !REASON_PATTERN.test(condition.reason))
        throw new TypeError(
          `condition ${type}: reason ${JSON.stringify(condition.reason)} must match ${REASON_PATTERN.source}`,
        );
      const entry = { type, status: condition.status, reason: condition.reason, message: condition.message ?? '' };
      const list = Array.isArray(patch.status.conditions) ? patch.status.conditions : [];
      patch.status.conditions = [...list.filter((c: unknown) => !isOfType(c, type)), entry];
    },
  };
}

function isOfType(value: unknown, type: string): boolean {
  return typeof value === 'object' && value !== null && Reflect.get(value, 'type') === type;
}
