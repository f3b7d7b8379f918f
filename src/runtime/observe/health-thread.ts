/**
 * Starts the health server's HTTP side in a worker thread (health-worker.ts) and feeds it from the
 * event loop: the answer to each request it passes on, and every second a heartbeat holding the
 * current `/healthz` and `/readyz` answers, which the worker serves while the loop is busy (up to
 * the tolerance). A worker thread is an isolate of its own (about 9 MB of RSS), so the operator starts
 * one only where a callback on the loop can hold the probes for long: when it serves webhooks.
 */
import { Worker } from 'node:worker_threads';
import type { Listening } from '../listen.js';
import type { Answer } from './health-held.js';
import type { HealthMessage, HealthWorkerData } from './health-worker.js';

export interface HealthThreadOptions {
  port: number;
  host?: string;
  toleranceMs: number;
  freshWaitMs: number;
  /** The answer for a path (never rejects). */
  answer: (path: string) => Promise<Answer>;
  /** The heartbeat's answers (never rejects). */
  beat: () => Promise<{ healthz?: Answer; readyz?: Answer }>;
  /** How often the loop publishes the heartbeat (default 1 s). */
  beatMs?: number;
  /** Told when the worker fails after it listened (its port is closed then, so the probes fail). */
  onError?: (message: string) => void;
}

export async function startHealthThread(options: HealthThreadOptions): Promise<Listening> {
  const data: HealthWorkerData = {
    port: options.port,
    host: options.host,
    toleranceMs: options.toleranceMs,
    freshWaitMs: options.freshWaitMs,
  };
  const worker = new Worker(new URL('./health-worker.js', import.meta.url), {
    workerData: data,
    // Its own heap stays small: it holds a few answers and the connections of the probes.
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
  });
  const post = (message: HealthMessage) => worker.postMessage(message);
  const publish = () => void options.beat().then((beat) => post({ kind: 'beat', ...beat }));
  worker.on('message', (message: HealthMessage) => {
    if (message.kind === 'ask')
      void options.answer(message.path).then((answer) => post({ kind: 'answer', id: message.id, answer }));
  });
  const bound = await new Promise<number>((resolve, reject) => {
    const first = (message: HealthMessage) => {
      if (message.kind === 'listening') resolve(message.port);
      if (message.kind === 'failed') reject(new Error(message.message));
      if (message.kind === 'listening' || message.kind === 'failed') worker.off('message', first);
    };
    worker.on('message', first);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the health worker exited (${code}) before listening`)));
  }).catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });
  // A worker that dies takes its port with it: the kubelet's probes fail, which is what they are for.
  worker.on('error', (error) => options.onError?.(`the health server's worker failed: ${error.message}`));
  publish();
  const beat = setInterval(publish, options.beatMs ?? 1000);
  // The heartbeat alone does not keep the process alive (the worker does, until close()).
  beat.unref();
  const local = options.host && options.host !== '0.0.0.0' && options.host !== '::' ? options.host : '127.0.0.1';
  return {
    port: bound,
    url: `http://${local.includes(':') ? `[${local}]` : local}:${bound}`,
    close: async () => {
      clearInterval(beat);
      const closed = new Promise<void>((resolve) => {
        worker.on('message', (message: HealthMessage) => message.kind === 'closed' && resolve());
        worker.once('exit', () => resolve());
      });
      post({ kind: 'close' });
      await closed;
      await worker.terminate();
    },
  };
}
