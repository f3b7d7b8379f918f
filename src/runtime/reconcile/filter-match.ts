/**
 * Whether an object matches a registration's filters (api/filters.ts), pure: kopf's
 * `match_annotations` / `match_labels` / `match_value` / `match_when`. Called again for every
 * state of the object, so a handler whose filters stop matching is simply not due any more.
 * A predicate that throws is the user's code failing: the exception goes to the caller (the
 * reconcile's error policy), as kopf lets it surface.
 */
import {
  ABSENT,
  PRESENT,
  type ChangeFilters,
  type FilterContext,
  type Filters,
  type MetaFilter,
} from '../api/filters.js';
import type { KubernetesObject } from '../api/kube-types.js';
import { deepEqual, getPath } from '../json.js';
import { parseField } from './essence.js';

/** `context`: a label or annotation predicate's second argument (the object), none for the others. */
function matchesValue(want: unknown, value: unknown, context?: () => FilterContext<unknown>): boolean {
  if (want === PRESENT) return value !== undefined;
  if (want === ABSENT) return value === undefined;
  if (typeof want === 'function') return (context ? want(value, context()) : want(value)) === true;
  return deepEqual(want, value);
}

function matchesMap(
  filters: Readonly<Record<string, MetaFilter>> | undefined,
  actual: unknown,
  body: KubernetesObject,
): boolean {
  if (!filters) return true;
  const map = typeof actual === 'object' && actual !== null ? actual : {};
  return Object.entries(filters).every(([key, want]) => {
    const value: unknown = Reflect.get(map, key);
    return matchesValue(want, typeof value === 'string' ? value : undefined, () => filterContext(body));
  });
}

export function filterContext(body: KubernetesObject): FilterContext<unknown> {
  const meta = body.metadata ?? {};
  return {
    body,
    spec: body.spec,
    status: body.status,
    meta,
    name: String(meta.name),
    namespace: meta.namespace,
    uid: String(meta.uid),
  };
}

/** True when `body` matches every filter given (no filters: always). */
export function matchesFilters(filters: Filters, body: KubernetesObject): boolean {
  if (!matchesMap(filters.labels, body.metadata?.labels, body)) return false;
  if (!matchesMap(filters.annotations, body.metadata?.annotations, body)) return false;
  if (filters.field !== undefined) {
    const value = getPath(body, parseField(filters.field));
    if (!matchesValue(filters.value === undefined ? PRESENT : filters.value, value)) return false;
  }
  if (filters.when && filters.when(filterContext(body)) !== true) return false;
  return true;
}

/**
 * Whether a change of a field handler's field passes its `old`/`new` filters (kopf's `match_value` on
 * `cause.old`/`cause.new` of the field): either absent means any value.
 */
export function matchesChange(filters: ChangeFilters, old: unknown, now: unknown): boolean {
  if (filters.old !== undefined && !matchesValue(filters.old, old)) return false;
  if (filters.new !== undefined && !matchesValue(filters.new, now)) return false;
  return true;
}
