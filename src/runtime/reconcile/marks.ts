/**
 * The identity of the operator's marks on the objects it handles, as kopf's
 * `settings.persistence` (`finalizer`, `progress_storage` prefix, `diffbase_storage` key): the
 * finalizer, the prefix of the progress annotations and the last-handled-configuration key.
 * Two operators handling one CRD need different marks, else one's finalizer holds the other's
 * deletions and one's last-handled configuration tells the other the object is handled.
 */

export interface Marks {
  /** Progress annotations are `<prefix>/<handler key>`; a DNS subdomain, e.g. `billing.example.com`. */
  prefix: string;
  /** The finalizer that holds deletions back for the delete handlers. */
  finalizer: string;
  /** The annotation holding the essence of the last handled state. */
  lastHandled: string;
}

export interface MarksOptions {
  /** Derives all three marks from one prefix (default `kopfgen.dev`). */
  prefix?: string;
  finalizer?: string;
  lastHandled?: string;
}

export const DEFAULT_PREFIX = 'kopfgen.dev';

/** A DNS-1123 subdomain: what Kubernetes accepts before the `/` of an annotation key or finalizer. */
const SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The marks for `options`, or a message saying which value Kubernetes would refuse. */
export function resolveMarks(options: MarksOptions = {}): Marks | string {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (!SUBDOMAIN.test(prefix))
    return `marks prefix ${JSON.stringify(prefix)} is not a DNS subdomain (e.g. billing.example.com)`;
  return {
    prefix,
    finalizer: options.finalizer ?? `${prefix}/finalizer`,
    lastHandled: options.lastHandled ?? `${prefix}/last-handled-configuration`,
  };
}

export const DEFAULT_MARKS: Marks = {
  prefix: DEFAULT_PREFIX,
  finalizer: `${DEFAULT_PREFIX}/finalizer`,
  lastHandled: `${DEFAULT_PREFIX}/last-handled-configuration`,
};

/** The name part of every `<prefix>/last-handled-configuration` key, ours or another operator's (kopf's too). */
export const LAST_HANDLED_NAME = 'last-handled-configuration';
