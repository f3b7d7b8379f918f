/**
 * Logs: a line logger (`<time> <LEVEL> <message> key=value ...`, to stderr by default), a child
 * logger per object and handler, and the one line per handler outcome.
 */
import type { Logger } from '../api/context.js';
import type { KubernetesObject } from '../api/kube-types.js';
import type { ResourceEnv } from '../env.js';
import type { Outcome } from '../reconcile/outcome.js';

export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

function format(fields: Record<string, unknown> | undefined): string {
  if (!fields) return '';
  return Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => ` ${key}=${typeof value === 'string' && !/\s/.test(value) ? value : JSON.stringify(value)}`)
    .join('');
}

export function createLogger(options: { level?: Level; write?: (line: string) => void; prefix?: string } = {}): Logger {
  const min = ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const prefix = options.prefix ? `${options.prefix}: ` : '';
  const log = (level: Level) => (message: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < min) return;
    write(`${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${prefix}${message}${format(fields)}`);
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

/** A logger that prefixes every message, e.g. with the object a handler works on. */
export function childLogger(parent: Logger, prefix: string): Logger {
  const wrap = (fn: Logger['info']) => (message: string, fields?: Record<string, unknown>) =>
    fn(`${prefix}: ${message}`, fields);
  return { debug: wrap(parent.debug), info: wrap(parent.info), warn: wrap(parent.warn), error: wrap(parent.error) };
}

/** A logger that adds `fields` to every line (a hash range's term names its range on each outcome line). */
export function fieldsLogger(parent: Logger, fields: Record<string, unknown>): Logger {
  const wrap = (fn: Logger['info']) => (message: string, more?: Record<string, unknown>) =>
    fn(message, { ...more, ...fields });
  return { debug: wrap(parent.debug), info: wrap(parent.info), warn: wrap(parent.warn), error: wrap(parent.error) };
}

/** `namespace/name` (or `name` for cluster-scoped objects), as kubectl names an object. */
export function objectRef(body: KubernetesObject): string {
  const meta = body.metadata ?? {};
  return meta.namespace ? `${meta.namespace}/${meta.name}` : String(meta.name);
}

/** The fields naming an object on a log line (log collectors index them). */
export function objectFields(env: Pick<ResourceEnv, 'resource'>, body: KubernetesObject) {
  const { namespace, name } = body.metadata ?? {};
  return { resource: env.resource.plural, namespace, name };
}

/**
 * What comes after a temporary failure: `retry in Ns` for a changing handler (its delay) and a daemon
 * (restarted after it); a timer runs again at its interval whatever the error asked for.
 */
export function retryText(outcome: Outcome, timerInterval?: number): string {
  return timerInterval !== undefined ? `next run in ${timerInterval}s (its interval)` : `retry in ${outcome.delay}s`;
}

export function logOutcome(
  env: ResourceEnv,
  body: KubernetesObject,
  id: string,
  cause: string,
  outcome: Outcome,
  retry = retryText(outcome),
) {
  const fields = { ...objectFields(env, body), handler: id, cause, outcome: outcome.kind };
  switch (outcome.kind) {
    case 'success':
      return env.logger.info(`handler ${id} succeeded`, fields);
    case 'ignored':
      return env.logger.warn(`handler ${id} failed, error ignored: ${outcome.message}`, fields);
    case 'temporary':
      // kopf's "has unfinished sub-handlers. Will retry soon." (debug): nothing failed.
      if (outcome.pending) return env.logger.debug(`handler ${id} waits for its sub-handlers, ${retry}`, fields);
      return env.logger.warn(`handler ${id} failed temporarily, ${retry}: ${outcome.message}`, fields);
    case 'permanent':
      return env.logger.error(`handler ${id} failed permanently: ${outcome.message}`, fields);
  }
}

/** The one line for a reconcile that failed, naming the object (the error policy wrote `line`). */
export function logFailure(env: ResourceEnv, body: KubernetesObject | undefined, uid: string, line: string): void {
  const named = body
    ? `${env.resource.plural} ${objectRef(body)}: ${line}`
    : `${env.resource.plural} uid ${uid}: ${line}`;
  env.logger.error(named, { resource: env.resource.plural, object: body ? objectRef(body) : undefined, uid });
}
