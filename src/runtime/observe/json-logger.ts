/**
 * The `Logger` for `--log-format json`: one JSON object per line, `{"level","time","msg",...fields}`, written by
 * pino (fast, synchronous to stderr here, so the last lines before a crash are not lost). The runtime passes
 * resource, namespace, name, handler, cause and outcome as fields; log collectors index them as they are.
 * The text logger (../log.ts) stays the default.
 */
import pino from 'pino';
import type { Logger } from '../api/context.js';

export type JsonLevel = 'debug' | 'info' | 'warn' | 'error';

export interface JsonLoggerOptions {
  level?: JsonLevel;
  /** Where lines go; default stderr, as the text logger. Tests pass `{ write(line) }`. */
  destination?: { write(line: string): void };
}

/** Keys pino writes itself: a field of that name is renamed instead of writing a duplicate key. */
const RESERVED = new Set(['level', 'time', 'msg']);

/** Errors become their message (JSON.stringify would write `{}`); reserved keys get a `_` suffix. */
function fieldsOf(fields: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!fields) return out;
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    out[RESERVED.has(key) ? `${key}_` : key] = value instanceof Error ? value.message : value;
  }
  return out;
}

export function createJsonLogger(options: JsonLoggerOptions = {}): Logger {
  const destination = options.destination ?? pino.destination({ dest: 2, sync: true });
  const log = pino(
    {
      level: options.level ?? 'info',
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  return {
    debug: (message, fields) => log.debug(fieldsOf(fields), message),
    info: (message, fields) => log.info(fieldsOf(fields), message),
    warn: (message, fields) => log.warn(fieldsOf(fields), message),
    error: (message, fields) => log.error(fieldsOf(fields), message),
  };
}
