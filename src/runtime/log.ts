/** A line logger: `<time> <LEVEL> <message> key=value ...`, to stderr by default. */
import type { Logger } from './context.js';

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
  const wrap = (fn: Logger['info']) => (message: string, fields?: Record<string, unknown>) => fn(`${prefix}: ${message}`, fields);
  return { debug: wrap(parent.debug), info: wrap(parent.info), warn: wrap(parent.warn), error: wrap(parent.error) };
}
