/**
 * kopf's examples/14-daemons: two daemons per object that fail their first three attempts
 * (`ctx.retry`), then ping until the object is deleted (their `signal` aborts). The first ends on its
 * own after 30 s of pings; the second runs until stopped, released 0.5 s after its abort at the latest.
 */
import { defineHandler, TemporaryError } from 'kopfgen/runtime';
import { KopfExampleDescriptor, type KopfExample } from './generated/index.js';

/** Resolves after `seconds`, or at once when `signal` aborts. */
function sleep(seconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, seconds * 1000);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'background_sync').onDaemon(
  async (ctx) => {
    if (ctx.retry < 3) {
      ctx.patch.status.message = `Failed ${ctx.retry + 1} times.`;
      throw new TemporaryError('Simulated failure.', { delay: 1 });
    }
    const started = Date.now();
    while (!ctx.signal.aborted && Date.now() - started <= 30_000) {
      ctx.logger.info(`=> Ping from a sync daemon: field=${JSON.stringify(ctx.spec?.field)}, retry=${ctx.retry}`);
      await sleep(5, ctx.signal);
    }
    ctx.patch.status.message = 'Accompanying is finished.';
  },
  { backoff: 3 },
);

defineHandler<KopfExample, never>(KopfExampleDescriptor, 'background_async').onDaemon(
  async (ctx) => {
    if (ctx.retry < 3) throw new TemporaryError('Simulated failure.', { delay: 1 });
    while (!ctx.signal.aborted) {
      ctx.logger.info(`=> Ping from an async daemon: field=${JSON.stringify(ctx.spec?.field)}`);
      await sleep(5, ctx.signal);
    }
  },
  { backoff: 3, cancellationTimeout: 0.5, annotations: { someannotation: 'somevalue' } },
);
